import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { startChildDaemon } from "../support/ChildDaemon.ts"
import { programFile } from "../support/programs.ts"
import { freePort } from "../support/freePort.ts"
import { generateApiKey } from "../../src/services/platform/ApiKey.ts"
import { lockHeartbeat } from "../../src/fibers/LockHeartbeat.ts"
import {
  acquireStorageLock, HEARTBEAT_STALE_MS, HeldLocks, isProcessRunning, LOCK_FILE_NAME, thisHolder
} from "../../src/services/platform/StorageLock.ts"
import { runDaemonToExit } from "./runDaemon.ts"

/** A connection to the daemon on `port`, destroyed with the scope. */
const connectedSocket = (port: number) =>
  Effect.acquireRelease(
    Effect.async<net.Socket>((resume) => {
      const socket = net.connect(port, "127.0.0.1", () => resume(Effect.succeed(socket)))
      socket.on("error", () => {})
    }),
    (socket) => Effect.sync(() => socket.destroy())
  )

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "waymark-lock-"))

/** The pid of a process that has already exited. */
const deadPid = () => spawnSync(process.execPath, ["-e", "process.pid"]).pid!

/** The state letter of `/proc/<pid>/stat` (Z for a zombie). */
const procState = (pid: number) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  return stat[stat.lastIndexOf(")") + 2]
}

/**
 * Runs `command` in the background under a parent that never reaps it (`sh` replaced by
 * `sleep` through exec): once it ends, it stays a zombie until the parent is killed.
 * Returns the command's pid and the parent.
 */
const underNonReapingParent = (command: ReadonlyArray<string>, env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.async<{ pid: number; parent: ReturnType<typeof spawn> }>((resume) => {
      const parent = spawn("sh", ["-c", '"$@" >/dev/null 2>&1 & echo $!; exec sleep 300', "sh", ...command], {
        env: { PATH: process.env.PATH ?? "", HOME: os.tmpdir(), ...env },
        stdio: ["ignore", "pipe", "ignore"]
      })
      parent.stdout!.once("data", (chunk: Buffer) => resume(Effect.succeed({ pid: Number(chunk.toString().trim()), parent })))
    }),
    ({ parent }) => Effect.sync(() => parent.kill("SIGKILL"))
  )

