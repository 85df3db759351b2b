import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { exportedGearId, GearRepo } from "../activities/GearRepo.ts"
import { AppConfig } from "../platform/AppConfig.ts"
import { inChannel } from "../platform/Logs.ts"
import { EXPORT_NAMES, EXPORT_SOURCES } from "./exports/ExportPlan.ts"
import { GarminSummaries } from "./exports/GarminSummaries.ts"
import { FailedImports } from "./FailedImports.ts"
import { ImportQueue } from "./ImportQueue.ts"
import type { ImportOutcome } from "./ImportOutcome.ts"
import { zipLooksTruncated } from "./looksTruncated.ts"
import { WatchDirectory } from "./WatchDirectory.ts"
import type { ExportedActivity } from "./archives/ExportedActivity.ts"
import { ExportImages } from "./archives/ExportImages.ts"
import { type DescribedFile, ExportMetadata } from "./archives/ExportMetadata.ts"
import { KeptArchives } from "./archives/KeptArchives.ts"
import { ReadingMarks } from "./ReadingMarks.ts"
import { fileHolds, SameBytes } from "./SameBytes.ts"
import { exportPlanner } from "./archives/exportPlanner.ts"
import { type UnpackedEntry, UnpackedEntries, zipKey } from "./archives/UnpackedEntries.ts"
import { freeNameIn, publishStaged, removeStaging, stageZip, type StagedZip, ZIP_LIMITS, ZipChanged, ZipProblem } from "./archives/ZipArchive.ts"

/**
 * A zip dropped into the watch folder (a Strava bulk export, or a plain zip of activity files):
 * unpacked into the folder, each activity file to be imported on its own, with its own row.
 * In this order, so that a stop at any moment loses nothing an export says:
 *
 * 1. the zip is unpacked into a staging folder (ZipArchive), all or nothing, as its export's
 *    layout plans it (exportPlanner);
 * 2. what the export says about each file is kept (ExportMetadata) under the name the file will
 *    have in the folder and its bytes, its photos copied out first (ExportImages);
 * 3. the files enter the folder (a file that took a name meanwhile keeps it: the file gets the
 *    next free name, and what was kept follows it);
 * 4. the zip leaves the folder (if it did not change meanwhile), and its files are queued.
 *
 * Each file is written in the journal of the unpacking (UnpackedEntries) with what is kept for
 * it in 2, before it enters the folder. A stop before 2 leaves the zip, unpacked again at the
 * next start; a stop after it leaves the zip and its journal: unpacked again, it lets in only
 * the entries the journal does not name, and those it names that never reached the folder
 * (neither waiting there nor imported), under the name they were given: nothing twice, nothing
 * lost. Step 1 runs under the zip's poison-pill mark (ReadingMarks): a zip that was being read
 * when the process died is set aside at the next start, never read again.
 * A zip that cannot be unpacked gets a `failed` row with the reason and is kept in storage like
 * every failed original; a young one that looks cut short is held in the folder a while, in case
 * it grows. A link or a pipe named `.zip` gets its one `failed` row.
 */
