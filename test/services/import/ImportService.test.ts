import { beforeEach, describe, expect, it, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Either, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as zlib from "node:zlib"
import { formatOf } from "../../../src/services/import/files/ActivityFileName.ts"
import { MAX_IMPORT_FILE_BYTES } from "../../../src/services/import/ImportReader.ts"
import { ImportService } from "../../../src/services/import/ImportService.ts"
import { KeptOriginals } from "../../../src/services/import/KeptOriginals.ts"
import { OriginalsDisk } from "../../../src/services/import/OriginalsDisk.ts"
import { fitActivity, gpxActivity, importRows, listFiles, type Root, scopedRoot, servicesLayer, tcxActivity } from "../../support/ImportHarness.ts"

/**
 * ImportService.importFile on its own (no watcher, no worker fiber): what a single import
 * commits and keeps, crash recovery, orphaned originals and the duplicate rule.
 *
 * The tests of a block share one storage and one set of services (a parse worker and its
 * first file cost about a second of processor time): each test records its activities on a
 * day of its own, ten days after the previous test's (so that no test's activity is a
 * duplicate of another's), names its files apart, and judges what it added to the storage
 * (`addedSince`). Only the recovery at start, which reads the whole storage, has its own.
 */

const FIRST_DAY = Date.parse("2024-03-10T07:00:00Z")
let testsStarted = 0
/** This test's start time: 07:00 UTC on a day of its own. */
let T = new Date(FIRST_DAY)
beforeEach(() => {
  T = new Date(FIRST_DAY + testsStarted++ * 10 * 86_400_000)
})
const minutes = (m: number) => new Date(T.getTime() + m * 60_000)
/** A modification time long past: a file that failed is not kept in case it is still being written. */
const LONG_AGO = new Date("2024-01-01T00:00:00Z")

/** Puts `bytes` into the watch folder as `name` and imports it. */
const importBytes = (root: Root, name: string, bytes: Uint8Array | string, mtime?: Date) =>
  Effect.gen(function*() {
    const full = path.join(root.watchDir, name)
    fs.writeFileSync(full, bytes)
    if (mtime) fs.utimesSync(full, mtime, mtime)
    const format = formatOf(name)!
    return yield* (yield* ImportService).importFile({ filename: name, format, path: full, mtimeMs: 0 })
  })

/** A storage the tests of a block share, for `layer(sharedStorage(), { excludeTestServices: true })`. */
class SharedRoot extends Context.Tag("test/ImportService/SharedRoot")<SharedRoot, Root>() {}
const sharedStorage = (env: Readonly<Record<string, string>> = {}) =>
  Layer.unwrapScoped(Effect.map(scopedRoot(env), (root) => Layer.merge(servicesLayer(root), Layer.succeed(SharedRoot, root))))

const activityRows = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: string; start_time: number; elapsed_time: number }>`SELECT id, start_time, elapsed_time FROM activities ORDER BY rowid`).pipe(Effect.orDie)
const waitingIn = (root: Root) => listFiles(root.watchDir).filter((f) => !f.startsWith("."))

/** What a test adds to the shared storage from now on: import rows, kept originals, activities and files left in the watch folder. */
const addedSince = (root: Root) =>
  Effect.gen(function*() {
    const rows = (yield* importRows()).length
    const originals = new Set(listFiles(root.originalsDir))
    const waiting = new Set(waitingIn(root))
    const activities = new Set((yield* activityRows).map((a) => a.id))
    return {
      rows: Effect.map(importRows(), (all) => all.slice(rows)),
      originals: () => listFiles(root.originalsDir).filter((f) => !originals.has(f)),
      waiting: () => waitingIn(root).filter((f) => !waiting.has(f)),
      activities: Effect.map(activityRows, (all) => all.filter((a) => !activities.has(a.id))),
      count: Effect.map(activityRows, (all) => all.filter((a) => !activities.has(a.id)).length)
    }
  })
type Added = Effect.Effect.Success<ReturnType<typeof addedSince>>

