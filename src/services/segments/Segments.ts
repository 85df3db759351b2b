import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import {
  type Climb,
  type PersonalRecord,
  SEGMENT_LENGTH,
  type Segment,
  type SegmentCreate,
  type SegmentDetail,
  type SegmentEffort,
  type SegmentEffortPage,
  type SegmentEffortParams,
  type SegmentUpdate,
  type SportGroup,
  sportGroupOf
} from "../../schema/SegmentModels.ts"
import { ActivityRepo } from "../activities/ActivityRepo.ts"
import { ReadConnection } from "../platform/ReadConnection.ts"
import { makeVersionedCache } from "../platform/VersionedCache.ts"
import { findClimbs } from "./findClimbs.ts"
import { lineOf, type LatLng, stretchOf } from "./segmentLine.ts"
import { BadInput, fromGeoJson, fromGpx, fromPoints, type SourceLine } from "./segmentSources.ts"
import { newSegmentId, SegmentStore } from "./SegmentStore.ts"

/**
 * Segments as the API shows them: made from a stretch of an activity, points, a GPX file or a
 * GeoJSON line (checked, a BadInput naming the field otherwise), listed with their best and
 * last efforts, their leaderboards, an activity's efforts ranked as they stood on its day, and
 * an activity's climbs.
 */

interface EffortRow {
  readonly id: string
  readonly segment_id: string
  readonly segment_name: string
  readonly activity_id: string
  readonly activity_name: string
  readonly sport_type: string
  readonly start_time: number
  readonly start_date_local: string
  readonly start_offset: number
  readonly elapsed_time: number
  readonly moving_time: number
  readonly start_distance: number
  readonly end_distance: number
  readonly average_speed: number
  readonly average_heartrate: number | null
  readonly average_power: number | null
  readonly average_cadence: number | null
  readonly rank: number
  /** the segment's efforts up to the effort's start, those of the same start among them */
  readonly count_then: number
  /** how many of the three fastest of those were faster than it (3: it was no record) */
  readonly faster_then: number
}

interface SegmentRow {
  readonly id: string
  readonly name: string
  readonly sport_group: string
  readonly distance: number
  readonly average_grade: number | null
  readonly elevation_gain: number | null
  readonly points: string
  readonly altitudes: string | null
  readonly created_at: number
  readonly matching_cursor: number | null
  readonly matching_total: number
  readonly matching_checked: number
  readonly effort_count: number
  readonly best_effort_id: string | null
  readonly last_effort_id: string | null
}

/** Answers kept until the next commit (a segment's page, a leaderboard's pages, an activity's efforts and climbs). */
const KEPT_ANSWERS = 512

const round1 = (n: number | null) => (n === null ? null : Math.round(n * 10) / 10)
const PLACES: ReadonlyArray<PersonalRecord> = ["personalRecord", "second", "third"]

/**
 * A segment's columns with its efforts' count, its best effort (the earliest of equal times)
 * and its last, each read from an index of the segment's efforts (by time, by date) rather
 * than from all of them.
 */
const SEGMENT_COLUMNS = `s.*,
  (SELECT count(*) FROM segment_efforts x WHERE x.segment_id = s.id) AS effort_count,
  (SELECT x.id FROM segment_efforts x WHERE x.segment_id = s.id ORDER BY x.elapsed_time, x.start_time, x.id LIMIT 1) AS best_effort_id,
  (SELECT x.id FROM segment_efforts x WHERE x.segment_id = s.id ORDER BY x.start_time DESC, x.id DESC LIMIT 1) AS last_effort_id`

/** An effort's (`e`) rank by time among all its segment's efforts. */
const RANK_AMONG_ALL = "1 + (SELECT count(*) FROM segment_efforts x WHERE x.segment_id = e.segment_id AND x.elapsed_time < e.elapsed_time)"

/**
 * An effort's (`e`) count and place as they stood at its start: past the third fastest an
 * effort is no record, so counting up to three faster ones is all a place needs. Each is one
 * range of the index of the segment's efforts by date, for the effort's row alone.
 */