export class ArchiveImport extends Effect.Service<ArchiveImport>()("services/import/ArchiveImport", {
  effect: Effect.gen(function*() {
    const watch = yield* WatchDirectory
    const queue = yield* ImportQueue
    const exported = yield* ExportMetadata
    const images = yield* ExportImages
    const failed = yield* FailedImports
    const gear = yield* GearRepo
    const summaries = yield* GarminSummaries
    const archives = yield* KeptArchives
    const sql = yield* SqlClient.SqlClient
    const unpacked = yield* UnpackedEntries
    const sameBytes = yield* SameBytes
    const marks = yield* ReadingMarks
    const config = yield* AppConfig
    const limits = { ...ZIP_LIMITS, entryBytes: config.archiveEntryMaxSize, totalBytes: config.archiveMaxSize }

    /**
     * Whether an entry an unpacking recorded reached the folder: its file waits there with its
     * bytes, or has its import row (an import commits its row before its file leaves the folder,
     * so the file is looked for first).
     */
    const reached = (entry: UnpackedEntry) =>
      Effect.suspend(() =>
        fileHolds(path.join(watch.watchDir, entry.filename), entry.contentHash) ? Effect.succeed(true) : sameBytes.recorded(entry.filename, entry.contentHash)
      )

    /** The staged images an export's activity names (by their path in the archive), copied out for it. */
    const imagesOf = (staged: StagedZip, about: ExportedActivity) =>
      Effect.gen(function*() {
        const names: Array<string> = []
        for (const wanted of about.images) {
          // the export's paths are from its root, which a zip made again from its folder puts one folder down
          const image = staged.images.find((i) => i.entry === wanted || i.entry.endsWith(`/${wanted}`))
          if (image === undefined) continue
          const name = yield* images.stage(path.join(staged.staging, image.name))
          if (name !== null) names.push(name)
        }
        return names
      })

    /** Steps 2 to 4 (see the class) for a staged zip; the names its files got in the folder. */
    const publish = (filename: string, staged: StagedZip) =>
      Effect.gen(function*() {
        const source = EXPORT_SOURCES[staged.kind]
        const zip = zipKey(filename, staged.identity)
        // what an unpacking of this very zip that a stop cut short let in, by the entry's place in it
        const before = yield* unpacked.of(zip)
        // the archive the files are of: its original and a Garmin export's summaries are kept by it until its last file is done
        const archive = staged.archive ?? before.values().next().value?.archive ?? `zip-${randomUUID()}`
        // every gear the export lists, whether or not an activity names it
        for (const { brand, kind, model, name } of staged.gear) {
          yield* gear.upsert({ id: exportedGearId(name), name, type: "imported", isRetired: false, brand, model, kind })
        }
        const taken = new Set<string>()
        const planned: Array<StagedZip["files"][number] & { readonly wanted: string }> = []
        let reachedBefore = 0
        for (const file of staged.files) {
          const earlier = before.get(file.at)
          if (earlier === undefined) {
            planned.push({ ...file, wanted: freeNameIn(watch.watchDir, file.name, taken) })
          } else if (yield* reached(earlier)) {
            reachedBefore++
          } else {
            // recorded, then the stop came before it entered the folder: under the name it was given, if still free
            planned.push({ ...file, wanted: freeNameIn(watch.watchDir, earlier.filename, taken) })
          }
        }
        const described: Array<DescribedFile> = []
        for (const file of planned) {
          const metadata = file.metadata === null ? null : { ...file.metadata, images: yield* imagesOf(staged, file.metadata) }
          described.push({ filename: file.wanted, contentHash: file.contentHash, metadata, source, archive })
        }
        // the summaries, the files that need them and the journal of the unpacking, together, before any file enters the folder
        if (planned.length > 0) {
          yield* sql.withTransaction(Effect.gen(function*() {
            if (staged.summaries.length > 0) yield* summaries.keep(archive, staged.summaries)
            yield* exported.keep(described)
            yield* unpacked.record(zip, planned.map((file) => ({ entry: file.at, archive, filename: file.wanted, contentHash: file.contentHash })))
          })).pipe(Effect.orDie)
        }
        const placed: Array<string> = []
        for (const file of planned) {
          const name = yield* Effect.sync(() => publishStaged(staged, watch.watchDir, file.name, file.wanted))
          if (name !== file.wanted) {
            yield* exported.rename(file.wanted, name, file.contentHash)
            yield* unpacked.rename(zip, file.at, name)
          }
          placed.push(name)
        }
        // its files are in the folder now, each to be imported and kept; its original stays in storage until the last is
        if (placed.length > 0) yield* archives.keep(path.join(watch.watchDir, filename), archive)
        yield* watch.removeImported(filename, staged.identity)
        yield* unpacked.forget(zip)
        const left = staged.skipped.map((s) => `${s.area === "." ? "its top folder" : s.area} (${s.entries} ${s.entries === 1 ? "file" : "files"})`)
        yield* Effect.logInfo(
          (before.size === 0
            ? `unpacked "${filename}", ${EXPORT_NAMES[staged.kind]}: ${placed.length} activity files`
            : `resumed the unpacking of "${filename}", ${EXPORT_NAMES[staged.kind]}, that a stop cut short: ${placed.length} more activity files, ` +
              `${reachedBefore} let into the folder before`) +
            (left.length === 0 ? "" : `; left out, as they hold no activity: ${left.join(", ")}`)
        ).pipe(inChannel("daemon"))
        yield* Effect.forEach(placed, queue.offer, { discard: true })
      })

    /**
     * Reads the zip `filename` into its staging folder (step 1) under its poison-pill mark; the
     * zip staged, or the outcome of a zip refused (its `failed` row written before the mark goes).
     */
    const stage = (filename: string) =>
      marks.reading(filename, Effect.gen(function*() {
        const zipPath = path.join(watch.watchDir, filename)
        const staging = yield* Effect.either(Effect.tryPromise({ try: () => stageZip(zipPath, watch.watchDir, exportPlanner(watch.watchDir, filename, config.exportMetadataLimits), limits), catch: (error) => error }))
        if (staging._tag === "Right") return { staged: staging.right, outcome: null }
        const error = staging.left
        // a link or a pipe named .zip is never opened: its one `failed` row
        if (yield* Effect.sync(() => fs.lstatSync(zipPath, { throwIfNoEntry: false })?.isFile() === false)) {
          return { staged: null, outcome: yield* failed.refuseNotRegular(filename) }
        }
        if (error instanceof ZipChanged) {
          yield* Effect.logInfo(`"${filename}" changed while it was unpacked; it is read again once it holds still`).pipe(inChannel("daemon"))
          return { staged: null, outcome: null }
        }
        // not the zip's fault (a full disk while unpacking): tried again like any file that could not be stored
        if (!(error instanceof ZipProblem)) return yield* Effect.die(error)
        const outcome: ImportOutcome | null = yield* failed.record(filename, "zip", `"${filename}" was not unpacked: ${error.message}.`, zipLooksTruncated(zipPath))
        return { staged: null, outcome }
      }))

    /** Unpacks the zip `filename` of the watch folder (see the class); the outcome of a zip refused, else null. */
    const unpack = Effect.fn("ArchiveImport.unpack")(function*(filename: string) {
      const { outcome, staged } = yield* stage(filename)
      if (staged !== null) yield* publish(filename, staged).pipe(Effect.ensuring(Effect.sync(() => removeStaging(staged))))
      return outcome
    })

    return { unpack } as const
  }),
  dependencies: [FailedImports.Default, SameBytes.Default, ExportImages.Default, GarminSummaries.Default, KeptArchives.Default]
}) {}