const waitUntil = (check: () => boolean, what: string) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 45_000
    while (!check()) {
      if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}`)
      yield* Effect.sleep("50 millis")
    }
  })

describe("storage lock", () => {
  it.scopedLive("a zombie holder (killed, not yet reaped) counts as gone", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      const { pid } = yield* underNonReapingParent(["sleep", "0.3"], {})
      yield* waitUntil(() => procState(pid) === "Z", "the zombie")
      expect(isProcessRunning(pid)).toBe(false)
      fs.writeFileSync(path.join(dir, LOCK_FILE_NAME), JSON.stringify({ pid, hostname: os.hostname(), startedAt: "" }))
      const taken = acquireStorageLock(dir)
      expect(taken._tag).toBe("Acquired")
      if (taken._tag === "Acquired") taken.release()
    }))

  it("on this host and boot, a lock held by a live process is refused with its holder; a dead holder's lock is taken over at once", () => {
    const dir = tempDir()
    const file = path.join(dir, LOCK_FILE_NAME)
    const here = thisHolder()
    try {
      fs.writeFileSync(file, JSON.stringify({ ...here, pid: process.ppid, startedAt: "2026-01-01T00:00:00Z" }))
      // however old its heartbeat: on this host the pid tells
      fs.utimesSync(file, new Date(0), new Date(0))
      const held = acquireStorageLock(dir)
      expect(held._tag).toBe("Held")
      if (held._tag === "Held") expect(held.holder.pid).toBe(process.ppid)

      fs.writeFileSync(file, JSON.stringify({ ...here, pid: deadPid(), startedAt: "" }))
      const taken = acquireStorageLock(dir)
      expect(taken._tag).toBe("Acquired")
      expect(JSON.parse(fs.readFileSync(file, "utf8")).pid).toBe(process.pid)
      if (taken._tag === "Acquired") taken.release()
      expect(fs.existsSync(file)).toBe(false)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("a lock of another host or boot (another container on the volume, another NFS client) is held while its heartbeat is fresh, whatever its pid, and stale after three missed heartbeats", () => {
    const dir = tempDir()
    const file = path.join(dir, LOCK_FILE_NAME)
    const here = thisHolder()
    try {
      // another container: pid 1 like ours may be, a dead pid here, another host name; the same boot
      for (const pid of [process.pid, deadPid()]) {
        fs.writeFileSync(file, JSON.stringify({ ...here, pid, hostname: "other-container", startedAt: "2026-01-01T00:00:00Z" }))
        const held = acquireStorageLock(dir)
        expect(held._tag, `pid ${pid}`).toBe("Held")
        if (held._tag === "Held") expect(held.holder).toMatchObject({ pid, hostname: "other-container" })
      }
      // this host name after a reboot: another boot id
      fs.writeFileSync(file, JSON.stringify({ ...here, pid: deadPid(), bootId: "another-boot" }))
      expect(acquireStorageLock(dir)._tag).toBe("Held")
      // its heartbeat stopped three intervals ago
      const old = new Date(Date.now() - HEARTBEAT_STALE_MS - 1000)
      fs.utimesSync(file, old, old)
      const taken = acquireStorageLock(dir)
      expect(taken._tag).toBe("Acquired")
      expect(JSON.parse(fs.readFileSync(file, "utf8"))).toMatchObject({ pid: process.pid, hostname: os.hostname(), bootId: here.bootId })
      if (taken._tag === "Acquired") taken.release()
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it.scopedLive("the heartbeat touches the lock files the daemon holds, and writes again one that went away with its folder", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      const taken = acquireStorageLock(dir)
      expect(taken._tag).toBe("Acquired")
      if (taken._tag !== "Acquired") return
      yield* Effect.addFinalizer(() => Effect.sync(taken.release))
      const file = path.join(dir, LOCK_FILE_NAME)
      const long = new Date(Date.now() - 3_600_000)
      fs.utimesSync(file, long, long)
      const content = fs.readFileSync(file, "utf8")
      yield* Effect.gen(function*() {
        yield* waitUntil(() => Date.now() - fs.statSync(file).mtimeMs < 5_000, "a fresh heartbeat")
        fs.rmSync(file)
        yield* waitUntil(() => fs.existsSync(file), "the lock written again")
        expect(fs.readFileSync(file, "utf8")).toBe(content)
      }).pipe(Effect.provide(lockHeartbeat("100 millis").pipe(Layer.provide(Layer.succeed(HeldLocks, { storage: taken, watch: null })))))
    }))

  it.scopedLive("a daemon refused by another host's live lock names that host and pid in one sentence, exit code 1", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      const storage = path.join(dir, "storage")
      fs.mkdirSync(storage)
      fs.writeFileSync(path.join(storage, LOCK_FILE_NAME), JSON.stringify({ pid: 1, hostname: "nas-2", bootId: "b", startedAt: "2026-01-01T00:00:00Z" }))
      const run = yield* runDaemonToExit({ STORAGE_DIR: storage, WATCH_DIR: path.join(dir, "watch"), SERVICE_API_KEY: generateApiKey(), PORT: String(yield* freePort), HOST: "127.0.0.1" })
      expect(run.code).toBe(1)
      expect(run.stderr.trim().split("\n")).toHaveLength(1)
      expect(run.stderr).toContain("another Waymark daemon (pid 1 on nas-2, started 2026-01-01T00:00:00Z) already uses the storage folder")
    }), 60_000)

  // one first daemon for both: refused beside, then killed and not reaped (a daemon start less)
  it.scopedLive("a second daemon on the same storage folder refuses to start, naming the first one's pid, exit code 1; the first, killed with kill -9 and not yet reaped, leaves a lock the next start takes over at once; a stop does not wait on a client's open connection", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      const key = generateApiKey()
      const env = { STORAGE_DIR: path.join(dir, "storage"), WATCH_DIR: path.join(dir, "watch"), SERVICE_API_KEY: key, TZ: "UTC" }
      const port = yield* freePort
      const first = yield* underNonReapingParent([process.execPath, programFile("main")], { ...env, PORT: String(port), HOST: "127.0.0.1" })
      const firstStatus = Effect.promise(() =>
        fetch(`http://127.0.0.1:${port}/api/v1/status`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status, () => 0))
      const lockFile = path.join(dir, "storage", LOCK_FILE_NAME)
      yield* waitUntil(() => fs.existsSync(lockFile) && JSON.parse(fs.readFileSync(lockFile, "utf8")).pid === first.pid, "the first daemon's lock")
      const second = yield* runDaemonToExit({ ...env, WATCH_DIR: path.join(dir, "watch2"), PORT: String(yield* freePort), HOST: "127.0.0.1" })
      expect(second.code).toBe(1)
      expect(second.stderr).toContain(`another Waymark daemon (pid ${first.pid}`)
      expect(second.stderr).toContain("STORAGE_DIR")
      expect(second.stderr.trim().split("\n")).toHaveLength(1)
      // the first one goes on
      for (const deadline = Date.now() + 120_000; (yield* firstStatus) !== 200;) {
        if (Date.now() > deadline) return yield* Effect.dieMessage("the first daemon never answered 200")
        yield* Effect.sleep("50 millis")
      }

      // killed without a chance to clean up, and not yet reaped (a zombie): its lock is stale and the next start takes it over at once
      process.kill(first.pid, "SIGKILL")
      yield* waitUntil(() => procState(first.pid) === "Z", "the killed daemon to be a zombie")
      expect(fs.existsSync(lockFile)).toBe(true)
      const third = yield* startChildDaemon({ apiKey: key, env })
      expect((yield* third.get("/api/v1/status")).status).toBe(200)
      expect(JSON.parse(fs.readFileSync(lockFile, "utf8")).pid).toBe(third.pid)
      // a clean stop releases the lock, and says so in the daemon log: a stop is not a crash; it
      // does not wait on clients that hold a connection without a whole request (half a head, nothing)
      const halfHead = yield* connectedSocket(third.port)
      halfHead.write("GET /api/v1/status HTTP/1.1\r\nHost: waymark\r\n")
      yield* connectedSocket(third.port)
      const exit = yield* third.kill("SIGTERM")
      expect(exit.code).toBe(0)
      expect(fs.existsSync(lockFile)).toBe(false)
      const logs = path.join(dir, "storage", "files", "logs")
      const daemonLog = fs.readdirSync(logs).filter((n) => n.startsWith("daemon-")).map((n) => fs.readFileSync(path.join(logs, n), "utf8")).join("")
      const messages = daemonLog.trim().split("\n").map((l) => JSON.parse(l) as { level: string; message: string })
      expect(messages.filter((m) => /^waymark v\S+ started/.test(m.message))).toHaveLength(2)
      const last = messages[messages.length - 1]!
      expect(last.level).toBe("INFO")
      expect(last.message).toMatch(/^waymark v\S+ stopped cleanly on SIGTERM after \d+ s$/)
      expect(third.output()).toContain("stopped cleanly on SIGTERM")
    }), 120_000)
})
