import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import * as zlib from "node:zlib"
import { startChildDaemon } from "../support/ChildDaemon.ts"
import { freePort } from "../support/freePort.ts"
import { readChannel, send, TestDaemon } from "../support/TestDaemon.ts"
import {
  daemonLayer, dayStart, dropFile, fitActivity, freshDaemon, gpxActivity, importRows, listFiles, scopedRoot, tcxActivity, waitFor, waitForRow
} from "../support/ImportHarness.ts"
import { zipOf } from "../support/zipOf.ts"
import { ImportQueue } from "../../src/services/import/ImportQueue.ts"
import { compressRegularFile, copyRegularFile, OriginalsDisk } from "../../src/services/import/OriginalsDisk.ts"
import { WATCH_LOCK_FILE_NAME } from "../../src/services/platform/StorageLock.ts"
import { runDaemonToExit } from "../runtime/runDaemon.ts"
import { keptBytes } from "../support/keptBytes.ts"

/**
 * The watch folder as people feed it, through the real daemon over a real folder: slow copies,
 * links, pipes, folders of rides, a folder that goes away, a second daemon.
 */

const SETTLE = "800ms"

/** Rows of `filename` until `count` of them are there. */
const rowsOf = (filename: string, count: number) =>
  waitFor(`${count} import rows of ${filename}`, Effect.map(importRows(filename), (rows) => (rows.length >= count ? rows : undefined)))

/** Waits until the import worker has handled every file offered to it (held or removed, its row written). */
const allHandled = waitFor("the worker to handle every file offered", Effect.map(Effect.flatMap(ImportQueue, (queue) => queue.size), (n) => (n === 0 ? true : undefined)))

const queuedNames = Effect.map(send("GET", "/api/v1/file-imports?filters[status]=queued&pagination[size]=100"), (a) =>
  (a.json.fileImports as Array<{ filename: string }>).map((f) => f.filename))