const THEN = `(SELECT count(*) FROM segment_efforts x WHERE x.segment_id = e.segment_id AND x.start_time <= e.start_time) AS count_then,
  (SELECT count(*) FROM (SELECT 1 FROM segment_efforts x
    WHERE x.segment_id = e.segment_id AND x.start_time <= e.start_time AND x.elapsed_time < e.elapsed_time LIMIT 3)) AS faster_then`

const effortOf = (row: EffortRow): SegmentEffort => ({
  id: row.id,
  segmentId: row.segment_id,
  segmentName: row.segment_name,
  activityId: row.activity_id,
  activityName: row.activity_name,
  sportType: row.sport_type,
  startDate: new Date(row.start_time).toISOString().replace(/\.\d{3}Z$/, "Z"),
  startDateLocal: row.start_date_local,
  startOffsetInSeconds: row.start_offset,
  elapsedTimeInSeconds: row.elapsed_time,
  movingTimeInSeconds: row.moving_time,
  startDistanceInMeter: row.start_distance,
  endDistanceInMeter: row.end_distance,
  averageSpeedInKmPerHour: Math.round(row.average_speed * 36) / 10,
  averageHeartRate: round1(row.average_heartrate),
  averagePower: round1(row.average_power),
  averageCadence: round1(row.average_cadence),
  rank: row.rank,
  effortsAtDate: row.count_then,
  personalRecord: PLACES[row.faster_then] ?? null
})

/** The line's rise and gain from altitudes at its points. */
const climbOf = (altitudes: ReadonlyArray<number> | null, length: number) => {
  if (altitudes === null || altitudes.length < 2) return { averageGrade: null, elevationGain: null }
  let gain = 0
  for (let i = 1; i < altitudes.length; i++) gain += Math.max(0, altitudes[i]! - altitudes[i - 1]!)
  return {
    averageGrade: Math.round(((altitudes[altitudes.length - 1]! - altitudes[0]!) / length) * 1000) / 10,
    elevationGain: Math.round(gain * 10) / 10
  }
}

