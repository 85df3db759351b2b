import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { startChildDaemon } from "../support/ChildDaemon.ts"
import { readChannel, TestDaemon } from "../support/TestDaemon.ts"
import { WatchDirectory } from "../../src/services/import/WatchDirectory.ts"
import { dayStart, dropFile, fitActivity, freshDaemon, gpxActivity, importRows, scopedRoot, waitFor, waitForDrained, waitForRow } from "../support/ImportHarness.ts"

/**
 * Every name the watch folder may hold, through the real daemon over a real folder: a name
 * that is not UTF-8 is imported under its bytes escaped; a file deeper than the folders the
 * watch looks into is named in the log, once; and no name can write into the log (a newline
 * that starts a forged line, a terminal's escape sequence).
 */

/** The daemon log's lines whose message matches `pattern`. */
const daemonLines = (pattern: RegExp) => Effect.map(readChannel("daemon"), (lines) => lines.filter((l) => pattern.test(l.message)))

/** A path under `dir` made of raw bytes (a name in Latin-1), as a Buffer the file system takes as is. */
const rawPath = (dir: string, ...names: Array<Buffer>) => Buffer.concat([Buffer.from(dir), ...names.flatMap((n) => [Buffer.from("/"), n])])

const latin1 = (text: string) => Buffer.from(text, "latin1")

/** How long an import may take on a machine shared by many test runs (the parse thread yields to all of them). */
const PATIENCE = "120 seconds"

describe("watch folder: names", () => {
  layer(freshDaemon(), { excludeTestServices: true, timeout: 300_000 })((it) => {
    it.effect("a file named in Latin-1 (not UTF-8) is renamed on its drop's event (not at the next scan), imported under its name with the byte escaped, and the log tells the name found from the new one", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        const watch = yield* WatchDirectory
        // the scan at start is over: what follows is the drop's event, or a rescan a minute on
        yield* watch.scanned()
        const scansBefore = yield* watch.scans
        const staging = path.join(watchDir, ".staging")
        fs.mkdirSync(staging)
        fs.writeFileSync(rawPath(staging, latin1("Fahrt_M\u00fcnchen.fit")), fitActivity({ start: dayStart(1), seconds: 1200 }))
        fs.renameSync(rawPath(staging, latin1("Fahrt_M\u00fcnchen.fit")), rawPath(watchDir, latin1("Fahrt_M\u00fcnchen.fit")))
        // renamed as soon as the event came: before any rescan (which would find it too, a minute on)
        const renamedAt = yield* waitFor("the rename's line, or a rescan", Effect.gen(function*() {
          const said = yield* daemonLines(/not UTF-8/)
          const scans = yield* watch.scans
          return said.length > 0 || scans > scansBefore ? { said, scans } : undefined
        }), { timeout: PATIENCE })
        expect(renamedAt.scans).toBe(scansBefore)
        expect(renamedAt.said.map((l) => l.message)).toEqual([
          `"Fahrt_M\\xfcnchen.fit" in the watch folder has a name that is not UTF-8 text: renamed "Fahrt_M%FCnchen.fit" (each byte that is not UTF-8 written %XX) to be imported.`
        ])
        const row = yield* waitForRow("Fahrt_M%FCnchen.fit", PATIENCE)
        expect(row.status).toBe("success")
        yield* waitForDrained(watchDir)
      }), 300_000)

    it.effect("a folder named in Latin-1 is renamed the same way and its files are imported", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        const outside = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-names-"))
        fs.mkdirSync(rawPath(outside, latin1("Z\u00fcrich")))
        fs.writeFileSync(rawPath(outside, latin1("Z\u00fcrich"), Buffer.from("ride.gpx")), gpxActivity({ start: dayStart(2), seconds: 1800 }))
        fs.renameSync(rawPath(outside, latin1("Z\u00fcrich")), rawPath(watchDir, latin1("Z\u00fcrich")))
        fs.rmSync(outside, { recursive: true, force: true })
        expect((yield* waitForRow("Z%FCrich/ride.gpx", PATIENCE)).status).toBe("success")
      }), 300_000)

    it.effect("a file six folders deep is named in the daemon log once, with what to do; the file five deep beside it is imported", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        const outside = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-deep-"))
        const five = path.join(outside, "a", "b", "c", "d", "e")
        fs.mkdirSync(path.join(five, "f"), { recursive: true })
        fs.writeFileSync(path.join(five, "f", "deep.fit"), fitActivity({ start: dayStart(3), seconds: 600 }))
        fs.writeFileSync(path.join(five, "shallow.fit"), fitActivity({ start: dayStart(4), seconds: 600 }))
        fs.renameSync(path.join(outside, "a"), path.join(watchDir, "a"))
        fs.rmSync(outside, { recursive: true, force: true })
        expect((yield* waitForRow("a/b/c/d/e/shallow.fit", PATIENCE)).status).toBe("success")
        // another file after it: the folder was looked at again meanwhile
        dropFile(watchDir, "later.fit", fitActivity({ start: dayStart(5), seconds: 600 }))
        expect((yield* waitForRow("later.fit", PATIENCE)).status).toBe("success")
        const said = yield* daemonLines(/deeper than/)
        expect(said.map((l) => [l.level, l.message])).toEqual([
          ["WARN", `"a/b/c/d/e/f/deep.fit" in the watch folder is not imported: it lies deeper than 5 folders. Move it up.`]
        ])
        expect(yield* importRows("a/b/c/d/e/f/deep.fit")).toEqual([])
      }), 300_000)
  })
})

describe("watch folder: names in the text log", () => {
  it.scopedLive("a name holding a newline or a terminal escape is imported, and no log line on stdout is forged or carries the escape", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      const daemon = yield* startChildDaemon({ env: { ...root.env, LOG_LEVEL: "info", LOG_FORMAT: "text" }, apiKey: root.apiKey })
      const forged = "ok\n2026-01-01T00:00:00.000Z ERROR [daemon] FORGED ERROR the disk is on fire.gpx"
      const colored = "\u001b[31mred\u001b[0m\u0007.gpx"
      dropFile(root.watchDir, forged, gpxActivity({ start: dayStart(6), seconds: 900 }))
      dropFile(root.watchDir, colored, gpxActivity({ start: dayStart(7), seconds: 900 }))
      const listed = yield* waitFor("both imports", Effect.map(daemon.get("/api/v1/file-imports?pagination[size]=10"), (a) => {
        const rows = (a.json?.fileImports ?? []) as Array<{ filename: string; status: string }>
        return rows.filter((r) => r.status !== "queued").length >= 2 ? rows : undefined
      }), { timeout: PATIENCE })
      expect(listed.map((r) => [r.filename, r.status]).sort()).toEqual([[forged, "success"], [colored, "success"]].sort())
      // the lines that name them, read back as the terminal gets them: the row is written before
      // its log line reaches the pipe, so the output is waited on too
      const output = yield* waitFor("both import lines on stdout", Effect.sync(() => {
        const text = daemon.output()
        return text.split("\n").filter((line) => line.includes("imported \"")).length >= 2 ? text : undefined
      }), { timeout: PATIENCE })
      expect(output).toContain(`imported "ok\\n2026-01-01T00:00:00.000Z ERROR [daemon] FORGED ERROR the disk is on fire.gpx": success`)
      expect(output).toContain(`imported "\\x1b[31mred\\x1b[0m\\x07.gpx": success`)
      expect(output.split("\n").filter((line) => line.includes("FORGED") && !line.includes("imported"))).toEqual([])
      expect(output).not.toContain("\u001b")
      expect(output).not.toContain("\u0007")
    }), { timeout: 300_000 })
})