describe("watch folder: files still being written", () => {
  layer(freshDaemon({ WATCH_SETTLE: SETTLE }), { excludeTestServices: true })((it) => {
    it.effect("a file copied slowly (bytes appended over several seconds) is imported whole: success, the complete original kept", () =>
      Effect.gen(function*() {
        const { originalsDir, watchDir } = yield* TestDaemon
        const bytes = Buffer.from(fitActivity({ start: dayStart(1), seconds: 3600 }))
        const file = path.join(watchDir, "slow-copy.fit")
        const fd = fs.openSync(file, "w")
        const pieces = 12
        const piece = Math.ceil(bytes.length / pieces)
        // 12 pieces 400 ms apart: about 5 s, each pause shorter than the settle time
        for (let i = 0; i < pieces; i++) {
          fs.writeSync(fd, bytes, i * piece, Math.min(piece, bytes.length - i * piece))
          yield* Effect.sleep("400 millis")
          expect(yield* importRows("slow-copy.fit"), `after piece ${i + 1}`).toEqual([])
        }
        fs.closeSync(fd)
        const row = yield* waitForRow("slow-copy.fit")
        expect(row.status).toBe("success")
        expect(keptBytes(originalsDir, row)).toEqual(bytes)
        expect(fs.existsSync(file)).toBe(false)
        expect(yield* importRows("slow-copy.fit")).toHaveLength(1)
      }), 60_000)

    it.effect("a copy that pauses longer than the settle time fails as truncated, stays in the folder, and is imported from its whole content once it grows", () =>
      Effect.gen(function*() {
        const { originalsDir, watchDir } = yield* TestDaemon
        const text = gpxActivity({ start: dayStart(2), seconds: 1800 })
        const file = path.join(watchDir, "paused-copy.gpx")
        const half = Math.floor(text.length / 2)
        fs.writeFileSync(file, text.slice(0, half))
        const [first] = yield* rowsOf("paused-copy.gpx", 1)
        expect(first!.status).toBe("failed")
        expect(keptBytes(originalsDir, first!).toString("utf8")).toBe(text.slice(0, half))
        // the half-written file was not taken away from its writer
        expect(fs.existsSync(file)).toBe(true)
        fs.appendFileSync(file, text.slice(half))
        const rows = yield* rowsOf("paused-copy.gpx", 2)
        expect(rows[1]!.status).toBe("success")
        expect(keptBytes(originalsDir, rows[1]!).toString("utf8")).toBe(text)
        yield* waitFor("the file to leave the watch folder", Effect.sync(() => (fs.existsSync(file) ? undefined : true)))
      }), 60_000)

    it.effect("files of a subfolder are listed as queued while they settle, then imported; the emptied subfolder is removed", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        fs.mkdirSync(path.join(watchDir, "2023-rides"))
        fs.writeFileSync(path.join(watchDir, "2023-rides", "a.tcx"), tcxActivity({ start: dayStart(3), seconds: 900 }))
        expect(yield* queuedNames).toContain("2023-rides/a.tcx")
        expect((yield* waitForRow("2023-rides/a.tcx")).status).toBe("success")
        yield* waitFor("the subfolder removed", Effect.sync(() => (fs.existsSync(path.join(watchDir, "2023-rides")) ? undefined : true)))
        expect(yield* queuedNames).toEqual([])
      }))

    it.effect("a subfolder emptied by the import stays while a slow copy (cp -r) may still write into it, and goes once it stayed empty", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        const folder = path.join(watchDir, "slow-copy")
        fs.mkdirSync(folder)
        fs.writeFileSync(path.join(folder, "a.tcx"), tcxActivity({ start: dayStart(20), seconds: 900 }))
        expect((yield* waitForRow("slow-copy/a.tcx")).status).toBe("success")
        yield* waitFor("a.tcx out of the folder", Effect.sync(() => (fs.existsSync(path.join(folder, "a.tcx")) ? undefined : true)))
        // the copy writes its next file into the folder it made 2.4 s later: three settle times, less than four
        yield* Effect.sleep("2400 millis")
        expect(fs.existsSync(folder)).toBe(true)
        fs.writeFileSync(path.join(folder, "b.tcx"), tcxActivity({ start: dayStart(21), seconds: 900 }))
        expect((yield* waitForRow("slow-copy/b.tcx")).status).toBe("success")
        yield* waitFor("the subfolder removed", Effect.sync(() => (fs.existsSync(folder) ? undefined : true)))
      }))

    it.effect("a zip still being copied fails as cut short, stays in the folder, and is unpacked once whole; no file leaves before", () =>
      Effect.gen(function*() {
        const { originalsDir, watchDir } = yield* TestDaemon
        const zip = zipOf([
          { name: "p1.gpx", data: gpxActivity({ start: dayStart(22), seconds: 1800 }) },
          { name: "p2.fit.gz", data: zlib.gzipSync(fitActivity({ start: dayStart(23), seconds: 1800 })) }
        ])
        const file = path.join(watchDir, "copying.zip")
        const half = Math.floor(zip.length / 2)
        fs.writeFileSync(file, zip.subarray(0, half))
        const [first] = yield* rowsOf("copying.zip", 1)
        expect(first).toMatchObject({ status: "failed" })
        expect(keptBytes(originalsDir, first!)).toEqual(zip.subarray(0, half))
        // held: not taken away from its writer
        yield* allHandled
        expect(fs.existsSync(file)).toBe(true)
        fs.appendFileSync(file, zip.subarray(half))
        expect((yield* waitForRow("p1.gpx")).status).toBe("success")
        expect((yield* waitForRow("p2.fit.gz")).status).toBe("success")
        yield* waitFor("the zip out of the folder", Effect.sync(() => (fs.existsSync(file) ? undefined : true)))
        expect(yield* importRows("copying.zip")).toHaveLength(1)
      }), 60_000)
  })
})

