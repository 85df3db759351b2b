import * as SqlClient from "@effect/sql/SqlClient"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type { EncodedActivityDraft } from "../../schema/ActivityDraft.ts"
import { MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH, truncateText } from "../../schema/ActivityLimits.ts"
import { ActivityRepo } from "../activities/ActivityRepo.ts"
import { exportedGearId, GearRepo } from "../activities/GearRepo.ts"
import { type KeptMetadata, ExportMetadata } from "./archives/ExportMetadata.ts"
import { KeptArchives } from "./archives/KeptArchives.ts"
import { GarminSummaries } from "./exports/GarminSummaries.ts"
import { ExportImages, imageIdOf } from "./archives/ExportImages.ts"
import { FileImportRepo, type NewFileImport } from "./FileImportRepo.ts"
import { isStorageFull } from "./isStorageFull.ts"

/**
 * The commit of one entry of the watch folder: its import row, the activities it made with
 * their streams, laps, splits and best efforts, and everything the export it came from says
 * about them (name, description, commute flag, gear, images), in one transaction. What the
 * export said is taken from where it was kept (ExportMetadata) in that same transaction, so a
 * stop at any moment finds either the file waiting with its metadata kept, or the activity
 * with its metadata; a failure or a duplicate forgets it with its row.
 */

/** What the import does with what an export said about the file. */
export type ExportUse =
  /** written with the activities (a success) */
  | "apply"
  /** forgotten with the row (a failure, a duplicate: the file leaves the folder) */
  | "forget"
  /** left kept (a failure held in the folder in case it grows: it may yet be imported) */
  | "leave"

export interface ImportWrite {
  /** the import row, but the activities it names (those of `activities`, in order) */
  readonly row: Omit<NewFileImport, "activityId" | "activityIds">
  readonly activities: ReadonlyArray<{ readonly id: string; readonly draft: EncodedActivityDraft }>
  readonly exported: ExportUse
}

/**
 * The activity as the export describes it: its name, description, commute flag and gear as the
 * athlete gave them; a commute the device marked (Garmin's commuting sub-sport) stays one.
 */
const describedBy = (draft: EncodedActivityDraft, metadata: KeptMetadata): EncodedActivityDraft => ({
  ...draft,
  ...(metadata.name !== null ? { name: truncateText(metadata.name, MAX_NAME_LENGTH) } : {}),
  ...(metadata.description !== null ? { description: truncateText(metadata.description, MAX_DESCRIPTION_LENGTH) } : {}),
  ...(metadata.gear !== null ? { gearId: exportedGearId(metadata.gear.name) } : {}),
  isCommute: metadata.isCommute || draft.isCommute
})

export class ImportWriter extends Effect.Service<ImportWriter>()("services/import/ImportWriter", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const activities = yield* ActivityRepo
    const gear = yield* GearRepo
    const fileImports = yield* FileImportRepo
    const exported = yield* ExportMetadata
    const images = yield* ExportImages
    const summaries = yield* GarminSummaries
    const archives = yield* KeptArchives

    /**
     * Writes the row and its activities in one transaction (see the module). A failure dies; a
     * full disk is the first cause then, in front of the rollback's own failure.
     */
    const write = Effect.fn("ImportWriter.write")(function*(input: ImportWrite) {
      const { contentHash, filename } = input.row
      const applying = input.exported === "apply" && input.activities.length > 0
      // SQLite may roll a transaction back by itself when the database is full; the ROLLBACK
      // that follows then fails too and would hide the full disk: keep that cause in front
      let full: Cause.Cause<unknown> | null = null
      const taken = yield* sql.withTransaction(Effect.gen(function*() {
        const kept = input.exported === "leave" ? null : yield* exported.take(filename, contentHash)
        const metadata = kept?.metadata ?? null
        const applied = applying ? metadata : null
        // the export's images are linked into the images' folder (found there after a stop: kept) before the rows that name them commit
        const published = applied === null ? [] : yield* images.publish(applied.images)
        if (applied?.gear != null) {
          const { brand, kind, model, name } = applied.gear
          yield* gear.upsert({ id: exportedGearId(name), name, type: "imported", isRetired: false, brand, model, kind })
        }
        // a Garmin export's files carry no activity id: each activity is named by the summary starting nearest it
        const summarised = applying && kept?.source === "garminExport" ? kept.archive : null
        for (const { draft, id } of input.activities) {
          // (one whose date is unknown starts at a stand-in: no summary is its)
          const summary = summarised === null || draft.dateUnknown ? null : yield* summaries.match(summarised, draft.startTime)
          const described = summary === null ? draft : describedBy(summary.sportType === null ? draft : { ...draft, sportType: summary.sportType }, summary)
          yield* activities.insert(id, applied === null ? described : describedBy(described, applied))
        }
        const ids = input.activities.map((a) => a.id)
        // a file of an export says which export in its row
        yield* fileImports.insert({ ...input.row, source: kept?.source ?? input.row.source, activityId: ids[0] ?? null, activityIds: ids })
        // the archive and what it said are kept until its last file is done
        const done = kept?.archive != null && (yield* archives.forgetIfDone(kept.archive))
        // the photos are the file's first activity's (the legs of a race share one file)
        const first = ids[0]
        if (applied !== null && first !== undefined) {
          for (const name of published) yield* activities.addImage(first, imageIdOf(name), name)
        }
        return { metadata, done: done ? kept!.archive : null }
      }).pipe(Effect.tapErrorCause((cause) =>
        Effect.sync(() => {
          if (isStorageFull(cause)) full = cause
        })
      ))).pipe(
        Effect.catchAllCause((cause) => Effect.failCause(full === null ? cause : Cause.sequential(full, cause))),
        Effect.orDie
      )
      // committed: the staged images are the activity's now (or forgotten with the metadata)
      if (taken.metadata !== null) yield* images.remove(taken.metadata.images)
      if (taken.done !== null) yield* archives.remove(taken.done)
    })

    return { write } as const
  }),
  dependencies: [ExportImages.Default, GarminSummaries.Default, KeptArchives.Default]
}) {}
