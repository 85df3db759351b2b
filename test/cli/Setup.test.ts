import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { startChildDaemon } from "../support/ChildDaemon.ts"
import { generateApiKey } from "../../src/services/platform/ApiKey.ts"
import { loadEnvFile, writeApiKey } from "../../src/services/platform/EnvFile.ts"
import { runCli } from "./runCli.ts"

const KEY_PATTERN = /^wmk_[0-9a-f]{64}$/

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "waymark-setup-"))

const keyInEnvFile = (file: string) => /^SERVICE_API_KEY=(.*)$/m.exec(fs.readFileSync(file, "utf8"))?.[1]

describe("app:setup", () => {
  it("writes a fresh key into a new .env readable by its owner only and prints it", () => {
    const dir = tempDir()
    try {
      const result = runCli(["app:setup"], { cwd: dir })
      expect(result.status).toBe(0)
      const key = keyInEnvFile(path.join(dir, ".env"))
      expect(key).toMatch(KEY_PATTERN)
      expect(fs.statSync(path.join(dir, ".env")).mode & 0o777).toBe(0o600)
      expect(result.stdout).toContain(`export KEY=${key}`)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("keeps a key already in .env (printing it) unless --force, and keeps the other lines", () => {
    const dir = tempDir()
    const file = path.join(dir, ".env")
    try {
      const first = generateApiKey()
      fs.writeFileSync(file, `PORT=9090\nSERVICE_API_KEY=${first}\nTZ=Europe/Brussels`)
      const kept = runCli(["app:setup"], { cwd: dir })
      expect(kept.status).toBe(0)
      expect(kept.stdout).toContain(`export KEY=${first}`)
      expect(keyInEnvFile(file)).toBe(first)

      const forced = runCli(["app:setup", "--force"], { cwd: dir })
      expect(forced.status).toBe(0)
      const second = keyInEnvFile(file)
      expect(second).toMatch(KEY_PATTERN)
      expect(second).not.toBe(first)
      expect(forced.stdout).toContain(`export KEY=${second}`)
      expect(fs.readFileSync(file, "utf8")).toBe(`PORT=9090\nSERVICE_API_KEY=${second}\nTZ=Europe/Brussels`)
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("adds the key to an existing .env without one", () => {
    const dir = tempDir()
    const file = path.join(dir, ".env")
    try {
      fs.writeFileSync(file, "# settings\nUNIT_SYSTEM=imperial")
      const written = writeApiKey(file, generateApiKey(), { force: false })
      expect(written._tag).toBe("Added")
      expect(fs.readFileSync(file, "utf8")).toBe(`# settings\nUNIT_SYSTEM=imperial\nSERVICE_API_KEY=${written.key}\n`)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe(".env", () => {
  it("fills in the variables the environment leaves unset; the environment wins", () => {
    const dir = tempDir()
    try {
      fs.writeFileSync(path.join(dir, ".env"), "A=from-file\nB=\"quoted value\"\nexport C=3\n")
      const env: NodeJS.ProcessEnv = { A: "from-environment" }
      expect(loadEnvFile(path.join(dir, ".env"), env)).toEqual(["B", "C"])
      expect(env).toEqual({ A: "from-environment", B: "quoted value", C: "3" })
      expect(loadEnvFile(path.join(dir, "missing.env"), env)).toEqual([])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it.scopedLive("the daemon started in a folder with .env takes its key from it (the environment's PORT wins)", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      const key = generateApiKey()
      // PORT=1 would need privileges: the daemon only answers because the real PORT wins
      fs.writeFileSync(path.join(dir, ".env"), `SERVICE_API_KEY=${key}\nPORT=1\n`, { mode: 0o600 })
      const daemon = yield* startChildDaemon({
        cwd: dir,
        apiKey: key,
        env: { STORAGE_DIR: path.join(dir, "storage"), WATCH_DIR: path.join(dir, "watch"), TZ: "UTC" }
      })
      const status = yield* daemon.get("/api/v1/status")
      expect(status.status).toBe(200)
      expect(status.json.app).toBe("waymark")
    }), 90_000)
})
