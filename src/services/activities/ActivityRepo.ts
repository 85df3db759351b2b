import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { randomUUID } from "node:crypto"
import type { ActivityStreams, EncodedActivityDraft } from "../../schema/ActivityDraft.ts"
import { ActivityFields, type ActivitySummary, type MultisportPart } from "../../schema/ActivityFields.ts"
import type { ActivityImage } from "../../schema/ApiModels.ts"
import { Lap, Length, Split } from "../../schema/ActivityDetailModels.ts"
import { AppConfig } from "../platform/AppConfig.ts"
import { SegmentStore } from "../segments/SegmentStore.ts"
import { TrainingStore } from "../training/TrainingStore.ts"
import { type ActivitySearch, ActivityReads } from "./ActivityReads.ts"
import { activityColumns, changedColumns } from "./ActivityRow.ts"
import { imageUrl } from "./ImageStore.ts"
import { decodeStreams } from "./StreamsCodec.ts"

/** Activities with their streams, laps, splits, best efforts, images and training analysis, in SQLite. */

interface ImageRow {
  readonly id: string
  readonly activity_id: string
  readonly file_name: string
}

/** The properties of a lap, a split and a length as the API answers them, in its order. */
const LAP_PROPERTIES = Object.keys(Lap.fields)
const SPLIT_PROPERTIES = Object.keys(Split.fields)
const LENGTH_PROPERTIES = Object.keys(Length.fields)

/** Fields of a stored activity to change, in the terms of a computed one (an empty description: none). */
export type ActivityPatch = Partial<ActivitySummary>

/** What must leave the disk once an activity row is gone (its originals: see ActivityRemoval). */
export interface DeletedActivity {
  readonly imageFiles: ReadonlyArray<string>
}

export interface StoredActivityTrack {
  readonly name: string
  readonly sportType: string
  readonly description: string
  readonly startTime: number
  readonly startDateLocal: string
  readonly hasGpx: boolean
  readonly streams: ActivityStreams | null
}

export const newActivityId = () => `activity-${randomUUID()}`

/** Values one SQLite statement may bind (SQLITE_MAX_VARIABLE_NUMBER of the bundled SQLite). */
export const SQLITE_MAX_VARIABLES = 32_766