/** Runs `body` over the block's shared storage, with what it adds from its start. */
const onShared = <A, E, R>(body: (root: Root, added: Added) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(SharedRoot, (root) => Effect.flatMap(addedSince(root), (added) => body(root, added)))

const withServices = <A, E>(body: (root: Root) => Effect.Effect<A, E, any>, env: Readonly<Record<string, string>> = {}) =>
  Effect.gen(function*() {
    const root = yield* scopedRoot(env)
    return yield* body(root).pipe(Effect.provide(servicesLayer(root)))
  })

layer(sharedStorage(), { excludeTestServices: true })("over one storage", (it) => {
  describe("ImportService.prepare, then commit", () => {
    const prepareBytes = (root: Root, name: string, bytes: Uint8Array) =>
      Effect.gen(function*() {
        const full = path.join(root.watchDir, name)
        fs.writeFileSync(full, bytes)
        fs.utimesSync(full, minutes(-10), minutes(-10))
        return yield* (yield* ImportService).prepare({ filename: name, format: "fit", path: full, mtimeMs: 0 })
      })

    it.scoped("a file replaced under the same name after it was read imports the new bytes, not the old parse", () =>
      onShared((root, added) =>
        Effect.gen(function*() {
          const first = fitActivity({ start: T, seconds: 1800 })
          const prepared = yield* prepareBytes(root, "sync.fit", first)
          // a connector renames a newer version over it before the commit
          const second = fitActivity({ start: minutes(600), seconds: 2400 })
          fs.writeFileSync(path.join(root.watchDir, "sync.fit"), second)
          const outcome = yield* (yield* ImportService).commit(prepared!)
          expect(outcome?.status).toBe("success")
          const [row, ...others] = yield* importRows("sync.fit")
          expect(others).toEqual([])
          expect(fs.readFileSync(path.join(root.originalsDir, row!.original_file!))).toEqual(Buffer.from(second))
          const activity = yield* added.activities
          expect(activity.map(({ start_time, elapsed_time }) => ({ start_time, elapsed_time }))).toEqual([{ start_time: minutes(600).getTime(), elapsed_time: 2400 }])
        })
      ))

    it.scoped("a file removed after it was read is not committed", () =>
      onShared((root, added) =>
        Effect.gen(function*() {
          const prepared = yield* prepareBytes(root, "gone.fit", fitActivity({ start: T, seconds: 1800 }))
          fs.rmSync(path.join(root.watchDir, "gone.fit"))
          expect(yield* (yield* ImportService).commit(prepared!)).toBeNull()
          expect(yield* importRows("gone.fit")).toEqual([])
          expect(added.originals()).toEqual([])
          expect(yield* added.count).toBe(0)
        })
      ))
  })

  describe("ImportService.importFile", () => {
    it.scoped("commits the activity and its row, keeps the original bytes under files/originals, then removes the file", () =>
      onShared((root, added) =>
        Effect.gen(function*() {
          const bytes = fitActivity({ start: T, seconds: 1800 })
          const outcome = yield* importBytes(root, "morning.fit", bytes)
          expect(outcome?.status).toBe("success")
          expect(outcome?.activityIds).toHaveLength(1)
          const [row] = yield* importRows("morning.fit")
          expect(row).toMatchObject({ status: "success", activity_id: outcome!.activityIds[0], error_message: null })
          expect(row!.original_file).toBe(`${row!.id}.fit`)
          expect(fs.readFileSync(path.join(root.originalsDir, row!.original_file!))).toEqual(Buffer.from(bytes))
          expect(added.originals()).toEqual([row!.original_file])
          expect(added.waiting()).toEqual([])
          expect(yield* added.count).toBe(1)
        })
      ))

    it.scoped("after a crash between commit and removal, the same file (same name, bytes, mtime) is removed without a second row or activity", () =>
      onShared((root, added) =>
        Effect.gen(function*() {
          const bytes = fitActivity({ start: T, seconds: 1800 })
          const mtime = new Date("2024-03-10T09:00:00Z")
          expect((yield* importBytes(root, "ride.fit", bytes, mtime))?.status).toBe("success")
          // the state a kill -9 right after the commit leaves: the file is still in the watch folder
          const again = yield* importBytes(root, "ride.fit", bytes, mtime)
          expect(again).toBeNull()
          expect(fs.existsSync(path.join(root.watchDir, "ride.fit"))).toBe(false)
          expect(yield* added.rows).toHaveLength(1)
          expect(yield* added.count).toBe(1)
          expect(added.originals()).toHaveLength(1)
        })
      ))

    it.scoped("fails a file over the size limit without parsing it, keeps it whole as its original (compressed), and removes it", () =>
      onShared((root, added) =>
        Effect.gen(function*() {
          const full = path.join(root.watchDir, "huge.gpx")
          fs.writeFileSync(full, "")
          fs.truncateSync(full, MAX_IMPORT_FILE_BYTES + 1) // sparse: no bytes written
          fs.utimesSync(full, LONG_AGO, LONG_AGO)
          const outcome = yield* (yield* ImportService).importFile({ filename: "huge.gpx", format: "gpx", path: full, mtimeMs: 0 })
          expect(outcome?.status).toBe("failed")
          const [row] = yield* importRows("huge.gpx")
          expect(row).toMatchObject({
            status: "failed",
            error_message: `"huge.gpx" is too large to import (${MAX_IMPORT_FILE_BYTES + 1} bytes; at most ${MAX_IMPORT_FILE_BYTES}).`
          })
          expect(added.waiting()).toEqual([])
          // nothing dropped is deleted without a complete copy
          expect(added.originals()).toEqual([row!.original_file])
          // a failure's original is kept compressed: the 64 MiB of zeros take a few dozen KB
          const kept = fs.readFileSync(path.join(root.originalsDir, row!.original_file!))
          expect(kept.length).toBeLessThan(100_000)
          expect(zlib.gunzipSync(kept).length).toBe(MAX_IMPORT_FILE_BYTES + 1)
        })
      ))

    it.scoped("fails a file that is not an activity with a message naming it, and removes it from the watch folder", () =>
      onShared((root, added) =>
        Effect.gen(function*() {
          const outcome = yield* importBytes(root, "garbage.fit", "this is not a FIT file at all", LONG_AGO)
          expect(outcome?.status).toBe("failed")
          const [row] = yield* importRows("garbage.fit")
          expect(row!.status).toBe("failed")
          expect(row!.error_message).toMatch(/^"garbage\.fit" /)
          expect(row!.activity_id).toBeNull()
          expect(fs.existsSync(path.join(root.watchDir, "garbage.fit"))).toBe(false)
          expect(yield* added.count).toBe(0)
        })
      ))

    it.scoped("a file whose original cannot be copied into storage (no permission) is not recorded as abandoned nor removed: it stays, to be tried again", () =>
      onShared((root, added) =>
        Effect.gen(function*() {
          const imports = yield* ImportService
          const full = path.join(root.watchDir, "kept.fit")
          fs.writeFileSync(full, fitActivity({ start: T, seconds: 600 }))
          fs.utimesSync(full, LONG_AGO, LONG_AGO)
          const refuse = (from: string) => Object.assign(new Error(`EACCES: permission denied, copyfile '${from}'`), { code: "EACCES" })
          const denied = {
            copyFile: (from: string) => {
              throw refuse(from)
            },
            compressFile: (from: string) => Promise.reject(refuse(from))
          }
          const abandoned = yield* Effect.either(imports.abandon("kept.fit", "could not be stored").pipe(
            Effect.provideService(OriginalsDisk, denied)
          ))
          expect(Either.isLeft(abandoned) && abandoned.left).toMatchObject({ _tag: "OriginalNotKept", filename: "kept.fit", reason: expect.stringContaining("EACCES") })
          // a zip refused while the copy fails: the same
          fs.writeFileSync(path.join(root.watchDir, "refused.zip"), "not a zip")
          fs.utimesSync(path.join(root.watchDir, "refused.zip"), LONG_AGO, LONG_AGO)
          const refused = yield* Effect.either(imports.prepareEntry("refused.zip").pipe(Effect.provideService(OriginalsDisk, denied)))
          expect(Either.isLeft(refused) && refused.left._tag).toBe("OriginalNotKept")
          expect(yield* added.rows).toEqual([])
          expect(added.waiting().sort()).toEqual(["kept.fit", "refused.zip"])
          expect(added.originals()).toEqual([])
          // once the copy can be made: recorded, kept, removed
          expect((yield* imports.abandon("kept.fit", "could not be stored"))?.status).toBe("failed")
          const [row] = yield* importRows("kept.fit")
          expect(zlib.gunzipSync(fs.readFileSync(path.join(root.originalsDir, row!.original_file!)))).toEqual(Buffer.from(fitActivity({ start: T, seconds: 600 })))
          expect(fs.existsSync(full)).toBe(false)
        })
      ))
  })

  describe("gzipped files", () => {
    it.scoped("a .fit.gz, .tcx.gz and .gpx.gz import like the plain files; the original is kept gzipped", () =>
      onShared((root, added) =>
        Effect.gen(function*() {
          const files = {
            "a.fit.gz": fitActivity({ start: T, seconds: 1800 }),
            "b.TCX.gz": tcxActivity({ start: minutes(60), seconds: 1800 }),
            "c.gpx.gz": gpxActivity({ start: minutes(120), seconds: 1800 })
          }
          for (const [name, bytes] of Object.entries(files)) {
            const gzipped = zlib.gzipSync(bytes)
            const outcome = yield* importBytes(root, name, gzipped)
            expect(outcome?.status, name).toBe("success")
            const [row] = yield* importRows(name)
            expect(row!.original_file).toBe(`${row!.id}.${formatOf(name)}.gz`)
            expect(fs.readFileSync(path.join(root.originalsDir, row!.original_file!))).toEqual(gzipped)
          }
          expect(yield* added.count).toBe(3)
          expect(added.waiting()).toEqual([])
        })
      ))

    it.scoped("a truncated or a not-gzipped .gz fails saying what is wrong, and leaves the watch folder", () =>
      onShared((root, added) =>
        Effect.gen(function*() {
          const gzipped = zlib.gzipSync(fitActivity({ start: T, seconds: 1800 }))
          expect((yield* importBytes(root, "cut.fit.gz", gzipped.subarray(0, gzipped.length / 2), LONG_AGO))?.status).toBe("failed")
          expect((yield* importRows("cut.fit.gz"))[0]!.error_message).toBe('"cut.fit.gz" is cut short: the gzip file is truncated. Download or copy it again.')
          expect((yield* importBytes(root, "plain.fit.gz", fitActivity({ start: T, seconds: 1800 }), LONG_AGO))?.status).toBe("failed")
          expect((yield* importRows("plain.fit.gz"))[0]!.error_message).toMatch(/^"plain\.fit\.gz" is not a gzip file/)
          expect(yield* added.count).toBe(0)
          expect(added.waiting()).toEqual([])
        })
      ))
  })

  describe("duplicates", () => {
    const skippedNaming = (outcome: { status: string; errorMessage: string | null } | null, id: string) => {
      expect(outcome?.status).toBe("skipped")
      expect(outcome?.errorMessage).toContain(`"${id}"`)
      // the name and local start a person recognises
      expect(outcome?.errorMessage).toMatch(new RegExp(`the activity "[^"]+" of ${T.toISOString().slice(0, 10)} at \\d\\d:\\d\\d \\("activity-`))
    }

    it.scoped("the same bytes under another name are skipped, naming the existing activity", () =>
      onShared((root, added) =>
        Effect.gen(function*() {
          const bytes = fitActivity({ start: T, seconds: 1800 })
          const first = yield* importBytes(root, "a.fit", bytes)
          const copy = yield* importBytes(root, "a-renamed.fit", bytes)
          skippedNaming(copy, first!.activityIds[0]!)
          // a second copy under the first name but another mtime is no crash-recovery case: skipped too
          skippedNaming(yield* importBytes(root, "a.fit", bytes, new Date("2030-01-01T00:00:00Z")), first!.activityIds[0]!)
          expect(yield* added.count).toBe(1)
          const rows = yield* added.rows
          expect(rows.map((r) => r.status)).toEqual(["success", "skipped", "skipped"])
          // a copy of the same bytes keeps no original: the activity's is its copy
          expect(rows.filter((r) => r.original_file !== null)).toHaveLength(1)
        })
      ))

    it.scoped("another recording of the same activity (start within 60 s, >= 80 % overlap) is skipped whatever its name, sport or format", () =>
      onShared((root, added) =>
        Effect.gen(function*() {
          const fit = yield* importBytes(root, "watch.fit", fitActivity({ start: T, seconds: 3600, sport: "cycling" }))
          expect(fit?.status).toBe("success")
          const id = fit!.activityIds[0]!
          // 40 s later, 10 % shorter, another sport and name, as GPX and TCX
          skippedNaming(yield* importBytes(root, "phone.gpx", gpxActivity({ start: new Date(T.getTime() + 40_000), seconds: 3240, name: "Lunch Run", type: "running" })), id)
          const tcx = tcxActivity({ start: new Date(T.getTime() - 50_000), seconds: 3600, sport: "Other" })
          skippedNaming(yield* importBytes(root, "export.tcx", tcx), id)
          expect(yield* added.count).toBe(1)
          // other bytes than the activity's: each skipped file keeps its original, left the watch folder
          const [skipped] = yield* importRows("export.tcx")
          expect(fs.readFileSync(path.join(root.originalsDir, skipped!.original_file!), "utf8")).toBe(tcx)
          expect((yield* importRows("phone.gpx"))[0]!.original_file).not.toBeNull()
          expect(added.waiting()).toEqual([])
        })
      ))

    it.scoped("an activity on another day, one starting more than 60 s later, and a short one inside a long one are not duplicates", () =>
      onShared((root, added) =>
        Effect.gen(function*() {
          expect((yield* importBytes(root, "long.fit", fitActivity({ start: T, seconds: 7200 })))?.status).toBe("success")
          // same clock time, next day
          expect((yield* importBytes(root, "nextday.gpx", gpxActivity({ start: new Date(T.getTime() + 86_400_000), seconds: 7200 })))?.status).toBe("success")
          // starts 20 s after the long one but covers 10 minutes of its 2 hours
          expect((yield* importBytes(root, "short-at-start.gpx", gpxActivity({ start: new Date(T.getTime() + 20_000), seconds: 600 })))?.status).toBe("success")
          // in the middle of the long one
          expect((yield* importBytes(root, "short-inside.tcx", tcxActivity({ start: minutes(45), seconds: 900 })))?.status).toBe("success")
          // same length, 90 s later: full overlap but the start is out of the 60 s window
          expect((yield* importBytes(root, "later.fit", fitActivity({ start: new Date(T.getTime() + 90_000), seconds: 7200, product: 9 })))?.status).toBe("success")
          expect(yield* added.count).toBe(5)
        })
      ))
  })
})

layer(sharedStorage({ WATCH_SETTLE: "5s" }), { excludeTestServices: true })("over one storage, a settle time of 5 s", (it) => {
  describe("ImportService.importFile", () => {
    it.scoped("a young file that fails stays in the watch folder, to be looked at again: it may still be being written", () =>
      onShared((root) =>
        Effect.gen(function*() {
          const outcome = yield* importBytes(root, "half.gpx", '<?xml version="1.0"?><gpx version="1.1"><trk><trkseg><trkpt lat="1" lon="2"><time>2024-03-')
          expect(outcome?.status).toBe("failed")
          expect(outcome?.held?.after).toBeDefined()
          expect(fs.existsSync(path.join(root.watchDir, "half.gpx"))).toBe(true)
          // looked at again unchanged: already recorded, now it leaves
          expect(yield* (yield* ImportService).importFile({ filename: "half.gpx", format: "gpx", path: path.join(root.watchDir, "half.gpx"), mtimeMs: 0 })).toBeNull()
          expect(fs.existsSync(path.join(root.watchDir, "half.gpx"))).toBe(false)
          expect(yield* importRows("half.gpx")).toHaveLength(1)
        })
      ))

    it.scoped("a young FIT shorter than its header says, a young empty file and a young gzip that ends early are held as cut short", () =>
      onShared((root, added) =>
        Effect.gen(function*() {
          const fit = fitActivity({ start: T, seconds: 1800 })
          const cut = yield* importBytes(root, "cut.fit", fit.subarray(0, Math.floor(fit.length / 3)))
          expect(cut?.status).toBe("failed")
          expect(cut?.held).toBeDefined()
          const empty = yield* importBytes(root, "empty.tcx", "")
          expect(empty?.status).toBe("failed")
          expect(empty?.held).toBeDefined()
          const gzipped = zlib.gzipSync(gpxActivity({ start: T, seconds: 1800 }))
          const cutGzip = yield* importBytes(root, "cut.gpx.gz", gzipped.subarray(0, gzipped.length - 20))
          expect(cutGzip?.held).toBeDefined()
          expect(added.waiting().sort()).toEqual(["cut.fit", "cut.gpx.gz", "empty.tcx"])
        })
      ))

    it.scoped("a young file that fails for another reason than being cut short (not an activity file, a damaged one) leaves at once, its original kept", () =>
      onShared((root, added) =>
        Effect.gen(function*() {
          const garbage = yield* importBytes(root, "garbage.fit", "this is not a FIT file at all")
          expect(garbage?.status).toBe("failed")
          expect(garbage?.held).toBeUndefined()
          // whole XML that is no activity: nothing was cut off
          const whole = yield* importBytes(root, "whole.gpx", '<?xml version="1.0"?><gpx version="1.1"><metadata><name>x</name></metadata></gpx>')
          expect(whole?.status).toBe("failed")
          expect(whole?.held).toBeUndefined()
          const notXml = yield* importBytes(root, "text.tcx", "just some words")
          expect(notXml?.held).toBeUndefined()
          expect(added.waiting()).toEqual([])
          for (const name of ["garbage.fit", "whole.gpx", "text.tcx"]) {
            const [row] = yield* importRows(name)
            expect(fs.existsSync(path.join(root.originalsDir, row!.original_file!)), name).toBe(true)
          }
        })
      ))

  })
})

describe("ImportService.importFile", () => {
  it.scopedLive("at start, an original no row names goes back into the watch folder under its name; a copy cut short, the copy of an import a stop interrupted and a removal a stop cut short go; the named ones stay", () =>
    withServices((root) =>
      Effect.gen(function*() {
        yield* importBytes(root, "kept.gpx", gpxActivity({ start: T, seconds: 600 }))
        const [row] = yield* importRows("kept.gpx")
        const lost = Buffer.from(gpxActivity({ start: new Date(T.getTime() + 86_400_000), seconds: 600 }))
        const interrupted = Buffer.from(gpxActivity({ start: new Date(T.getTime() + 2 * 86_400_000), seconds: 600 }))
        const namesDir = path.join(root.storageDir, "files", "original-names")
        // an activity the database lost, with its name; one without a name (kept by an older version)
        fs.writeFileSync(path.join(root.originalsDir, "fileImport-lost.gpx"), lost)
        fs.writeFileSync(path.join(namesDir, "fileImport-lost.gpx"), "2024/lost ride.gpx")
        fs.writeFileSync(path.join(root.originalsDir, "fileImport-nameless.fit"), "nameless")
        // the copy of an import a kill interrupted: the same bytes still wait under that name
        fs.writeFileSync(path.join(root.originalsDir, "fileImport-interrupted.gpx"), interrupted)
        fs.writeFileSync(path.join(namesDir, "fileImport-interrupted.gpx"), "waiting.gpx")
        fs.writeFileSync(path.join(root.watchDir, "waiting.gpx"), interrupted)
        fs.writeFileSync(path.join(root.originalsDir, ".fileImport-half.fit.part"), "half")
        // removals a stop cut short: one whose row stayed (put back), one whose row went (removed)
        fs.renameSync(path.join(root.originalsDir, row!.original_file!), path.join(root.originalsDir, `.removing-${row!.original_file}`))
        fs.writeFileSync(path.join(root.originalsDir, ".removing-fileImport-deleted.fit"), "deleted")
        fs.writeFileSync(path.join(namesDir, "fileImport-deleted.fit"), "deleted.fit")
        expect(yield* (yield* KeptOriginals).recover()).toBe(2)
        expect(listFiles(root.originalsDir)).toEqual([row!.original_file])
        expect(fs.readFileSync(path.join(root.watchDir, "2024", "lost ride.gpx"))).toEqual(lost)
        expect(fs.readFileSync(path.join(root.watchDir, "fileImport-nameless.fit"), "utf8")).toBe("nameless")
        expect(fs.readFileSync(path.join(root.watchDir, "waiting.gpx"))).toEqual(interrupted)
        expect(listFiles(namesDir)).toEqual([row!.original_file])
      })
    ))

})