describe("watch folder: a file that changes while it is read", () => {
  const text = gpxActivity({ start: dayStart(30), seconds: 1800 })
  const half = Math.floor(text.length / 2)
  let grown = false
  const growOnce = (from: string) => {
    if (!grown && path.basename(from) === "written-on.gpx") {
      grown = true
      fs.appendFileSync(from, text.slice(half))
    }
  }
  /** The disk under the originals: while the first copy of the file is made (kept compressed, as the half fails), its writer adds the rest. */
  const growingWhileCopied = {
    async compressFile(from: string, to: string) {
      await compressRegularFile(from, to)
      growOnce(from)
    },
    copyFile(from: string, to: string) {
      copyRegularFile(from, to)
      growOnce(from)
    }
  }

  layer(freshDaemon({ WATCH_SETTLE: "300ms" }).pipe(Layer.provide(Layer.succeed(OriginalsDisk, growingWhileCopied))), { excludeTestServices: true })((it) => {
    it.effect("is read again once it holds still: one row, from its whole content, the original the complete file", () =>
      Effect.gen(function*() {
        const { originalsDir, watchDir } = yield* TestDaemon
        dropFile(watchDir, "written-on.gpx", text.slice(0, half))
        const row = yield* waitForRow("written-on.gpx")
        expect(grown).toBe(true)
        expect(row.status).toBe("success")
        expect(keptBytes(originalsDir, row).toString("utf8")).toBe(text)
        yield* waitFor("the file to leave the watch folder", Effect.sync(() => (fs.existsSync(path.join(watchDir, "written-on.gpx")) ? undefined : true)))
        yield* allHandled
        expect(yield* importRows("written-on.gpx")).toHaveLength(1)
        expect(listFiles(watchDir).filter((f) => !f.startsWith("."))).toEqual([])
      }))
  })
})