export class Segments extends Effect.Service<Segments>()("services/segments/Segments", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const store = yield* SegmentStore
    const activities = yield* ActivityRepo
    const db = yield* ReadConnection
    const kept = makeVersionedCache<unknown>({ version: db.dataVersion, capacity: KEPT_ANSWERS, weigh: () => 1 })

    /**
     * The answer of `read`, kept by `key` until the next commit to the database: the pages ask
     * the same reads again and again (a list polled while a segment is matched, a leaderboard
     * paged back and forth), each a few statements and the decoding of an activity's streams
     * for its climbs. An answer read while a commit landed is not kept.
     */
    const keptUntilCommit = <A, E>(key: ReadonlyArray<unknown>, read: Effect.Effect<A, E>): Effect.Effect<A, E> =>
      Effect.suspend(() => {
        const text = JSON.stringify(key)
        const version = db.dataVersion()
        const found = kept(text, () => undefined)
        if (found !== undefined) return Effect.succeed(found as A)
        return Effect.tap(read, (answer) => Effect.sync(() => {
          if (db.dataVersion() === version) kept(text, () => answer)
        }))
      })

    /**
     * The efforts `efforts` selects (rows of segment_efforts with their `rank`) as the API shows
     * them, `order`ed: their places then are counted for these rows only.
     */
    const effortRows = (efforts: Statement.Fragment, order: string) =>
      Effect.map(
        sql<EffortRow>`SELECT e.*, s.name AS segment_name, a.name AS activity_name, a.sport_type, a.start_date_local, ${sql.literal(THEN)}
          FROM (${efforts}) e JOIN segments s ON s.id = e.segment_id JOIN activities a ON a.id = e.activity_id ORDER BY ${sql.literal(order)}`,
        (rows) => rows.map(effortOf)
      )

    /** The segments' rows as the API shows them, their best and last efforts read in one statement. */
    const summariesOf = (rows: ReadonlyArray<SegmentRow>) =>
      Effect.gen(function*() {
        const ids = rows.flatMap((r) => [r.best_effort_id, r.last_effort_id]).filter((id): id is string => id !== null)
        const efforts = new Map<string, SegmentEffort>()
        if (ids.length > 0) {
          for (const e of yield* effortRows(sql`SELECT e.*, ${sql.literal(RANK_AMONG_ALL)} AS rank FROM segment_efforts e WHERE ${sql.in("e.id", ids)}`, "e.id")) {
            efforts.set(e.id, e)
          }
        }
        return rows.map((row) => {
          const points = JSON.parse(row.points) as Array<[number, number]>
          const segment: Segment = {
            id: row.id,
            name: row.name,
            sportGroup: row.sport_group as SportGroup,
            distanceInMeter: Math.round(row.distance * 10) / 10,
            averageGrade: row.average_grade,
            elevationGainInMeter: row.elevation_gain,
            startLatlng: points[0]!,
            endLatlng: points[points.length - 1]!,
            effortCount: row.effort_count,
            bestEffort: row.best_effort_id === null ? null : efforts.get(row.best_effort_id) ?? null,
            lastEffort: row.last_effort_id === null ? null : efforts.get(row.last_effort_id) ?? null,
            matching: {
              status: row.matching_cursor === null ? "done" : "matching",
              checkedActivities: row.matching_checked,
              totalActivities: row.matching_total
            },
            createdAt: new Date(row.created_at).toISOString()
          }
          return { segment, points, altitudes: row.altitudes === null ? null : (JSON.parse(row.altitudes) as Array<number>) }
        })
      })

    const segmentRow = (id: string) => Effect.map(sql<SegmentRow>`SELECT ${sql.literal(SEGMENT_COLUMNS)} FROM segments s WHERE s.id = ${id}`, (rows) => rows[0] ?? null)

    const get = Effect.fn("Segments.get")(function*(id: string) {
      return yield* keptUntilCommit(["get", id], Effect.gen(function*() {
        const row = yield* segmentRow(id)
        if (row === null) return null
        const [{ altitudes, points, segment }] = yield* summariesOf([row])
        return { ...segment, points, altitudes } satisfies SegmentDetail
      }))
    }, Effect.orDie)

    const list = Effect.fn("Segments.list")(function*(name: string | undefined) {
      return yield* keptUntilCommit(["list", name], listed(name))
    })

    const listed = (name: string | undefined) => Effect.gen(function*() {
      const rows = yield* sql<SegmentRow>`SELECT ${sql.literal(SEGMENT_COLUMNS)} FROM segments s
        ${name === undefined || name.trim() === "" ? sql.literal("") : sql`WHERE s.name LIKE ${`%${name.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`} ESCAPE '\\'`}
        ORDER BY s.created_at DESC, s.rowid DESC`
      return (yield* summariesOf(rows)).map((s) => s.segment)
    }).pipe(Effect.orDie)

    /** The stretch of an activity as a line with its altitudes (one every 10 m, read at the stretch's distances). */
    const stretch = (activityId: string, from: number, to: number) =>
      Effect.gen(function*() {
        const track = yield* activities.track(activityId)
        if (track === null) return yield* Effect.fail(new BadInput(`"activityId": no activity "${activityId}".`))
        const { altitude, distance, latlng } = track.streams ?? {}
        if (latlng === undefined || distance === undefined) return yield* Effect.fail(new BadInput(`"activityId": activity "${activityId}" has no track.`))
        const end = distance[distance.length - 1] ?? 0
        if (!(from >= 0 && from < end)) return yield* Effect.fail(new BadInput(`"fromDistanceInMeter" must be within the activity: from 0 to ${Math.floor(end)} m.`))
        if (!(to > from && to <= end)) return yield* Effect.fail(new BadInput(`"toDistanceInMeter" must be within the activity, after "fromDistanceInMeter": up to ${Math.floor(end)} m.`))
        const cut = stretchOf(latlng, distance, from, to)
        if (cut === null) return yield* Effect.fail(new BadInput(`"fromDistanceInMeter" and "toDistanceInMeter" must name a stretch of the activity's track.`))
        const altitudes = altitude === undefined || altitude.length !== distance.length ? null : cut.distances.map((at) => {
          const k = Math.max(0, distance.findIndex((d) => d >= at))
          return altitude[k]!
        })
        return { source: { points: cut.points, altitudes } satisfies SourceLine, sportType: track.sportType }
      })

    const create = Effect.fn("Segments.create")(function*(input: SegmentCreate) {
      const given = ["points", "gpx", "geojson", "activityId"].filter((k) => (input as Record<string, unknown>)[k] !== undefined)
      if (given.length !== 1) {
        return yield* Effect.fail(new BadInput(`Give one of "points", "gpx", "geojson", or "activityId" with "fromDistanceInMeter" and "toDistanceInMeter".`))
      }
      let source: SourceLine
      let sportGroup: SportGroup = input.sportGroup ?? "any"
      let field = given[0]!
      if (input.activityId !== undefined) {
        if (input.fromDistanceInMeter === undefined) return yield* Effect.fail(new BadInput(`"fromDistanceInMeter" is required with "activityId".`))
        if (input.toDistanceInMeter === undefined) return yield* Effect.fail(new BadInput(`"toDistanceInMeter" is required with "activityId".`))
        const cut = yield* stretch(input.activityId, input.fromDistanceInMeter, input.toDistanceInMeter)
        source = cut.source
        sportGroup = input.sportGroup ?? sportGroupOf(cut.sportType)
        field = "toDistanceInMeter"
      } else {
        source = yield* Effect.tryPromise({
          try: async () => (input.points !== undefined ? fromPoints(input.points) : input.gpx !== undefined ? await fromGpx(input.gpx) : fromGeoJson(input.geojson)),
          catch: (error) => (error instanceof BadInput ? error : new BadInput(`"${field}" could not be read.`))
        })
      }
      const line = lineOf(source.points)
      if (line.lengthInMeter < SEGMENT_LENGTH.min) {
        return yield* Effect.fail(new BadInput(`"${field}" makes a line of ${Math.round(line.lengthInMeter)} m: a segment is at least ${SEGMENT_LENGTH.min} m long.`))
      }
      if (line.lengthInMeter > SEGMENT_LENGTH.max) {
        return yield* Effect.fail(new BadInput(`"${field}" makes a line of ${Math.round(line.lengthInMeter / 1000)} km: a segment is at most ${SEGMENT_LENGTH.max / 1000} km long.`))
      }
      // the altitudes at the resampled points, where the source had one per given point
      const altitudes = source.altitudes === null ? null : resampledAltitudes(source.points, source.altitudes, line.points.length)
      const id = newSegmentId()
      yield* store.insertSegment({
        id,
        name: input.name,
        sportGroup,
        points: line.points.map(([lat, lon]) => [Math.round(lat * 1e7) / 1e7, Math.round(lon * 1e7) / 1e7] as const),
        altitudes,
        distance: line.lengthInMeter,
        ...climbOf(altitudes, line.lengthInMeter)
      })
      return id
    })

    const update = Effect.fn("Segments.update")(function*(id: string, patch: SegmentUpdate) {
      const row = yield* segmentRow(id)
      if (row === null) return false
      if (patch.name !== undefined) yield* sql`UPDATE segments SET name = ${patch.name} WHERE id = ${id}`
      if (patch.sportGroup !== undefined && patch.sportGroup !== row.sport_group) {
        yield* sql`UPDATE segments SET sport_group = ${patch.sportGroup} WHERE id = ${id}`
        yield* store.rematchSegment(id)
      }
      return true
    }, Effect.orDie)

    /** A page of the segment's leaderboard; null when there is no such segment. */
    const efforts = Effect.fn("Segments.efforts")(function*(id: string, params: SegmentEffortParams) {
      return yield* keptUntilCommit(["efforts", id, params], leaderboard(id, params))
    })

    const leaderboard = (id: string, params: SegmentEffortParams) => Effect.gen(function*() {
      if ((yield* sql`SELECT 1 FROM segments WHERE id = ${id}`).length === 0) return null
      const year = params["filters[year]"]
      const sports = params["filters[sportType]"]
      const where = sql.and([
        sql`e.segment_id = ${id}`,
        ...(year === undefined ? [] : [sql`a.start_date_local >= ${`${year}-01-01`} AND a.start_date_local < ${`${Number(year) + 1}-01-01`}`]),
        ...(sports === undefined || sports.length === 0 ? [] : [sql.in("a.sport_type", [...sports])])
      ])
      const order = params.sort === "date" ? "e.start_time DESC, e.id" : "e.elapsed_time, e.start_time, e.id"
      const page = params["pagination[page]"]
      const size = params["pagination[size]"]
      const [count] = yield* sql<{ n: number }>`SELECT count(*) AS n FROM segment_efforts e JOIN activities a ON a.id = e.activity_id WHERE ${where}`
      // the rank by time among the efforts selected, a window over them all before the page is cut
      const rows = yield* effortRows(
        sql`SELECT e.*, RANK() OVER (ORDER BY e.elapsed_time) AS rank FROM segment_efforts e JOIN activities a ON a.id = e.activity_id
          WHERE ${where} ORDER BY ${sql.literal(order)} LIMIT ${size} OFFSET ${(page - 1) * size}`,
        order
      )
      const total = count?.n ?? 0
      return { efforts: rows, pagination: { page, size, total, totalPages: Math.ceil(total / size) } } satisfies SegmentEffortPage
    }).pipe(Effect.orDie)

    /** The activity's efforts, ranked as they stood on its day; null when there is no such activity. */
    const activityEfforts = Effect.fn("Segments.activityEfforts")(function*(activityId: string) {
      return yield* keptUntilCommit(["activityEfforts", activityId], Effect.gen(function*() {
        if (!(yield* activities.exists(activityId))) return null
        return yield* effortRows(sql`SELECT e.*, ${sql.literal(RANK_AMONG_ALL)} AS rank FROM segment_efforts e WHERE e.activity_id = ${activityId}`, "e.start_offset")
      }))
    }, Effect.orDie)

    const climbs = Effect.fn("Segments.climbs")(function*(activityId: string) {
      return yield* keptUntilCommit(["climbs", activityId], Effect.gen(function*() {
        const track = yield* activities.track(activityId)
        if (track === null) return null
        const { altitude, distance, time } = track.streams ?? {}
        if (altitude === undefined || distance === undefined) return [] as Array<Climb>
        return findClimbs({ altitude, distance, time })
      }))
    }, Effect.orDie)

    /** A climb of the activity made a segment, named after it unless a name is given. */
    const climbSegment = Effect.fn("Segments.climbSegment")(function*(activityId: string, index: number, name: string | undefined) {
      const found = yield* climbs(activityId)
      if (found === null) return null
      const climb = found[index]
      if (climb === undefined) return yield* Effect.fail(new BadInput(`The activity has ${found.length} climbs: the climb's index is from 0 to ${found.length - 1}.`))
      const activity = yield* activities.track(activityId)
      return yield* create({
        name: name ?? `${activity?.name ?? "Climb"}: climb ${index + 1} (category ${climb.category})`,
        activityId,
        fromDistanceInMeter: climb.startDistanceInMeter,
        toDistanceInMeter: climb.endDistanceInMeter
      })
    })

    return { get, list, create, update, remove: store.removeSegment, efforts, activityEfforts, climbs, climbSegment } as const
  })
}) {}

/** Altitudes given at the source's points, read at the resampled line's points (by the share of the length). */
const resampledAltitudes = (points: ReadonlyArray<LatLng>, altitudes: ReadonlyArray<number>, count: number) => {
  const line = lineOf(points)
  const cumulative: Array<number> = [0]
  for (let i = 1; i < points.length; i++) {
    cumulative.push(cumulative[i - 1]! + line.ruler.distance([points[i - 1]![1], points[i - 1]![0]], [points[i]![1], points[i]![0]]))
  }
  return Array.from({ length: count }, (_, k) => {
    const at = Math.min(line.lengthInMeter, k * 10)
    const i = Math.max(1, cumulative.findIndex((d) => d >= at))
    const span = cumulative[i]! - cumulative[i - 1]!
    const t = span <= 0 ? 0 : (at - cumulative[i - 1]!) / span
    return Math.round((altitudes[i - 1]! + (altitudes[i]! - altitudes[i - 1]!) * t) * 10) / 10
  })
}
