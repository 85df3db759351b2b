import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import * as zlib from "node:zlib"
import { readChannel, send, TestDaemon } from "../support/TestDaemon.ts"
import {
  dayStart, dropFile, fitActivity, freshDaemon, gpxActivity, importRows, listFiles, tcxActivity, waitFor, waitForGone, waitForRow
} from "../support/ImportHarness.ts"
import { zipOf } from "../support/zipOf.ts"
import { ImportQueue } from "../../src/services/import/ImportQueue.ts"
import { compressRegularFile, copyRegularFile, OriginalsDisk } from "../../src/services/import/OriginalsDisk.ts"
import { keptBytes } from "../support/keptBytes.ts"

/**
 * The watch folder as people feed it, through the real daemon over a real folder: slow copies,
 * links, pipes, folders of rides. The folder's troubles (gone, replaced, unmounted, a second
 * daemon) are in WatchFolderTrouble.test.ts, which runs beside this file.
 */

const SETTLE_MS = 800
const SETTLE = `${SETTLE_MS}ms`

/**
 * Runs `attempt` until it answers a value, at most three times. An attempt answers undefined
 * when the machine's load stretched one of its own pauses past what it meant (a pause of the
 * test that the daemon could rightly take for the end of a copy): that run proves nothing either
 * way, so it is made again, with fresh names, rather than judged.
 */
const unlessLoadBrokeTiming = <A, E, R>(what: string, attempt: (n: number) => Effect.Effect<A | undefined, E, R>) =>
  Effect.gen(function*() {
    for (let n = 1; n <= 3; n++) {
      const value = yield* attempt(n)
      if (value !== undefined) return value
      console.warn(`${what}: attempt ${n} had a pause stretched by the machine's load, made again`)
    }
    return yield* Effect.dieMessage(`${what}: the machine's load stretched a pause in each of three attempts`)
  })

/** Rows of `filename` until `count` of them are there. */
const rowsOf = (filename: string, count: number) =>
  waitFor(`${count} import rows of ${filename}`, Effect.map(importRows(filename), (rows) => (rows.length >= count ? rows : undefined)))

/** Waits until the import worker has handled every file offered to it (held or removed, its row written). */
const allHandled = waitFor("the worker to handle every file offered", Effect.map(Effect.flatMap(ImportQueue, (queue) => queue.size), (n) => (n === 0 ? true : undefined)))

const queuedNames = Effect.map(send("GET", "/api/v1/file-imports?filters[status]=queued&pagination[size]=100"), (a) =>
  (a.json.fileImports as Array<{ filename: string }>).map((f) => f.filename))

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
        yield* waitForGone(path.join(watchDir, "written-on.gpx"))
        yield* allHandled
        expect(yield* importRows("written-on.gpx")).toHaveLength(1)
        expect(listFiles(watchDir).filter((f) => !f.startsWith("."))).toEqual([])
      }))
  })
})

