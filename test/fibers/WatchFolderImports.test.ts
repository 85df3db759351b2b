import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { startChildDaemon } from "../support/ChildDaemon.ts"
import { freePort } from "../support/freePort.ts"
import { readChannel, send, TestDaemon } from "../support/TestDaemon.ts"
import {
  dayStart, dropFile, fitActivity, freshDaemon, gpxActivity, importRows, scopedRoot, tcxActivity, waitFor, waitForRow
} from "../support/ImportHarness.ts"
import { ImportQueue } from "../../src/services/import/ImportQueue.ts"
import { WATCH_LOCK_FILE_NAME } from "../../src/services/platform/StorageLock.ts"
import { runDaemonToExit } from "../cli/runDaemon.ts"

/**
 * The watch folder as people feed it, through the real daemon over a real folder: slow copies,
 * links, pipes, folders of rides, a folder that goes away, a second daemon.
 */

const SETTLE = "800ms"

/** Rows of `filename` until `count` of them are there. */
const rowsOf = (filename: string, count: number) =>
  waitFor(`${count} import rows of ${filename}`, Effect.map(importRows(filename), (rows) => (rows.length >= count ? rows : undefined)))

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
        expect(fs.readFileSync(path.join(originalsDir, row.original_file!))).toEqual(bytes)
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
        expect(fs.readFileSync(path.join(originalsDir, first!.original_file!), "utf8")).toBe(text.slice(0, half))
        // the half-written file was not taken away from its writer
        expect(fs.existsSync(file)).toBe(true)
        fs.appendFileSync(file, text.slice(half))
        const rows = yield* rowsOf("paused-copy.gpx", 2)
        expect(rows[1]!.status).toBe("success")
        expect(fs.readFileSync(path.join(originalsDir, rows[1]!.original_file!), "utf8")).toBe(text)
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
  })
})

describe("watch folder: what is not a regular file", () => {
  layer(freshDaemon({ WATCH_SETTLE: SETTLE }), { excludeTestServices: true })((it) => {
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
  })
})

describe("watch folder: trouble is said", () => {
  layer(freshDaemon({ WATCH_SETTLE: "200ms", LOG_LEVEL: "info" }), { excludeTestServices: true })((it) => {
    it.effect("a watch folder that goes away is logged at error level in the daemon channel, /healthz reports it, and its return is logged and watched again", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        const daemonLines = readChannel("daemon")
        const moved = `${watchDir}-away`
        fs.renameSync(watchDir, moved)
        const gone = yield* waitFor("the error line", Effect.map(daemonLines, (lines) => lines.find((l) => l.message.includes("does not exist"))))
        expect(gone.level).toBe("ERROR")
        expect(gone.message).toBe(`the watch folder ${watchDir} does not exist: nothing is imported from it until it is back`)
        expect((yield* send("GET", "/healthz", { key: null })).status).toBe(503)
        // replaced by a file: said too
        fs.writeFileSync(watchDir, "not a folder")
        yield* waitFor("the not-a-folder line", Effect.map(daemonLines, (lines) => lines.find((l) => l.message.includes("is not a folder"))))
        fs.rmSync(watchDir)
        fs.renameSync(moved, watchDir)
        const back = yield* waitFor("the recovery line", Effect.map(daemonLines, (lines) => lines.find((l) => l.message === `the watch folder ${watchDir} is back: watching it again`)))
        expect(back.level).toBe("INFO")
        dropFile(watchDir, "after-return.gpx", gpxActivity({ start: dayStart(7), seconds: 900 }))
        expect((yield* waitForRow("after-return.gpx")).status).toBe("success")
        expect((yield* daemonLines).filter((l) => l.message.includes("does not exist"))).toHaveLength(1)
      }), 60_000)
  })

  describe("one daemon per watch folder", () => {
    {
      it.scopedLive("a second daemon on a watch folder already watched refuses to start with one sentence naming the first; the first goes on", () =>
        Effect.gen(function*() {
          const root = yield* scopedRoot()
          const first = yield* startChildDaemon({ apiKey: root.apiKey, env: root.env })
          expect(fs.existsSync(path.join(root.watchDir, WATCH_LOCK_FILE_NAME))).toBe(true)
          const second = yield* runDaemonToExit({
            ...root.env,
            STORAGE_DIR: path.join(root.root, "other-storage"),
            PORT: String(yield* freePort),
            HOST: "127.0.0.1"
          })
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
    }
  })
})