describe("watch folder: what is not a regular file", () => {
  layer(freshDaemon({ WATCH_SETTLE: SETTLE, LOG_LEVEL: "info" }), { excludeTestServices: true })((it) => {
    it.effect("a link to a file outside the folder is never followed: one failed row saying why, the link left in place, not reported again", () =>
      Effect.gen(function*() {
        const { originalsDir, storageDir, watchDir } = yield* TestDaemon
        // a valid activity outside the folder: following the link would import it
        const outside = path.join(path.dirname(storageDir), "outside.gpx")
        fs.writeFileSync(outside, gpxActivity({ start: dayStart(4), seconds: 900 }))
        fs.symlinkSync(outside, path.join(watchDir, "link.gpx"))
        const row = yield* waitForRow("link.gpx")
        expect(row).toMatchObject({ status: "failed", original_file: null, activity_id: null })
        expect(row.error_message).toBe('"link.gpx": a symbolic link is not imported: copy the file itself into the watch folder.')
        expect(fs.lstatSync(path.join(watchDir, "link.gpx")).isSymbolicLink()).toBe(true)
        expect(fs.readdirSync(originalsDir)).toEqual([])
        // offered again (as the rescan does every minute): no second row
        yield* (yield* ImportQueue).offer("link.gpx")
        dropFile(watchDir, "after-link.tcx", tcxActivity({ start: dayStart(5), seconds: 900 }))
        yield* waitForRow("after-link.tcx")
        expect(yield* importRows("link.gpx")).toHaveLength(1)
      }))

    it.effect("a FIFO is never opened: one failed row saying why, left in place, and the imports go on", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        const fifo = path.join(watchDir, "pipe.fit")
        expect(spawnSync("mkfifo", [fifo]).status).toBe(0)
        const row = yield* waitForRow("pipe.fit")
        expect(row).toMatchObject({ status: "failed", original_file: null })
        expect(row.error_message).toBe('"pipe.fit": a named pipe (FIFO) is not imported: copy a regular file into the watch folder.')
        expect(fs.lstatSync(fifo).isFIFO()).toBe(true)
        dropFile(watchDir, "after-pipe.fit", fitActivity({ start: dayStart(6), seconds: 900 }))
        expect((yield* waitForRow("after-pipe.fit")).status).toBe("success")
        expect(yield* importRows("pipe.fit")).toHaveLength(1)
      }))

    it.scoped("a pipe, a socket and a link to a folder get one failed row each whatever their name, never followed nor opened, left in place", () =>
      Effect.gen(function*() {
        const { storageDir, watchDir } = yield* TestDaemon
        expect(spawnSync("mkfifo", [path.join(watchDir, "pipe")]).status).toBe(0)
        const server = net.createServer()
        yield* Effect.async<void>((resume) => void server.listen(path.join(watchDir, "x.sock"), () => resume(Effect.void)))
        yield* Effect.addFinalizer(() => Effect.sync(() => server.close()))
        // a folder of rides outside: following the link would import them
        const outside = path.join(path.dirname(storageDir), "rides-elsewhere")
        fs.mkdirSync(outside)
        fs.writeFileSync(path.join(outside, "far.gpx"), gpxActivity({ start: dayStart(24), seconds: 900 }))
        fs.symlinkSync(outside, path.join(watchDir, "rides-link"))
        const reasons = {
          pipe: '"pipe": a named pipe (FIFO) is not imported: copy a regular file into the watch folder.',
          "x.sock": '"x.sock": a socket is not imported: copy a regular file into the watch folder.',
          "rides-link": '"rides-link": a symbolic link is not imported: copy the file itself into the watch folder.'
        }
        for (const [name, reason] of Object.entries(reasons)) {
          const row = yield* waitForRow(name)
          expect(row, name).toMatchObject({ status: "failed", error_message: reason, original_file: null })
          const listed = (yield* send("GET", `/api/v1/file-imports?filters[filename]=${name}`)).json.fileImports
          expect(listed[0].source).toBe("otherFile")
        }
        // offered again (the rescan every minute): no second row
        for (const name of Object.keys(reasons)) yield* (yield* ImportQueue).offer(name)
        dropFile(watchDir, "after-others.gpx", gpxActivity({ start: dayStart(25), seconds: 900 }))
        yield* waitForRow("after-others.gpx")
        for (const name of Object.keys(reasons)) expect(yield* importRows(name), name).toHaveLength(1)
        expect(fs.lstatSync(path.join(watchDir, "pipe")).isFIFO()).toBe(true)
        expect(fs.lstatSync(path.join(watchDir, "x.sock")).isSocket()).toBe(true)
        expect(fs.lstatSync(path.join(watchDir, "rides-link")).isSymbolicLink()).toBe(true)
        expect(yield* importRows("rides-link/far.gpx")).toEqual([])
        expect(yield* importRows("far.gpx")).toEqual([])
      }))

    it.effect("a file of a type that is not imported (.jpg) is named once at warning level in the daemon log with the supported types, and not again", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        const mentions = Effect.map(readChannel("daemon"), (lines) => lines.filter((l) => l.message.includes('"holiday.jpg"')))
        fs.writeFileSync(path.join(watchDir, "holiday.jpg"), "jpeg bytes")
        const [line] = yield* waitFor("the warning", Effect.map(mentions, (lines) => (lines.length > 0 ? lines : undefined)))
        expect(line!.level).toBe("WARN")
        expect(line!.message).toBe(
          '"holiday.jpg" in the watch folder is not imported: only .fit, .tcx, .gpx, .kml, .kmz (also gzipped, .fit.gz, .tcx.gz, .gpx.gz, .kml.gz, .kmz.gz) and .zip archives of them are. It is left where it is.'
        )
        // seen again: changed, touched; then a file imported, whose events came after those
        fs.appendFileSync(path.join(watchDir, "holiday.jpg"), "more")
        fs.utimesSync(path.join(watchDir, "holiday.jpg"), new Date(), new Date())
        dropFile(watchDir, "after-jpg.gpx", gpxActivity({ start: dayStart(26), seconds: 900 }))
        yield* waitForRow("after-jpg.gpx")
        expect(yield* mentions).toHaveLength(1)
        expect(fs.existsSync(path.join(watchDir, "holiday.jpg"))).toBe(true)
        expect(yield* importRows("holiday.jpg")).toEqual([])
      }))
  })
})

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
      }), 60_000)

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
      }), 60_000)
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
      }), 90_000)
  })

  describe("one daemon per watch folder", () => {
    {
      /** Another daemon, with a storage of its own, started on the same watch folder and run until it exits. */
      const secondDaemonOn = (root: { readonly root: string; readonly env: Readonly<Record<string, string>> }) =>
        Effect.flatMap(freePort, (port) =>
          runDaemonToExit({ ...root.env, STORAGE_DIR: path.join(root.root, "other-storage"), PORT: String(port), HOST: "127.0.0.1" }))

      it.scopedLive("a second daemon on a watch folder already watched refuses to start with one sentence naming the first; the first goes on", () =>
        Effect.gen(function*() {
          const root = yield* scopedRoot()
          const first = yield* startChildDaemon({ apiKey: root.apiKey, env: root.env })
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
            a.json.fileImports?.[0]?.status === "success" ? true : undefined), { timeout: "30 seconds" })
          const all = (yield* first.get("/api/v1/file-imports")).json.fileImports as Array<{ filename: string }>
          expect(all.map((f) => f.filename)).toEqual(["beside-the-lock.gpx"])
          const exit = yield* first.kill("SIGTERM")
          expect(exit.code).toBe(0)
          expect(fs.existsSync(path.join(root.watchDir, WATCH_LOCK_FILE_NAME))).toBe(false)
        }), 120_000)

      it.scopedLive("a watch folder removed and made again gets its .uploads and the daemon's lock again: a second daemon is still refused", () =>
        Effect.gen(function*() {
          const root = yield* scopedRoot({ WATCH_SETTLE: "200ms", LOG_LEVEL: "info" })
          const first = yield* startChildDaemon({ apiKey: root.apiKey, env: root.env })
          const lockFile = path.join(root.watchDir, WATCH_LOCK_FILE_NAME)
          const daemonLog = () => {
            const logs = path.join(root.storageDir, "files", "logs")
            return fs.readdirSync(logs).filter((n) => n.startsWith("daemon-")).flatMap((n) =>
              fs.readFileSync(path.join(logs, n), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { level: string; message: string })
            )
          }
          fs.rmSync(root.watchDir, { recursive: true, force: true })
          yield* waitFor("the missing folder said", Effect.sync(() => daemonLog().find((l) => l.message.includes("does not exist"))), { timeout: "30 seconds" })
          fs.mkdirSync(root.watchDir)
          yield* waitFor("the folder back", Effect.sync(() => daemonLog().find((l) => l.message.endsWith("is back: watching it again"))), { timeout: "30 seconds" })
          expect(fs.statSync(path.join(root.watchDir, ".uploads")).isDirectory()).toBe(true)
          expect(JSON.parse(fs.readFileSync(lockFile, "utf8")).pid).toBe(first.pid)
          const second = yield* secondDaemonOn(root)
          expect(second.code).toBe(1)
          expect(second.stderr).toContain(`another Waymark daemon (pid ${first.pid}`)
          dropFile(root.watchDir, "after-return.gpx", gpxActivity({ start: dayStart(32), seconds: 900 }))
          yield* waitFor("the import", Effect.map(first.get("/api/v1/file-imports?filters[filename]=after-return.gpx"), (a) =>
            a.json.fileImports?.[0]?.status === "success" ? true : undefined), { timeout: "30 seconds" })
        }), 120_000)
    }
  })
})