export class ActivityRepo extends Effect.Service<ActivityRepo>()("services/activities/ActivityRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const reads = yield* ActivityReads
    const training = yield* TrainingStore
    const segments = yield* SegmentStore

    /** The fields of the activity the athlete set by hand (PATCH), by their names in the Activity. */
    const editedFields = Effect.fn("ActivityRepo.editedFields")(function*(id: string) {
      const edited = (yield* sql<{ edited: string | null }>`SELECT edited FROM activities WHERE id = ${id}`)[0]?.edited
      if (edited == null) return []
      const names: unknown = JSON.parse(edited)
      return Array.isArray(names) ? names.filter((n): n is string => typeof n === "string") : []
    }, Effect.orDie)

    const toImage = (row: ImageRow): ActivityImage => ({ id: row.id, url: imageUrl(config.appUrl, row.file_name) })

    // the API's reads (HotReads), over the read connection
    const findById = Effect.fn("ActivityRepo.findById")(function*(id: string) {
      return reads.findById(id)
    })

    const exists = Effect.fn("ActivityRepo.exists")(function*(id: string) {
      const rows = yield* sql`SELECT 1 FROM activities WHERE id = ${id}`
      return rows.length > 0
    }, Effect.orDie)

    const search = Effect.fn("ActivityRepo.search")(function*(params: ActivitySearch) {
      return reads.search(params)
    })

    /**
     * Multi-row inserts in statements of at most SQLITE_MAX_VARIABLES bound values: a 12-day
     * ride has ten thousand splits, far more than one statement may bind.
     */
    const insertRows = (table: string, rows: ReadonlyArray<Record<string, string | number>>) =>
      Effect.gen(function*() {
        if (rows.length === 0) return
        const perStatement = Math.max(1, Math.floor(SQLITE_MAX_VARIABLES / Object.keys(rows[0]!).length))
        for (let i = 0; i < rows.length; i += perStatement) {
          yield* sql`INSERT INTO ${sql(table)} ${sql.insert(rows.slice(i, i + perStatement))}`
        }
      })

    /**
     * Stores a computed activity with all its parts, its streams already encoded (by the parse
     * worker, or `encodeDraft`); the caller owns the transaction.
     */
    const insert = Effect.fn("ActivityRepo.insert")(function*(id: string, draft: EncodedActivityDraft, externalId: string | null = null) {
      yield* sql`INSERT INTO activities ${sql.insert({ ...activityColumns(id, draft), external_id: externalId, created_at: Date.now() })}`
      yield* sql`INSERT INTO activity_streams ${sql.insert({ activity_id: id, data: draft.encodedStreams })}`
      // stored as the API answers them: its properties, in its order
      yield* insertRows("activity_laps", draft.laps.map((lap) => ({ activity_id: id, lap_index: lap.lapIndex, data: JSON.stringify(lap, LAP_PROPERTIES) })))
      yield* insertRows("activity_splits", draft.splits.map((split) => ({
        activity_id: id, unit: split.unit, split_index: split.splitIndex, data: JSON.stringify(split, SPLIT_PROPERTIES)
      })))
      yield* insertRows("activity_best_efforts", draft.bestEfforts.map((effort) => ({
        activity_id: id, distance: effort.distanceInMeter, time_in_seconds: Math.round(effort.elapsedTimeInSeconds), start_offset: Math.round(effort.startOffsetInSeconds)
      })))
      yield* training.insert(id, draft)
      yield* segments.activityStored(id, draft)
      yield* insertRows("activity_lengths", (draft.lengths ?? []).map((length) => ({
        activity_id: id, length_index: length.lengthIndex, data: JSON.stringify(length, LENGTH_PROPERTIES)
      })))
    }, Effect.orDie)

    /** Replaces the computed data of an existing activity (external platform updates); keeps images. */
    const replace = Effect.fn("ActivityRepo.replace")(function*(id: string, draft: EncodedActivityDraft, externalId: string | null) {
      const images = yield* sql<{ id: string; activity_id: string; file_name: string; external_id: string | null; created_at: number }>`SELECT * FROM activity_images WHERE activity_id = ${id}`
      yield* segments.activityRemoved(id)
      yield* sql`DELETE FROM activities WHERE id = ${id}`
      yield* insert(id, draft, externalId)
      if (images.length > 0) yield* sql`INSERT INTO activity_images ${sql.insert(images.map((i) => ({ ...i })))}`
    }, Effect.orDie)

    /**
     * Changes the part of activity `id` in the race it is a leg of, as every leg of the race
     * stores it (its sport changed, or the leg deleted).
     */
    const changeRacePart = (id: string, change: (part: MultisportPart) => MultisportPart) =>
      Effect.gen(function*() {
        const own = yield* sql<{ multisport: string | null }>`SELECT multisport FROM activities WHERE id = ${id}`
        const race = ActivityFields.multisport.read(own[0]?.multisport)
        if (race === null) return
        for (const leg of new Set(race.parts.flatMap((p) => (p.activityId === null ? [] : [p.activityId])))) {
          const rows = yield* sql<{ multisport: string | null }>`SELECT multisport FROM activities WHERE id = ${leg}`
          const theirs = ActivityFields.multisport.read(rows[0]?.multisport)
          if (theirs === null) continue
          const changed = { parts: theirs.parts.map((p) => (p.activityId === id ? change(p) : p)) }
          yield* sql`UPDATE activities SET ${sql.update(ActivityFields.multisport.write(changed))} WHERE id = ${leg}`
        }
      })

    /**
     * Changes the fields of `patch`; `byAthlete` when the athlete set them by hand: they are
     * recorded as edited then (`editedFields`), and what another copy of the activity brings
     * later never replaces them (see ImportWriter).
     */
    const update = Effect.fn("ActivityRepo.update")(function*(id: string, patch: ActivityPatch, options: { readonly byAthlete?: boolean } = {}) {
      const changes = changedColumns(patch)
      if (Object.keys(changes).length === 0) return
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`UPDATE activities SET ${sql.update(changes)} WHERE id = ${id}`
        if (options.byAthlete === true) {
          const edited = new Set([...(yield* editedFields(id)), ...Object.keys(patch).filter((k) => patch[k as keyof ActivityPatch] !== undefined)])
          yield* sql`UPDATE activities SET edited = ${JSON.stringify([...edited].sort())} WHERE id = ${id}`
        }
        const sportType = patch.sportType
        if (sportType !== undefined) {
          yield* changeRacePart(id, (part) => ({ ...part, sportType }))
          yield* segments.sportChanged(id, sportType)
        }
      }))
    }, Effect.orDie)

    /**
     * Deletes the activity and, by cascade, its streams, laps, splits, best efforts, images and
     * import rows. The import row of a file that made other activities still stored (the legs of
     * a triathlon) stays with them, and so does its original; the race's other legs no longer
     * name this one.
     */
    const remove = Effect.fn("ActivityRepo.delete")(function*(id: string) {
      return yield* sql.withTransaction(Effect.gen(function*() {
        const images = yield* sql<{ file_name: string }>`SELECT file_name FROM activity_images WHERE activity_id = ${id}`
        const shared = yield* sql<{ id: string; activity_ids: string | null }>`SELECT f.id, f.activity_ids FROM file_imports f
          WHERE f.activity_id = ${id} OR EXISTS (SELECT 1 FROM json_each(f.activity_ids) j WHERE j.value = ${id})`
        for (const row of shared) {
          const named = JSON.parse(row.activity_ids ?? "[]") as Array<string>
          const others = named.filter((other) => other !== id)
          const stored = others.length === 0
            ? []
            : (yield* sql<{ id: string }>`SELECT id FROM activities WHERE ${sql.in("id", others)}`).map((r) => r.id)
          const remaining = others.filter((other) => stored.includes(other))
          if (remaining.length > 0) {
            yield* sql`UPDATE file_imports SET activity_id = ${remaining[0]!}, activity_ids = ${JSON.stringify(remaining)} WHERE id = ${row.id}`
          }
        }
        yield* changeRacePart(id, (part) => ({ ...part, activityId: null }))
        yield* segments.activityRemoved(id)
        yield* sql`DELETE FROM activities WHERE id = ${id}`
        return { imageFiles: images.map((i) => i.file_name) } satisfies DeletedActivity
      }))
    }, Effect.orDie)

    const track = Effect.fn("ActivityRepo.track")(function*(id: string) {
      const rows = yield* sql<{ name: string; sport_type: string; description: string | null; start_time: number; start_date_local: string; has_gpx: number; data: Uint8Array | null }>`
        SELECT a.name, a.sport_type, a.description, a.start_time, a.start_date_local, a.has_gpx, s.data
        FROM activities a LEFT JOIN activity_streams s ON s.activity_id = a.id WHERE a.id = ${id}`
      const row = rows[0]
      if (row === undefined) return null
      return {
        name: row.name,
        sportType: row.sport_type,
        description: row.description ?? "",
        startTime: ActivityFields.startTime.read(row.start_time),
        startDateLocal: row.start_date_local,
        hasGpx: row.has_gpx === 1,
        streams: row.data === null ? null : decodeStreams(row.data)
      } satisfies StoredActivityTrack
    }, Effect.orDie)

    /** Activities whose date is known starting within [from, to] (epoch ms), for the duplicate check: a range of the list's index. */
    const startingBetween = Effect.fn("ActivityRepo.startingBetween")(function*(from: number, to: number) {
      return yield* sql<{ id: string; start_time: number; elapsed_time: number }>`
        SELECT id, start_time, elapsed_time FROM dated_activities WHERE start_time BETWEEN ${from} AND ${to}`
    }, Effect.orDie)

    const addImage = Effect.fn("ActivityRepo.addImage")(function*(activityId: string, imageId: string, fileName: string, externalId: string | null = null) {
      yield* sql`INSERT INTO activity_images ${sql.insert({ id: imageId, activity_id: activityId, file_name: fileName, external_id: externalId, created_at: Date.now() })}`
      return toImage({ id: imageId, activity_id: activityId, file_name: fileName })
    }, Effect.orDie)

    const findImage = Effect.fn("ActivityRepo.findImage")(function*(activityId: string, imageId: string) {
      const rows = yield* sql<ImageRow>`SELECT id, activity_id, file_name FROM activity_images WHERE id = ${imageId} AND activity_id = ${activityId}`
      return rows[0] ?? null
    }, Effect.orDie)

    const removeImage = Effect.fn("ActivityRepo.removeImage")(function*(imageId: string) {
      yield* sql`DELETE FROM activity_images WHERE id = ${imageId}`
    }, Effect.orDie)

    const imageFileExists = Effect.fn("ActivityRepo.imageFileExists")(function*(fileName: string) {
      const rows = yield* sql`SELECT 1 FROM activity_images WHERE file_name = ${fileName}`
      return rows.length > 0
    }, Effect.orDie)

    /** External ids (platform photo ids) of the images already stored for an activity. */
    const imageExternalIds = Effect.fn("ActivityRepo.imageExternalIds")(function*(activityId: string) {
      const rows = yield* sql<{ external_id: string }>`SELECT external_id FROM activity_images
        WHERE activity_id = ${activityId} AND external_id IS NOT NULL`
      return new Set(rows.map((r) => r.external_id))
    }, Effect.orDie)

    const externalIds = Effect.fn("ActivityRepo.externalIds")(function*() {
      const rows = yield* sql<{ id: string; external_id: string }>`SELECT id, external_id FROM activities WHERE external_id IS NOT NULL`
      return new Map(rows.map((r) => [r.external_id, r.id]))
    }, Effect.orDie)

    return {
      findById, exists, search, insert, replace, update, editedFields, remove, track,
      startingBetween, addImage, findImage, removeImage, imageFileExists, imageExternalIds, externalIds
    } as const
  })
}) {}