describe("watch folder: the files people drop", () => {
  // one daemon for both sets: what is not a regular file is left in place with its row, which
  // the files still being written never look at
  layer(freshDaemon({ WATCH_SETTLE: SETTLE, LOG_LEVEL: "info" }), { excludeTestServices: true })((it) => {
    describe("files still being written", () => {
      it.effect("a file copied slowly (bytes appended over several seconds) is imported whole: success, the complete original kept", () =>
        unlessLoadBrokeTiming("the slow copy", (n) =>
          Effect.gen(function*() {
            const { originalsDir, watchDir } = yield* TestDaemon
            const bytes = Buffer.from(fitActivity({ start: dayStart(100 + n), seconds: 3600 }))
            const name = `slow-copy-${n}.fit`
            const file = path.join(watchDir, name)
            const fd = fs.openSync(file, "w")
            const pieces = 12
            const piece = Math.ceil(bytes.length / pieces)
            // 12 pieces 400 ms apart: about 5 s, each pause shorter than the settle time (checked:
            // a pause the load made as long as the settle time would let the daemon rightly read a
            // part, and the attempt is made again)
            let wroteAt = Date.now()
            let stretched = false
            for (let i = 0; i < pieces; i++) {
              if (Date.now() - wroteAt >= SETTLE_MS) stretched = true
              fs.writeSync(fd, bytes, i * piece, Math.min(piece, bytes.length - i * piece))
              wroteAt = Date.now()
              yield* Effect.sleep("400 millis")
              if (!stretched && Date.now() - wroteAt < SETTLE_MS) expect(yield* importRows(name), `after piece ${i + 1}`).toEqual([])
            }
            fs.closeSync(fd)
            if (stretched) {
              // whatever the daemon made of the part, the whole file ends imported and out of the folder
              yield* waitFor("the stretched copy imported", Effect.map(importRows(name), (rows) => (rows.some((r) => r.status === "success") ? true : undefined)))
              yield* waitForGone(file)
              return undefined
            }
            const row = yield* waitForRow(name)
            expect(row.status).toBe("success")
            expect(keptBytes(originalsDir, row)).toEqual(bytes)
            yield* waitForGone(file)
            expect(yield* importRows(name)).toHaveLength(1)
            return true
          })), 90_000)

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
          yield* waitForGone(file)
        }), 60_000)

      it.effect("files of a subfolder are listed as queued while they settle, then imported; the emptied subfolder is removed", () =>
        Effect.gen(function*() {
          const { watchDir } = yield* TestDaemon
          fs.mkdirSync(path.join(watchDir, "2023-rides"))
          fs.writeFileSync(path.join(watchDir, "2023-rides", "a.tcx"), tcxActivity({ start: dayStart(3), seconds: 900 }))
          expect(yield* queuedNames).toContain("2023-rides/a.tcx")
          expect((yield* waitForRow("2023-rides/a.tcx")).status).toBe("success")
          yield* waitForGone(path.join(watchDir, "2023-rides"))
          expect(yield* queuedNames).toEqual([])
        }))

      it.effect("a subfolder emptied by the import stays while a slow copy (cp -r) may still write into it, and goes once it stayed empty", () =>
        unlessLoadBrokeTiming("the emptied subfolder", (n) =>
          Effect.gen(function*() {
            const { watchDir } = yield* TestDaemon
            const folder = path.join(watchDir, `slow-copy-${n}`)
            fs.mkdirSync(folder)
            fs.writeFileSync(path.join(folder, "a.tcx"), tcxActivity({ start: dayStart(110 + 2 * n), seconds: 900 }))
            expect((yield* waitForRow(`slow-copy-${n}/a.tcx`)).status).toBe("success")
            // the last look that still saw a.tcx: the folder was emptied after it, so it may not go
            // before four settle times from then
            let seenAt = Date.now()
            yield* waitFor("a.tcx out of the folder", Effect.sync(() => {
              const at = Date.now()
              if (!fs.existsSync(path.join(folder, "a.tcx"))) return true
              seenAt = at
              return undefined
            }))
            // the copy writes its next file into the folder it made 2.4 s later: three settle times, less than four
            yield* Effect.sleep("2400 millis")
            let written = true
            try {
              fs.writeFileSync(path.join(folder, "b.tcx"), tcxActivity({ start: dayStart(111 + 2 * n), seconds: 900 }))
            } catch {
              written = false
            }
            if (Date.now() - seenAt >= SETTLE_MS * 4) {
              // the load stretched the pause past four settle times: the folder could rightly be gone
              if (written) yield* waitForRow(`slow-copy-${n}/b.tcx`)
              yield* waitForGone(folder)
              return undefined
            }
            expect(written, "the folder is still there to write into").toBe(true)
            expect((yield* waitForRow(`slow-copy-${n}/b.tcx`)).status).toBe("success")
            yield* waitForGone(folder)
            return true
          })))

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
          yield* waitForGone(file)
          expect(yield* importRows("copying.zip")).toHaveLength(1)
        }), 60_000)
    })

    describe("what is not a regular file", () => {
      it.effect("a link to a file outside the folder is never followed: one failed row saying why, the link left in place, not reported again", () =>
        Effect.gen(function*() {
          const { originalsDir, storageDir, watchDir } = yield* TestDaemon
          // the originals kept by the files before: following the link would add one
          const kept = () => (fs.readdirSync(originalsDir, { recursive: true }) as Array<string>).sort()
          const keptBefore = kept()
          // a valid activity outside the folder: following the link would import it
          const outside = path.join(path.dirname(storageDir), "outside.gpx")
          fs.writeFileSync(outside, gpxActivity({ start: dayStart(4), seconds: 900 }))
          fs.symlinkSync(outside, path.join(watchDir, "link.gpx"))
          const row = yield* waitForRow("link.gpx")
          expect(row).toMatchObject({ status: "failed", original_file: null, activity_id: null })
          expect(row.error_message).toBe('"link.gpx": a symbolic link is not imported: copy the file itself into the watch folder.')
          expect(fs.lstatSync(path.join(watchDir, "link.gpx")).isSymbolicLink()).toBe(true)
          expect(kept()).toEqual(keptBefore)
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
})
