import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { exportedGearId, GearRepo } from "../../activities/GearRepo.ts"
import { AppConfig } from "../../platform/AppConfig.ts"
import { inChannel } from "../../platform/Logs.ts"
import { EXPORT_NAMES, EXPORT_SOURCES } from "../exports/ExportPlan.ts"
import { GarminSummaries } from "../exports/GarminSummaries.ts"
import { FailedImports } from "../FailedImports.ts"
import { ImportQueue } from "../ImportQueue.ts"
import type { ImportOutcome } from "../ImportOutcome.ts"
import { zipLooksTruncated } from "../looksTruncated.ts"
import { WatchDirectory } from "../WatchDirectory.ts"
import type { ExportedActivity } from "./ExportedActivity.ts"
import { ExportImages } from "./ExportImages.ts"
import { type DescribedFile, ExportMetadata } from "./ExportMetadata.ts"
import { KeptArchives } from "./KeptArchives.ts"
import { freeNameIn, placedBefore, publishStaged, removeStaging, stageZip, type StagedZip, ZipChanged, ZipProblem } from "./ZipArchive.ts"

/**
 * A zip dropped into the watch folder (a Strava bulk export, or a plain zip of activity files):
 * unpacked into the folder, each activity file to be imported on its own, with its own row.
 * In this order, so that a stop at any moment loses nothing an export says:
 *
 * 1. the zip is unpacked into a staging folder (ZipArchive), all or nothing;
 * 2. what the export says about each file is kept (ExportMetadata) under the name the file will
 *    have in the folder and its bytes, its photos copied out first (ExportImages);
 * 3. the files enter the folder (a file that took a name meanwhile keeps it: the file gets the
 *    next free name, and what was kept follows it);
 * 4. the zip leaves the folder (if it did not change meanwhile), and its files are queued.
 *
 * A stop before 3 leaves the zip, unpacked again at the next start (what was kept for names no
 * file has is forgotten then); a stop after it leaves files that have what was kept for them,
 * and a stop before 4 the zip too: unpacked again, it does not let in a second time the files
 * it finds in the folder under their own name with their own bytes.
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
    const { exportMetadataLimits } = yield* AppConfig

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
        // the archive the files are of: its original and a Garmin export's summaries are kept by it until its last file is done
        const archive = staged.archive ?? `zip-${randomUUID()}`
        // every gear the export lists, whether or not an activity names it
        for (const { brand, kind, model, name } of staged.gear) {
          yield* gear.upsert({ id: exportedGearId(name), name, type: "imported", isRetired: false, brand, model, kind })
        }
        const taken = new Set<string>()
        // the files an unpacking of this zip let in before a stop are in the folder already, most with what was kept for them
        const planned = staged.files.map((file) => {
          const placed = placedBefore(watch.watchDir, file)
          return { ...file, placed, wanted: placed ? file.name : freeNameIn(watch.watchDir, file.name, taken) }
        })
        const described: Array<DescribedFile> = []
        for (const file of planned) {
          if (file.placed && (yield* exported.find(file.name, file.contentHash)) !== null) continue
          const metadata = file.metadata === null ? null : { ...file.metadata, images: yield* imagesOf(staged, file.metadata) }
          described.push({ filename: file.wanted, contentHash: file.contentHash, metadata, source, archive })
        }
        // the summaries and the files that need them, together: the summaries go once no file names their archive
        yield* sql.withTransaction(Effect.gen(function*() {
          if (staged.summaries.length > 0) yield* summaries.keep(archive, staged.summaries)
          yield* exported.keep(described)
        })).pipe(Effect.orDie)
        const placed: Array<string> = []
        for (const file of planned) {
          const name = file.placed ? file.name : yield* Effect.sync(() => publishStaged(staged, watch.watchDir, file.name, file.wanted))
          if (name !== file.wanted) yield* exported.rename(file.wanted, name, file.contentHash)
          placed.push(name)
        }
        // its files are in the folder now, each to be imported and kept; its original stays in storage until the last is
        if (placed.length > 0) yield* archives.keep(path.join(watch.watchDir, filename), archive)
        yield* watch.removeImported(filename, staged.identity)
        const left = staged.skipped.map((s) => `${s.area === "." ? "its top folder" : s.area} (${s.entries} ${s.entries === 1 ? "file" : "files"})`)
        yield* Effect.logInfo(
          `unpacked "${filename}", ${EXPORT_NAMES[staged.kind]}: ${placed.length} activity files` +
            (left.length === 0 ? "" : `; left out, as they hold no activity: ${left.join(", ")}`)
        ).pipe(inChannel("daemon"))
        yield* Effect.forEach(placed, queue.offer, { discard: true })
      })

    /** Unpacks the zip `filename` of the watch folder (see the class); the outcome of a zip refused, else null. */
    const unpack = Effect.fn("ArchiveImport.unpack")(function*(filename: string) {
      const zipPath = path.join(watch.watchDir, filename)
      const staging = yield* Effect.either(Effect.tryPromise({ try: () => stageZip(zipPath, watch.watchDir, filename, exportMetadataLimits), catch: (error) => error }))
      if (staging._tag === "Right") {
        const staged = staging.right
        if (staged === null) return null
        yield* publish(filename, staged).pipe(Effect.ensuring(Effect.sync(() => removeStaging(staged))))
        return null
      }
      const error = staging.left
      // a link or a pipe named .zip is never opened: its one `failed` row
      if (yield* Effect.sync(() => fs.lstatSync(zipPath, { throwIfNoEntry: false })?.isFile() === false)) {
        return yield* failed.refuseNotRegular(filename)
      }
      if (error instanceof ZipChanged) {
        yield* Effect.logInfo(`"${filename}" changed while it was unpacked; it is read again once it holds still`).pipe(inChannel("daemon"))
        return null
      }
      // not the zip's fault (a full disk while unpacking): tried again like any file that could not be stored
      if (!(error instanceof ZipProblem)) return yield* Effect.die(error)
      const outcome: ImportOutcome | null = yield* failed.record(filename, "zip", `"${filename}" was not unpacked: ${error.message}.`, zipLooksTruncated(zipPath))
      return outcome
    })

    return { unpack } as const
  }),
  dependencies: [FailedImports.Default, ExportImages.Default, GarminSummaries.Default, KeptArchives.Default]
}) {}
