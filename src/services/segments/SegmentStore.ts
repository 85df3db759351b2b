import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import { randomUUID } from "node:crypto"
import type { EncodedActivityDraft } from "../../schema/ActivityDraft.ts"
import { inSportGroup, type SportGroup } from "../../schema/SegmentModels.ts"
import { decodeTrack, trackBoxes } from "./SegmentTrack.ts"
import { type MatchedEffort, matchSegment, type PreparedSegment, prepareSegment, type TrackStreams } from "./matchSegment.ts"
import { corridorBox, gateBox, type LatLng, lineOf } from "./segmentLine.ts"

/**
 * The segments' writes that go with an activity's: its track and boxes stored, its efforts on
 * every segment it passes found, all in the caller's transaction (an import, a re-import, an
 * edit of the sport type, a deletion); and a segment's matching against the stored history, a
 * batch of candidate tracks at a time, each batch a transaction of its own.
 */

/** ids of a track's boxes in the R*Tree: the track's rowid × BOX_IDS + its box's index */
const BOX_IDS = 1024
/** candidate tracks read per transaction of a segment's matching */
export const MATCH_BATCH = 250

export interface StoredSegment {
  readonly id: string
  readonly rowid: number
  readonly sportGroup: SportGroup
  readonly prepared: PreparedSegment
  readonly points: ReadonlyArray<LatLng>
}

interface SegmentRow {
  readonly id: string
  readonly rowid: number
  readonly sport_group: string
  readonly points: string
}

export const newSegmentId = () => `segment-${randomUUID()}`

const effortRow = (segmentId: string, activityId: string, startTime: number, e: MatchedEffort) => ({
  id: `segmentEffort-${randomUUID()}`,
  segment_id: segmentId,
  activity_id: activityId,
  start_time: startTime + e.startOffsetInSeconds * 1000,
  start_offset: e.startOffsetInSeconds,
  elapsed_time: e.elapsedTimeInSeconds,
  moving_time: e.movingTimeInSeconds,
  start_distance: Math.round(e.startDistanceInMeter * 10) / 10,
  end_distance: Math.round(e.endDistanceInMeter * 10) / 10,
  average_speed: e.averageSpeed,
  average_heartrate: e.averageHeartRate,
  average_power: e.averagePower,
  average_cadence: e.averageCadence
})

const boxOf = (box: { minLat: number; maxLat: number; minLon: number; maxLon: number }) =>
  ({ min_lat: box.minLat, max_lat: box.maxLat, min_lon: box.minLon, max_lon: box.maxLon })

