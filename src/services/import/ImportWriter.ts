import * as SqlClient from "@effect/sql/SqlClient"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type { EncodedActivityDraft } from "../../schema/ActivityDraft.ts"
import { MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH, truncateText } from "../../schema/ActivityLimits.ts"
import { ActivityRepo } from "../activities/ActivityRepo.ts"
import { exportedGearId, GearRepo } from "../activities/GearRepo.ts"
import { type KeptFile, type KeptMetadata, ExportMetadata } from "./archives/ExportMetadata.ts"
import { KeptArchives } from "./archives/KeptArchives.ts"
import { GarminSummaries } from "./exports/GarminSummaries.ts"
import { ExportImages, imageIdOf } from "./archives/ExportImages.ts"
import { joinedChanges, joinedSentence } from "./DuplicateJoin.ts"
import { FileImportRepo, type NewFileImport } from "./FileImportRepo.ts"
import { isStorageFull } from "./isStorageFull.ts"

/**
 * The commit of one entry of the watch folder: its import row, the activities it made with
 * their streams, laps, splits and best efforts, and everything the export it came from says
 * about them (name, description, commute flag, gear, images), in one transaction. What the
 * export said is taken from where it was kept (ExportMetadata) in that same transaction, so a
 * stop at any moment finds either the file waiting with its metadata kept, or the activity
 * with its metadata; a failure forgets it with its row. A duplicate's joins the activity it
 * duplicates where that one has none of it (DuplicateJoin), in the same transaction.
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
  /**
   * A duplicate (`skipped`): the stored activity it is another copy of, and the copy as parsed
   * (null when it was not: the same bytes); what the copy and its export bring joins that
   * activity (DuplicateJoin), said in the row's message.
   */
  readonly joins?: { readonly activityId: string; readonly draft: EncodedActivityDraft | null } | null
}

interface KeptRow {
  readonly name: string
  readonly description: string | null
  readonly gear_id: string | null
  readonly is_commute: number
  readonly start_time: number
  readonly photos: number
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

    /** The gear an export names, learnt (or what it says of it now: its brand, model, kind). */
    const learnGear = (exportedGear: NonNullable<KeptMetadata["gear"]>) =>
      gear.upsert({ ...exportedGear, id: exportedGearId(exportedGear.name), type: "imported", isRetired: false })

    /**
     * What a skipped copy brings to the activity it duplicates (DuplicateJoin), within the
     * caller's transaction: the copy as its file, its export's summary and its export describe
     * it; its export's photos are added. Answers the sentence saying what joined, null when
     * nothing did (or the activity is gone).
     */
    const join = (joins: NonNullable<ImportWrite["joins"]>, kept: KeptFile | null) =>
      Effect.gen(function*() {
        const [stored] = yield* sql<KeptRow>`SELECT name, description, gear_id, is_commute, start_time,
          (SELECT COUNT(*) FROM activity_images i WHERE i.activity_id = a.id) AS photos FROM activities a WHERE id = ${joins.activityId}`
        if (stored === undefined) return null
        const metadata = kept?.metadata ?? null
        const summary = kept?.source === "garminExport" && kept.archive !== null
          ? yield* summaries.match(kept.archive, joins.draft?.startTime ?? stored.start_time)
          : null
        // the export's word first, then its summary's, then the file's own
        const said = [metadata, summary].filter((m): m is KeptMetadata => m !== null)
        const exportedGear = said.find((m) => m.gear !== null)?.gear ?? null
        const name = said.find((m) => m.name !== null)?.name ?? joins.draft?.name ?? null
        const description = said.find((m) => m.description !== null)?.description ?? joins.draft?.description ?? null
        const edited = yield* activities.editedFields(joins.activityId)
        const photos = metadata?.images ?? []
        const joined = joinedChanges(
          { name: stored.name, description: stored.description, gearId: stored.gear_id, isCommute: stored.is_commute === 1, photos: stored.photos, edited },
          {
            name: name === null ? null : truncateText(name, MAX_NAME_LENGTH),
            description: description === null ? null : truncateText(description, MAX_DESCRIPTION_LENGTH),
            gearId: exportedGear === null ? null : exportedGearId(exportedGear.name),
            isCommute: said.some((m) => m.isCommute) || joins.draft?.isCommute === true,
            photos: photos.length
          }
        )
        const { changes } = joined
        // the gear is learnt when it joins, or when it is the kept activity's own (its brand and model may be new)
        if (exportedGear !== null && (changes.gearId !== undefined || exportedGearId(exportedGear.name) === stored.gear_id)) yield* learnGear(exportedGear)
        if (Object.keys(changes).length > 0) yield* activities.update(joins.activityId, changes)
        if (joined.photos) for (const name of yield* images.publish(photos)) yield* activities.addImage(joins.activityId, imageIdOf(name), name)
        return joinedSentence(joined.words)
      })

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
        if (applied?.gear != null) yield* learnGear(applied.gear)
        // a Garmin export's files carry no activity id: each activity is named by the summary starting nearest it
        const summarised = applying && kept?.source === "garminExport" ? kept.archive : null
        for (const { draft, id } of input.activities) {
          // (one whose date is unknown starts at a stand-in: no summary is its)
          const summary = summarised === null || draft.dateUnknown ? null : yield* summaries.match(summarised, draft.startTime)
          const described = summary === null ? draft : describedBy(summary.sportType === null ? draft : { ...draft, sportType: summary.sportType }, summary)
          yield* activities.insert(id, applied === null ? described : describedBy(described, applied))
        }
        const joined = input.joins == null || input.exported === "leave" ? null : yield* join(input.joins, kept)
        const errorMessage = joined === null || input.row.errorMessage === null ? input.row.errorMessage : `${input.row.errorMessage} ${joined}`
        const ids = input.activities.map((a) => a.id)
        // a file of an export says which export in its row
        yield* fileImports.insert({ ...input.row, errorMessage, source: kept?.source ?? input.row.source, activityId: ids[0] ?? null, activityIds: ids })
        // the archive and what it said are kept until its last file is done
        const done = kept?.archive != null && (yield* archives.forgetIfDone(kept.archive))
        // the photos are the file's first activity's (the legs of a race share one file)
        const first = ids[0]
        if (applied !== null && first !== undefined) {
          for (const name of published) yield* activities.addImage(first, imageIdOf(name), name)
        }
        return { metadata, done: done ? kept!.archive : null, errorMessage }
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
      return { errorMessage: taken.errorMessage }
    })

    return { write } as const
  }),
  dependencies: [ExportImages.Default, GarminSummaries.Default, KeptArchives.Default]
}) {}
