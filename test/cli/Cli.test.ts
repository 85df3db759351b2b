import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { type Program, programFile, REPO_DIR } from "../support/programs.ts"

/** A built program (`node dist/<program>.js`) run to its end with only `env` (plus PATH and HOME). */
const run = (program: Program, args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [programFile(program), ...args], {
    cwd: REPO_DIR,
    env: { PATH: process.env.PATH ?? "", HOME: os.tmpdir(), ...env },
    encoding: "utf8",
    timeout: 120_000
  })

describe("command line", () => {
  it("app:api-key:generate prints a fresh wmk_ key (64 lowercase hex) each time", () => {
    const first = run("cli", ["app:api-key:generate"])
    const second = run("cli", ["app:api-key:generate"])
    expect(first.status).toBe(0)
    expect(first.stdout.trim()).toMatch(/^wmk_[0-9a-f]{64}$/)
    expect(second.stdout.trim()).toMatch(/^wmk_[0-9a-f]{64}$/)
    expect(second.stdout.trim()).not.toBe(first.stdout.trim())
  })

  it("the daemon reports every configuration error at once and exits with code 1", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-config-"))
    try {
      const result = run("main", [], {
        STORAGE_DIR: path.join(dir, "storage"),
        WATCH_DIR: path.join(dir, "watch"),
        PORT: "eighty",
        IMPORT_MODE: "stravaApi",
        UPLOAD_MAX_FILESIZE: "lots",
        WEBHOOKS_CHECK_INTERVAL_MINUTES: "61",
        APP_URL: "ftp://example.com",
        TZ: "Mars/Olympus"
      })
      expect(result.status).toBe(1)
      for (const name of ["PORT", "IMPORT_MODE", "UPLOAD_MAX_FILESIZE", "WEBHOOKS_CHECK_INTERVAL_MINUTES", "APP_URL", "TZ"]) {
        expect(result.stderr).toContain(name)
      }
      expect(result.stderr).toMatch(/6 problems/)
      // nothing was started: no database was created
      expect(fs.existsSync(path.join(dir, "storage", "database", "waymark.sqlite"))).toBe(false)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("the daemon refuses a malformed key, externalApi without Strava credentials and webhooks without a token, all at once", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-config-"))
    try {
      const result = run("main", [], {
        STORAGE_DIR: path.join(dir, "storage"),
        WATCH_DIR: path.join(dir, "watch"),
        SERVICE_API_KEY: "abc",
        IMPORT_MODE: "externalApi",
        STRAVA_CLIENT_ID: "1234",
        WEBHOOKS_ENABLED: "true",
        PORT: "eighty"
      })
      expect(result.status).toBe(1)
      expect(result.stderr).toMatch(/4 problems/)
      expect(result.stderr).toContain("SERVICE_API_KEY is not a valid key")
      expect(result.stderr).toContain("STRAVA_CLIENT_SECRET, STRAVA_REFRESH_TOKEN are not set")
      expect(result.stderr).toContain("WEBHOOKS_VERIFY_TOKEN")
      expect(result.stderr).toContain("PORT")
      expect(result.stderr).not.toMatch(/\n\s+at /)
      expect(fs.existsSync(path.join(dir, "storage", "database", "waymark.sqlite"))).toBe(false)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("a generated key in upper case is refused with the reason, and the key is not repeated", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-config-"))
    try {
      const key = `wmk_${"ab12".repeat(16)}`.toUpperCase().replace("WMK_", "wmk_")
      const result = run("main", [], { STORAGE_DIR: path.join(dir, "storage"), WATCH_DIR: path.join(dir, "watch"), SERVICE_API_KEY: key })
      expect(result.status).toBe(1)
      expect(result.stderr).toMatch(/1 problem\b/)
      expect(result.stderr).toContain("upper-case")
      expect(result.stderr).not.toContain(key)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