export class SegmentStore extends Effect.Service<SegmentStore>()("services/segments/SegmentStore", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // the upkeep's wake-up: offered where work for it appears (a segment to match, a track to
    // make), taken by it between its passes; one pending wake-up stands for any number
    const work = yield* Queue.sliding<void>(1)
    const wake = Queue.offer(work, undefined)

    const storedSegment = (row: SegmentRow): StoredSegment => {
      const points = JSON.parse(row.points) as Array<LatLng>
      return { id: row.id, rowid: row.rowid, sportGroup: row.sport_group as SportGroup, points, prepared: prepareSegment(lineOf(points)) }
    }

    const insertEfforts = (rows: ReadonlyArray<ReturnType<typeof effortRow>>) =>
      rows.length === 0 ? Effect.void : sql`INSERT INTO segment_efforts ${sql.insert(rows)}`

    /** Segments whose corridor meets the track's bounding box, of a group the sport is in. */
    const candidateSegments = (latlng: ReadonlyArray<LatLng>, sportType: string) =>
      Effect.gen(function*() {
        let minLat = Infinity, maxLat = -Infinity, minLon = Infinity, maxLon = -Infinity
        for (const [lat, lon] of latlng) {
          if (lat < minLat) minLat = lat
          if (lat > maxLat) maxLat = lat
          if (lon < minLon) minLon = lon
          if (lon > maxLon) maxLon = lon
        }
        const rows = yield* sql<SegmentRow>`SELECT s.id, s.rowid, s.sport_group, s.points FROM segments s
          WHERE s.rowid IN (SELECT id FROM segment_boxes WHERE min_lat <= ${maxLat} AND max_lat >= ${minLat} AND min_lon <= ${maxLon} AND max_lon >= ${minLon})`
        return rows.filter((r) => inSportGroup(r.sport_group as SportGroup, sportType)).map(storedSegment)
      })

    /** The activity's efforts on every segment it passes (its old ones gone). */
    const matchActivity = (activityId: string, track: TrackStreams & { latlng: ReadonlyArray<LatLng> }, sportType: string, startTime: number) =>
      Effect.gen(function*() {
        yield* sql`DELETE FROM segment_efforts WHERE activity_id = ${activityId}`
        const segments = yield* candidateSegments(track.latlng, sportType)
        const rows = segments.flatMap((s) => matchSegment(s.prepared, track).map((e) => effortRow(s.id, activityId, startTime, e)))
        yield* insertEfforts(rows)
        return rows.length
      })

    /**
     * Stores the track of an activity just stored and finds its efforts; the caller owns the
     * transaction. A draft without a segment track (made before they were) is left to the upkeep.
     */
    const activityStored = Effect.fn("SegmentStore.activityStored")(function*(id: string, draft: EncodedActivityDraft) {
      if (draft.segmentTrack === undefined) return yield* wake
      yield* storeTrack(id, draft.segmentTrack, draft.sportType, draft.startTime)
    }, Effect.orDie)

    const storeTrack = (id: string, data: Uint8Array | null, sportType: string, startTime: number) =>
      Effect.gen(function*() {
        const track = data === null ? null : decodeTrack(data)
        const boxes = track === null ? [] : trackBoxes(track.latlng).slice(0, BOX_IDS)
        const [row] = yield* sql<{ rowid: number }>`INSERT INTO segment_tracks ${sql.insert({ activity_id: id, data, boxes: boxes.length })} RETURNING rowid`
        if (boxes.length > 0) {
          yield* sql`INSERT INTO track_boxes ${sql.insert(boxes.map((b, i) => ({ id: row!.rowid * BOX_IDS + i, ...boxOf(b), activity_id: id })))}`
        }
        if (track !== null) yield* matchActivity(id, track, sportType, startTime)
      })

    /** Forgets the track's boxes (the R*Tree has no cascade); the track and efforts go with the activity row. */
    const activityRemoved = Effect.fn("SegmentStore.activityRemoved")(function*(id: string) {
      const rows = yield* sql<{ rowid: number; boxes: number }>`SELECT rowid, boxes FROM segment_tracks WHERE activity_id = ${id}`
      const row = rows[0]
      if (row === undefined) return
      for (let i = 0; i < row.boxes; i++) yield* sql`DELETE FROM track_boxes WHERE id = ${row.rowid * BOX_IDS + i}`
      yield* sql`DELETE FROM segment_tracks WHERE activity_id = ${id}`
    }, Effect.orDie)

    /** The activity's efforts found again, under its new sport type. */
    const sportChanged = Effect.fn("SegmentStore.sportChanged")(function*(id: string, sportType: string) {
      const rows = yield* sql<{ data: Uint8Array | null; start_time: number }>`SELECT t.data, a.start_time FROM segment_tracks t
        JOIN activities a ON a.id = t.activity_id WHERE t.activity_id = ${id}`
      const row = rows[0]
      if (row === undefined || row.data === null) return
      yield* matchActivity(id, decodeTrack(row.data), sportType, row.start_time)
    }, Effect.orDie)

    /** Activities stored before their track was: up to `limit` of them made (their streams read), in one transaction. */
    const backfill = Effect.fn("SegmentStore.backfill")(function*(limit: number, encode: (data: Uint8Array) => Uint8Array | null) {
      return yield* sql.withTransaction(Effect.gen(function*() {
        const rows = yield* sql<{ id: string; sport_type: string; start_time: number; data: Uint8Array | null }>`
          SELECT a.id, a.sport_type, a.start_time, s.data FROM activities a LEFT JOIN activity_streams s ON s.activity_id = a.id
          WHERE NOT EXISTS (SELECT 1 FROM segment_tracks t WHERE t.activity_id = a.id) LIMIT ${limit}`
        for (const row of rows) yield* storeTrack(row.id, row.data === null ? null : encode(row.data), row.sport_type, row.start_time)
        return rows.length
      }))
    }, Effect.orDie)

    /** The segment's candidate activities: stored when it was made, after `cursor`, with boxes meeting both gates. */
    const candidatesQuery = (segment: StoredSegment, until: number, cursor: number, limit: number | null) => {
      const start = gateBox(segment.prepared.line, segment.points[0]!)
      const end = gateBox(segment.prepared.line, segment.points[segment.points.length - 1]!)
      const meets = (b: typeof start) =>
        sql`SELECT activity_id FROM track_boxes WHERE min_lat <= ${b.maxLat} AND max_lat >= ${b.minLat} AND min_lon <= ${b.maxLon} AND max_lon >= ${b.minLon}`
      return sql<{ rowid: number; id: string; sport_type: string; start_time: number; data: Uint8Array }>`
        SELECT a.rowid, a.id, a.sport_type, a.start_time, t.data FROM activities a JOIN segment_tracks t ON t.activity_id = a.id
        WHERE a.rowid > ${cursor} AND a.rowid <= ${until} AND a.id IN (${meets(start)}) AND a.id IN (${meets(end)})
        ORDER BY a.rowid ${limit === null ? sql.literal("") : sql`LIMIT ${limit}`}`
    }

    const segmentById = (id: string) =>
      Effect.map(sql<SegmentRow & { matching_cursor: number | null; matching_until: number }>`
        SELECT id, rowid, sport_group, points, matching_cursor, matching_until FROM segments WHERE id = ${id}`, (rows) => rows[0])

    /**
     * Inserts a segment (its boxes in the R*Tree) to be matched against the activities stored
     * so far; the matching itself is the upkeep's (matchBatch).
     */
    const insertSegment = Effect.fn("SegmentStore.insertSegment")(function*(segment: {
      readonly id: string
      readonly name: string
      readonly sportGroup: SportGroup
      readonly points: ReadonlyArray<LatLng>
      readonly altitudes: ReadonlyArray<number> | null
      readonly distance: number
      readonly averageGrade: number | null
      readonly elevationGain: number | null
    }) {
      return yield* sql.withTransaction(Effect.gen(function*() {
        const [last] = yield* sql<{ until: number | null }>`SELECT max(rowid) AS until FROM activities`
        const [row] = yield* sql<{ rowid: number }>`INSERT INTO segments ${sql.insert({
          id: segment.id,
          name: segment.name,
          sport_group: segment.sportGroup,
          distance: segment.distance,
          average_grade: segment.averageGrade,
          elevation_gain: segment.elevationGain,
          points: JSON.stringify(segment.points),
          altitudes: segment.altitudes === null ? null : JSON.stringify(segment.altitudes),
          created_at: Date.now(),
          matching_cursor: 0,
          matching_until: last?.until ?? 0
        })} RETURNING rowid`
        const line = lineOf(segment.points)
        yield* sql`INSERT INTO segment_boxes ${sql.insert({ id: row!.rowid, ...boxOf(corridorBox(line)), segment_id: segment.id })}`
        const stored = storedSegment({ id: segment.id, rowid: row!.rowid, sport_group: segment.sportGroup, points: JSON.stringify(segment.points) })
        const [total] = yield* sql<{ n: number }>`SELECT count(*) AS n FROM (${candidatesQuery(stored, last?.until ?? 0, 0, null)})`
        yield* sql`UPDATE segments SET matching_total = ${total?.n ?? 0} WHERE id = ${segment.id}`
      })).pipe(Effect.zipLeft(wake))
    }, Effect.orDie)

    const removeSegment = Effect.fn("SegmentStore.removeSegment")(function*(id: string) {
      return yield* sql.withTransaction(Effect.gen(function*() {
        const rows = yield* sql<{ rowid: number }>`SELECT rowid FROM segments WHERE id = ${id}`
        if (rows[0] === undefined) return false
        yield* sql`DELETE FROM segment_boxes WHERE id = ${rows[0].rowid}`
        yield* sql`DELETE FROM segments WHERE id = ${id}`
        return true
      }))
    }, Effect.orDie)

    /** Starts the segment's matching over (its group changed): its efforts are found again from the first activity. */
    const rematchSegment = Effect.fn("SegmentStore.rematchSegment")(function*(id: string) {
      return yield* sql.withTransaction(Effect.gen(function*() {
        const [last] = yield* sql<{ until: number | null }>`SELECT max(rowid) AS until FROM activities`
        yield* sql`DELETE FROM segment_efforts WHERE segment_id = ${id}`
        yield* sql`UPDATE segments SET matching_cursor = 0, matching_checked = 0, matching_until = ${last?.until ?? 0} WHERE id = ${id}`
        const segment = yield* segmentById(id)
        if (segment === undefined) return
        const [total] = yield* sql<{ n: number }>`SELECT count(*) AS n FROM (${candidatesQuery(storedSegment(segment), last?.until ?? 0, 0, null)})`
        yield* sql`UPDATE segments SET matching_total = ${total?.n ?? 0} WHERE id = ${id}`
      })).pipe(Effect.zipLeft(wake))
    }, Effect.orDie)

    /** Segments whose matching is not done, oldest first. */
    const pendingSegments = Effect.fn("SegmentStore.pendingSegments")(function*() {
      return (yield* sql<{ id: string }>`SELECT id FROM segments WHERE matching_cursor IS NOT NULL ORDER BY rowid`).map((r) => r.id)
    }, Effect.orDie)

    /**
     * Matches the segment against its next MATCH_BATCH candidate activities, in one transaction
     * (their efforts on it replaced, the cursor moved on); false once it is done.
     */
    const matchBatch = Effect.fn("SegmentStore.matchBatch")(function*(id: string) {
      return yield* sql.withTransaction(Effect.gen(function*() {
        const row = yield* segmentById(id)
        if (row === undefined || row.matching_cursor === null) return false
        const segment = storedSegment(row)
        const candidates = yield* candidatesQuery(segment, row.matching_until, row.matching_cursor, MATCH_BATCH)
        const efforts: Array<ReturnType<typeof effortRow>> = []
        for (const c of candidates) {
          if (!inSportGroup(segment.sportGroup, c.sport_type)) continue
          for (const e of matchSegment(segment.prepared, decodeTrack(c.data))) efforts.push(effortRow(id, c.id, c.start_time, e))
        }
        if (candidates.length > 0) {
          yield* sql`DELETE FROM segment_efforts WHERE segment_id = ${id} AND ${sql.in("activity_id", candidates.map((c) => c.id))}`
        }
        for (let i = 0; i < efforts.length; i += 500) yield* insertEfforts(efforts.slice(i, i + 500))
        const done = candidates.length < MATCH_BATCH
        const cursor = done ? null : candidates[candidates.length - 1]!.rowid
        yield* sql`UPDATE segments SET matching_cursor = ${cursor}, matching_checked = matching_checked + ${candidates.length} WHERE id = ${id}`
        return !done
      }))
    }, Effect.orDie)

    /** Waits until there may be work for the upkeep: a segment made or changed, an activity stored without its track. */
    const awaitWork = Queue.take(work)

    return { awaitWork, activityStored, activityRemoved, sportChanged, backfill, insertSegment, removeSegment, rematchSegment, pendingSegments, matchBatch } as const
  })
}) {}
