import { Clock, Effect, Exit, Layer, Stream } from "effect"
import * as path from "node:path"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import { formatOf, isZipName } from "../services/import/ActivityFileName.ts"
import { ImportQueue } from "../services/import/ImportQueue.ts"
import { type ImportOutcome, ImportService, type PreparedImport } from "../services/import/ImportService.ts"
import type { StoredStatus } from "../services/import/FileImportRepo.ts"
import { inChannel } from "../services/platform/Logs.ts"
import { WatchDirectory } from "../services/import/WatchDirectory.ts"
import { unpackZip } from "../services/import/ZipArchive.ts"
import { type ExportedActivity, readActivitiesCsv } from "../services/import/StravaExportCsv.ts"
import { ActivityRepo } from "../services/activities/ActivityRepo.ts"
import { GearRepo } from "../services/activities/GearRepo.ts"
import { ImportProgress } from "./ImportProgress.ts"
import { supervise } from "./supervise.ts"

/**
 * Imports queued files in queue order, one commit at a time, while the worker thread already
 * parses the next file: a file's first stage (read, hash, parse) overlaps the previous file's
 * commit. A failing file never stops the others.
 */
const PREPARED_AHEAD = 2

export const ImportWorkerLive = Layer.scopedDiscard(Effect.gen(function*() {
  const queue = yield* ImportQueue
  const imports = yield* ImportService
  const watchDir = yield* WatchDirectory
  const activities = yield* ActivityRepo
  const gear = yield* GearRepo

  /** What a Strava export's activities.csv said about files unpacked and not yet imported, by their name in the watch folder. */
  const fromExport = new Map<string, ExportedActivity>()

  /** The name, description, commute flag and gear given on Strava, on the activities imported from an exported file. */
  const applyExport = (filename: string, activityIds: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const exported = fromExport.get(filename)
      fromExport.delete(filename)
      if (exported === undefined) return
      let gearId: string | undefined
      if (exported.gear !== null) {
        gearId = `gear-${createHash("sha256").update(exported.gear).digest("hex").slice(0, 16)}`
        yield* gear.upsert({ id: gearId, name: exported.gear, type: "imported", isRetired: false })
      }
      for (const id of activityIds) {
        yield* activities.update(id, {
          ...(exported.name !== null ? { name: exported.name } : {}),
          ...(exported.description !== null ? { description: exported.description } : {}),
          ...(gearId !== undefined ? { gearId } : {}),
          isCommute: exported.isCommute
        })
      }
    })

  yield* imports.removeOrphanOriginals()

  /** Names taken from the queue and not yet done: released if the loop stops, so that a rescan offers them again. */
  const inFlight = new Set<string>()
  const done = (filename: string) => Effect.suspend(() => (inFlight.delete(filename), queue.done(filename)))
  const releaseAll = Effect.suspend(() => Effect.forEach([...inFlight], done, { discard: true }))

  const progress = new ImportProgress()
  const logLines = (lines: ReadonlyArray<string>) =>
    Effect.forEach(lines, (line) => Effect.logInfo(line).pipe(inChannel("daemon")), { discard: true })

  const take = Effect.tap(queue.take, (filename) =>
    Effect.gen(function*() {
      inFlight.add(filename)
      const line = progress.taken(yield* Clock.currentTimeMillis, yield* queue.size)
      if (line !== null) yield* logLines([line])
    }))

  /** The file is done: progress and, once the queue is empty, the batch's summary. */
  const handled = (filename: string, status: StoredStatus | null) =>
    Effect.gen(function*() {
      yield* done(filename)
      yield* logLines(progress.handledOne(yield* Clock.currentTimeMillis, status, yield* queue.size))
    })

  /**
   * A zip is unpacked into the watch folder and removed; its activity files are then queued
   * like any other (each with its own import row). One that cannot be unpacked stays where it
   * is, with the reason in the log.
   */
  const unpack = (filename: string) => {
    const zipPath = path.join(watchDir.watchDir, filename)
    return Effect.tryPromise(() => unpackZip(zipPath, watchDir.watchDir)).pipe(
      Effect.flatMap((unpacked) =>
        Effect.gen(function*() {
          yield* Effect.sync(() => fs.rmSync(zipPath, { force: true }))
          yield* Effect.logInfo(
            `unpacked "${filename}": ${unpacked.files.length} activity files` +
              (unpacked.refused.length > 0 ? `; archives inside an archive are not unpacked: ${unpacked.refused.join(", ")}` : "")
          ).pipe(inChannel("daemon"))
          const exported = unpacked.activitiesCsv === null ? new Map<string, ExportedActivity>() : readActivitiesCsv(unpacked.activitiesCsv)
          for (const file of unpacked.files) {
            const described = exported.get(path.posix.basename(file.entry))
            if (described !== undefined) fromExport.set(file.name, described)
            yield* queue.offer(file.name)
          }
        })),
      Effect.catchAll((e) =>
        Effect.logWarning(`"${filename}" was not unpacked: ${e.error instanceof Error ? e.error.message : String(e.error)}. It stays in the watch folder.`)
          .pipe(inChannel("daemon"))),
      Effect.as(null)
    )
  }

  const prepare = (filename: string) => {
    const format = formatOf(filename)
    const stage: Effect.Effect<PreparedImport | null> = isZipName(filename)
      ? unpack(filename)
      : format === null
      ? Effect.succeed(null)
      : imports.prepare({ filename, format, path: path.join(watchDir.watchDir, filename), mtimeMs: 0 })
    return Effect.map(Effect.exit(stage), (exit) => ({ filename, exit }))
  }

  const report = (filename: string, outcome: ImportOutcome | null) =>
    outcome === null
      ? Effect.void
      : Effect.logInfo(`imported "${filename}": ${outcome.status}${outcome.errorMessage ? ` (${outcome.errorMessage})` : ""}`).pipe(
        Effect.annotateLogs({ fileImportId: outcome.fileImportId, activityIds: outcome.activityIds.join(",") }),
        inChannel("daemon")
      )

  const commit = ({ exit, filename }: { readonly filename: string; readonly exit: Exit.Exit<PreparedImport | null> }) => {
    let status: StoredStatus | null = null
    return Effect.gen(function*() {
      const prepared = yield* exit
      if (prepared === null) return
      const outcome = yield* imports.commit(prepared)
      status = outcome?.status ?? null
      if (outcome?.status === "success") yield* applyExport(filename, outcome.activityIds)
      yield* report(filename, outcome)
    }).pipe(
      Effect.catchAllCause((cause) =>
        Effect.logError(`import of "${filename}" stopped unexpectedly; it stays in the watch folder for the next rescan`, cause).pipe(inChannel("daemon"))
      ),
      Effect.ensuring(Effect.suspend(() => handled(filename, status)))
    )
  }

  yield* supervise(
    "ImportWorker",
    Stream.repeatEffect(take).pipe(
      Stream.mapEffect(prepare, { concurrency: PREPARED_AHEAD }),
      Stream.runForEach(commit),
      Effect.ensuring(releaseAll)
    )
  )
}))
