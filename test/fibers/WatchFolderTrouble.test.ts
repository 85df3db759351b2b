import { describe, expect, it, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { type ChildDaemon, startChildDaemon } from "../support/ChildDaemon.ts"
import { freePort } from "../support/freePort.ts"
import { readChannel, send, TestDaemon } from "../support/TestDaemon.ts"
import { daemonLayer, dayStart, dropFile, freshDaemon, gpxActivity, importRows, scopedRoot, waitFor, waitForRow } from "../support/ImportHarness.ts"
import { WATCH_LOCK_FILE_NAME } from "../../src/services/platform/StorageLock.ts"
import { runDaemonToExit } from "../runtime/runDaemon.ts"

/**
 * The watch folder's troubles, through the real daemon over a real folder: a folder that goes
 * away, is replaced or unmounted, and a second daemon on it. Apart from the files fed to the
 * folder (WatchFolderImports.test.ts), so that the two run side by side.
 */

describe("watch folder: trouble is said", () => {
  layer(freshDaemon({ WATCH_SETTLE: "200ms", LOG_LEVEL: "info" }), { excludeTestServices: true })((it) => {
    it.effect("a watch folder that goes away is logged at error level in the daemon channel, /healthz reports it, and its return is logged at error level too and watched again", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        const daemonLines = readChannel("daemon")
        const moved = `${watchDir}-away`
        fs.renameSync(watchDir, moved)
        const gone = yield* waitFor("the error line", Effect.map(daemonLines, (lines) => lines.find((l) => l.message.includes("does not exist"))))
        expect(gone.level).toBe("ERROR")
        expect(gone.message).toBe(`the watch folder ${watchDir} does not exist: nothing is imported from it until it is back`)
        // the checks' next evaluation sees it (a probe may be answered the one before, when its own is late)
        yield* waitFor("/healthz 503", Effect.map(send("GET", "/healthz", { key: null }), (a) => (a.status === 503 ? true : undefined)))
        // replaced by a file: said too
        fs.writeFileSync(watchDir, "not a folder")
        yield* waitFor("the not-a-folder line", Effect.map(daemonLines, (lines) => lines.find((l) => l.message.includes("is not a folder"))))
        fs.rmSync(watchDir)
        fs.renameSync(moved, watchDir)
        const back = yield* waitFor("the recovery line", Effect.map(daemonLines, (lines) => lines.find((l) => l.message === `the watch folder ${watchDir} is back: watching it again`)))
        expect(back.level).toBe("ERROR")
        dropFile(watchDir, "after-return.gpx", gpxActivity({ start: dayStart(7), seconds: 900 }))
        expect((yield* waitForRow("after-return.gpx")).status).toBe("success")
        expect((yield* daemonLines).filter((l) => l.message.includes("does not exist"))).toHaveLength(1)
      }), 120_000)

    it.effect("a watch folder replaced by another (a new folder renamed into place) is logged at error level and the new one is watched, with its .uploads", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        const daemonLines = readChannel("daemon")
        const replacement = `${watchDir}-replacement`
        fs.mkdirSync(replacement)
        fs.renameSync(watchDir, `${watchDir}-replaced`)
        fs.renameSync(replacement, watchDir)
        const replaced = yield* waitFor("the replaced line", Effect.map(daemonLines, (lines) => lines.find((l) => l.message.includes("was replaced by another folder"))))
        expect(replaced.level).toBe("ERROR")
        expect(replaced.message).toMatch(new RegExp(`^the watch folder ${watchDir} was replaced by another folder \\(device \\d+, inode \\d+\\): watching the new one$`))
        expect(fs.existsSync(path.join(watchDir, ".uploads"))).toBe(true)
        dropFile(watchDir, "in-the-new-folder.gpx", gpxActivity({ start: dayStart(27), seconds: 900 }))
        expect((yield* waitForRow("in-the-new-folder.gpx")).status).toBe("success")
        yield* waitFor("/healthz 200", Effect.map(send("GET", "/healthz", { key: null }), (a) => (a.status === 200 ? true : undefined)))
      }), 120_000)
  })

  describe("an unmounted watch folder", () => {
    // a folder of another file system (tmpfs) bind-mounted over the watch folder: a mount point
    const bindMount = (source: string, target: string) => spawnSync("mount", ["--bind", source, target], { encoding: "utf8" })
    const probeMount = (() => {
      const dir = fs.mkdtempSync("/tmp/waymark-mount-probe-")
      const shm = fs.existsSync("/dev/shm") ? fs.mkdtempSync("/dev/shm/waymark-mount-probe-") : null
      try {
        if (shm === null) return "there is no /dev/shm to bind-mount from"
        const mounted = bindMount(shm, dir)
        if (mounted.status !== 0) return `mount --bind does not work here (${(mounted.stderr || mounted.error?.message || "").trim()})`
        const differs = fs.statSync(dir).dev !== fs.statSync("/tmp").dev
        spawnSync("umount", [dir])
        return differs ? null : "a bind mount from /dev/shm does not show another device here"
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
        if (shm !== null) fs.rmSync(shm, { recursive: true, force: true })
      }
    })()
    if (probeMount !== null) console.warn(`skipping the unmounted watch folder test: ${probeMount}`)

    it.scopedLive.skipIf(probeMount !== null)("a watch folder that was a mount point at start and is unmounted is logged at error level, /healthz 503 and nothing imported from the folder beneath, until it is mounted again", () =>
      Effect.gen(function*() {
        const root = yield* scopedRoot({ WATCH_SETTLE: "200ms", LOG_LEVEL: "info" })
        const source = fs.mkdtempSync("/dev/shm/waymark-watch-")
        expect(bindMount(source, root.watchDir).status).toBe(0)
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            spawnSync("umount", ["-l", root.watchDir])
            fs.rmSync(source, { recursive: true, force: true })
          })
        )
        yield* Effect.gen(function*() {
          const daemonLines = readChannel("daemon")
          dropFile(root.watchDir, "mounted.gpx", gpxActivity({ start: dayStart(28), seconds: 900 }))
          expect((yield* waitForRow("mounted.gpx")).status).toBe("success")
          expect(spawnSync("umount", [root.watchDir]).status).toBe(0)
          const unmounted = yield* waitFor("the unmounted line", Effect.map(daemonLines, (lines) => lines.find((l) => l.message.includes("is no longer mounted"))))
          expect(unmounted.level).toBe("ERROR")
          expect(unmounted.message).toBe(
            `the watch folder ${root.watchDir} is no longer mounted (what is there is the folder beneath, on the parent's file system): nothing is imported from it until it is back`
          )
          const health = yield* send("GET", "/healthz", { key: null })
          expect(health.status).toBe(503)
          expect(health.json.checks.watchFolder).toEqual({ ok: false, error: "Error: the watch folder is no longer mounted (what is there is the folder beneath, on the parent's file system)" })
          // what lands in the folder beneath is not taken
          dropFile(root.watchDir, "beneath.gpx", gpxActivity({ start: dayStart(29), seconds: 900 }))
          yield* Effect.sleep("2 seconds")
          expect(yield* importRows("beneath.gpx")).toEqual([])
          expect(bindMount(source, root.watchDir).status).toBe(0)
          const back = yield* waitFor("the back line", Effect.map(daemonLines, (lines) => lines.find((l) => l.message === `the watch folder ${root.watchDir} is back: watching it again`)))
          expect(back.level).toBe("ERROR")
          yield* waitFor("/healthz 200", Effect.map(send("GET", "/healthz", { key: null }), (a) => (a.status === 200 ? true : undefined)))
          dropFile(root.watchDir, "remounted.gpx", gpxActivity({ start: dayStart(31), seconds: 900 }))
          expect((yield* waitForRow("remounted.gpx")).status).toBe("success")
          expect((yield* daemonLines).filter((l) => l.message.includes("is no longer mounted"))).toHaveLength(1)
        }).pipe(Effect.provide(daemonLayer(root)))
      }), 120_000)
  })

  describe("one daemon per watch folder", () => {
    /** The first daemon, a process of its own on a watch folder, shared by the tests below (one start instead of two). */
    class FirstDaemon extends Context.Tag("test/WatchFolderTroubleFirstDaemon")<FirstDaemon, {
      readonly root: Effect.Effect.Success<ReturnType<typeof scopedRoot>>
      readonly first: ChildDaemon
    }>() {}
    const FirstDaemonLive = Layer.scoped(FirstDaemon, Effect.gen(function*() {
      const root = yield* scopedRoot({ WATCH_SETTLE: "200ms", LOG_LEVEL: "info" })
      const first = yield* startChildDaemon({ apiKey: root.apiKey, env: root.env })
      return { root, first }
    }))

    /** Another daemon, with a storage of its own, started on the same watch folder and run until it exits. */
    const secondDaemonOn = (root: { readonly root: string; readonly env: Readonly<Record<string, string>> }) =>
      Effect.flatMap(freePort, (port) =>
        runDaemonToExit({ ...root.env, STORAGE_DIR: path.join(root.root, "other-storage"), PORT: String(port), HOST: "127.0.0.1" }))

    layer(FirstDaemonLive, { excludeTestServices: true })((it) => {
      it.effect("a second daemon on a watch folder already watched refuses to start with one sentence naming the first; the first goes on", () =>
        Effect.gen(function*() {
          const { first, root } = yield* FirstDaemon
          expect(fs.existsSync(path.join(root.watchDir, WATCH_LOCK_FILE_NAME))).toBe(true)
          const second = yield* secondDaemonOn(root)
          expect(second.code).toBe(1)
          expect(second.stderr.trim().split("\n")).toHaveLength(1)
          expect(second.stderr).toContain(`another Waymark daemon (pid ${first.pid}`)
          expect(second.stderr).toContain(`already watches the folder ${root.watchDir}`)
          expect(second.stderr).toContain("WATCH_DIR")
          expect((yield* first.get("/api/v1/status")).status).toBe(200)
          // the lock is a dot-file: never an import
          dropFile(root.watchDir, "beside-the-lock.gpx", gpxActivity({ start: dayStart(8), seconds: 900 }))
          yield* waitFor("the import", Effect.map(first.get("/api/v1/file-imports?filters[filename]=beside-the-lock.gpx"), (a) =>
            a.json.fileImports?.[0]?.status === "success" ? true : undefined), { timeout: "90 seconds" })
          const all = (yield* first.get("/api/v1/file-imports")).json.fileImports as Array<{ filename: string }>
          expect(all.map((f) => f.filename)).toEqual(["beside-the-lock.gpx"])
        }), 120_000)

      it.effect("a watch folder removed and made again gets its .uploads and the daemon's lock again: a second daemon is still refused; a clean stop takes the lock away", () =>
        Effect.gen(function*() {
          const { first, root } = yield* FirstDaemon
          const lockFile = path.join(root.watchDir, WATCH_LOCK_FILE_NAME)
          const daemonLog = () => {
            const logs = path.join(root.storageDir, "files", "logs")
            return fs.readdirSync(logs).filter((n) => n.startsWith("daemon-")).flatMap((n) =>
              fs.readFileSync(path.join(logs, n), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { level: string; message: string })
            )
          }
          fs.rmSync(root.watchDir, { recursive: true, force: true })
          yield* waitFor("the missing folder said", Effect.sync(() => daemonLog().find((l) => l.message.includes("does not exist"))), { timeout: "90 seconds" })
          fs.mkdirSync(root.watchDir)
          yield* waitFor("the folder back", Effect.sync(() => daemonLog().find((l) => l.message.endsWith("is back: watching it again"))), { timeout: "90 seconds" })
          expect(fs.statSync(path.join(root.watchDir, ".uploads")).isDirectory()).toBe(true)
          expect(JSON.parse(fs.readFileSync(lockFile, "utf8")).pid).toBe(first.pid)
          // the second daemon's refusal and an import into the folder back, side by side
          dropFile(root.watchDir, "after-return.gpx", gpxActivity({ start: dayStart(32), seconds: 900 }))
          const [second] = yield* Effect.all([
            secondDaemonOn(root),
            waitFor("the import", Effect.map(first.get("/api/v1/file-imports?filters[filename]=after-return.gpx"), (a) =>
              a.json.fileImports?.[0]?.status === "success" ? true : undefined), { timeout: "90 seconds" })
          ], { concurrency: 2 })
          expect(second.code).toBe(1)
          expect(second.stderr).toContain(`another Waymark daemon (pid ${first.pid}`)
          const exit = yield* first.kill("SIGTERM")
          expect(exit.code).toBe(0)
          expect(fs.existsSync(lockFile)).toBe(false)
        }), 120_000)
    })
  })
})
