import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { generateApiKey } from "../../src/services/platform/ApiKey.ts"
import { runDaemonToExit } from "./runDaemon.ts"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "waymark-start-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** A port held by a listener of the test for the life of the scope. */
const busyPort = Effect.acquireRelease(
  Effect.async<net.Server>((resume) => {
    const server = net.createServer()
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
  }),
  (server) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
).pipe(Effect.map((server) => (server.address() as net.AddressInfo).port))

const daemonLog = (storage: string) => {
  const dir = path.join(storage, "files", "logs")
  return fs.existsSync(dir)
    ? fs.readdirSync(dir).filter((f) => f.startsWith("daemon-")).map((f) => fs.readFileSync(path.join(dir, f), "utf8")).join("")
    : ""
}

describe("start-up failures", () => {
  it.scopedLive("a port in use: one plain line naming PORT on stderr and in the daemon log, exit 1, never \"started\"", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const port = yield* busyPort
      const storage = path.join(dir, "storage")
      const result = yield* runDaemonToExit({
        STORAGE_DIR: storage, WATCH_DIR: path.join(dir, "watch"), SERVICE_API_KEY: generateApiKey(),
        PORT: String(port), HOST: "127.0.0.1", TZ: "UTC"
      })
      expect(result.code).toBe(1)
      expect(result.stderr.trim().split("\n")).toEqual([
        `waymark: Port ${port} is already in use (127.0.0.1:${port}, EADDRINUSE): stop the program that uses it, or set PORT to a free port.`
      ])
      expect(result.stdout).not.toContain("started")
      const fatal = daemonLog(storage).split("\n").filter((l) => l.includes('"FATAL"'))
      expect(fatal).toHaveLength(1)
      expect(JSON.parse(fatal[0]!).message).toContain(`Port ${port} is already in use`)
    }), 60_000)

  it.scopedLive("a storage folder that cannot be created: one plain line naming STORAGE_DIR, exit 1", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      fs.writeFileSync(path.join(dir, "a-file"), "")
      const result = yield* runDaemonToExit({
        STORAGE_DIR: path.join(dir, "a-file", "storage"), WATCH_DIR: path.join(dir, "watch"), SERVICE_API_KEY: generateApiKey(), TZ: "UTC"
      })
      expect(result.code).toBe(1)
      const lines = result.stderr.trim().split("\n")
      expect(lines.join("\n")).toContain("STORAGE_DIR")
      expect(lines.join("\n")).not.toMatch(/\n\s+at /)
    }), 60_000)
})
