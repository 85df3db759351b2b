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
}

/** One of a segment's efforts, as its places are counted: when, and how long it took. */
interface Past {
  readonly id: string
  readonly start_time: number
  readonly elapsed_time: number
}

/** An effort's place among the segment's efforts up to its date (1st, 2nd, 3rd, or 4 for any later), and their count then. */
interface Then {
  readonly place: number
  readonly count: number
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
}

const round1 = (n: number | null) => (n === null ? null : Math.round(n * 10) / 10)
const PLACES: ReadonlyArray<PersonalRecord> = ["personalRecord", "second", "third"]

/**
 * The places then of the `wanted` efforts, in one pass over the segment's efforts by date
 * (`history`, sorted by start time): the three best times so far are all a place needs, since
 * past the third an effort is no record. Efforts of the same start are counted together.
 */
const placesThen = (history: ReadonlyArray<Past>, wanted: ReadonlySet<string>): Map<string, Then> => {
  const out = new Map<string, Then>()
  const best: Array<number> = []
  for (let i = 0; i < history.length && out.size < wanted.size;) {
    let j = i
    while (j < history.length && history[j]!.start_time === history[i]!.start_time) j++
    for (let k = i; k < j; k++) {
      best.push(history[k]!.elapsed_time)
      best.sort((a, b) => a - b)
      if (best.length > 3) best.length = 3
    }
    for (let k = i; k < j; k++) {
      const e = history[k]!
      if (!wanted.has(e.id)) continue
      let place = 1
      for (const t of best) if (t < e.elapsed_time) place++
      out.set(e.id, { place, count: j })
    }
    i = j
  }
  return out
}

const effortOf = (row: EffortRow, then: Then): SegmentEffort => ({
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
  effortsAtDate: then.count,
  personalRecord: PLACES[then.place - 1] ?? null
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

    /** The segment's efforts by date, as their places are counted. */
    const historyOf = (segmentId: string) =>
      sql<Past>`SELECT e.id, e.start_time, e.elapsed_time FROM segment_efforts e JOIN dated_activities a ON a.id = e.activity_id
        WHERE e.segment_id = ${segmentId} ORDER BY e.start_time, e.id`

    /**
     * Efforts with their rank by time among those `where` selects (a window over them, before
     * the page is cut), `order`ed, `page` of them when given.
     */
    const effortRows = (where: Statement.Fragment, order: Statement.Fragment, page: { readonly limit: number; readonly offset: number } | null = null) =>
      sql<EffortRow>`
        SELECT e.*, s.name AS segment_name, a.name AS activity_name, a.sport_type, a.start_date_local,
          RANK() OVER (PARTITION BY e.segment_id ORDER BY e.elapsed_time) AS rank
        FROM segment_efforts e JOIN segments s ON s.id = e.segment_id JOIN dated_activities a ON a.id = e.activity_id
        WHERE ${where} ORDER BY ${order} ${page === null ? sql.literal("") : sql`LIMIT ${page.limit} OFFSET ${page.offset}`}`

    /** The rows as the API shows them, each with its place among its segment's efforts up to its date. */
    const withPlaces = (rows: ReadonlyArray<EffortRow>) =>
      Effect.gen(function*() {
        const then = new Map<string, Then>()
        for (const segmentId of new Set(rows.map((r) => r.segment_id))) {
          const wanted = new Set(rows.filter((r) => r.segment_id === segmentId).map((r) => r.id))
          for (const [id, t] of placesThen(yield* historyOf(segmentId), wanted)) then.set(id, t)
        }
        return rows.map((r) => effortOf(r, then.get(r.id) ?? { place: 1, count: 1 }))
      })

    /** One effort of a segment whose efforts by date are `history`: its rank by time among them all, its place then. */
    const effortIn = (history: ReadonlyArray<Past>, id: string) =>
      Effect.gen(function*() {
        const [row] = yield* sql<EffortRow>`
          SELECT e.*, s.name AS segment_name, a.name AS activity_name, a.sport_type, a.start_date_local, 0 AS rank
          FROM segment_efforts e JOIN segments s ON s.id = e.segment_id JOIN dated_activities a ON a.id = e.activity_id WHERE e.id = ${id}`
        if (row === undefined) return null
        let rank = 1
        for (const e of history) if (e.elapsed_time < row.elapsed_time) rank++
        return effortOf({ ...row, rank }, placesThen(history, new Set([id])).get(id) ?? { place: 1, count: 1 })
      })

    const summaryOf = (row: SegmentRow) =>
      Effect.gen(function*() {
        // the segment's efforts read once: their count, the best (the earliest of equal times) and the last
        const history = yield* historyOf(row.id)
        let best: Past | undefined
        for (const e of history) if (best === undefined || e.elapsed_time < best.elapsed_time) best = e
        const last = history[history.length - 1]
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
          effortCount: history.length,
          bestEffort: best === undefined ? null : yield* effortIn(history, best.id),
          lastEffort: last === undefined ? null : yield* effortIn(history, last.id),
          matching: {
            status: row.matching_cursor === null ? "done" : "matching",
            checkedActivities: row.matching_checked,
            totalActivities: row.matching_total
          },
          createdAt: new Date(row.created_at).toISOString()
        }
        return { segment, points, altitudes: row.altitudes === null ? null : (JSON.parse(row.altitudes) as Array<number>) }
      })

    const segmentRow = (id: string) => Effect.map(sql<SegmentRow>`SELECT * FROM segments WHERE id = ${id}`, (rows) => rows[0] ?? null)

    const get = Effect.fn("Segments.get")(function*(id: string) {
      const row = yield* segmentRow(id)
      if (row === null) return null
      const { altitudes, points, segment } = yield* summaryOf(row)
      return { ...segment, points, altitudes } satisfies SegmentDetail
    }, Effect.orDie)

    const list = Effect.fn("Segments.list")(function*(name: string | undefined) {
      const rows = yield* sql<SegmentRow>`SELECT * FROM segments
        ${name === undefined || name.trim() === "" ? sql.literal("") : sql`WHERE name LIKE ${`%${name.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`} ESCAPE '\\'`}
        ORDER BY created_at DESC, rowid DESC`
      const out: Array<Segment> = []
      for (const row of rows) out.push((yield* summaryOf(row)).segment)
      return out
    }, Effect.orDie)

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

    const efforts = Effect.fn("Segments.efforts")(function*(id: string, params: SegmentEffortParams) {
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
      const [count] = yield* sql<{ n: number }>`SELECT count(*) AS n FROM segment_efforts e JOIN dated_activities a ON a.id = e.activity_id WHERE ${where}`
      const rows = yield* effortRows(where, sql.literal(order), { limit: size, offset: (page - 1) * size })
      const total = count?.n ?? 0
      return { efforts: yield* withPlaces(rows), pagination: { page, size, total, totalPages: Math.ceil(total / size) } } satisfies SegmentEffortPage
    }, Effect.orDie)

    const activityEfforts = Effect.fn("Segments.activityEfforts")(function*(activityId: string) {
      const rows = (yield* effortRows(
        sql`e.segment_id IN (SELECT segment_id FROM segment_efforts WHERE activity_id = ${activityId})`,
        sql.literal("e.start_offset")
      )).filter((r) => r.activity_id === activityId)
      return yield* withPlaces(rows)
    }, Effect.orDie)

    const climbs = Effect.fn("Segments.climbs")(function*(activityId: string) {
      const track = yield* activities.track(activityId)
      if (track === null) return null
      const { altitude, distance, time } = track.streams ?? {}
      if (altitude === undefined || distance === undefined) return [] as Array<Climb>
      return findClimbs({ altitude, distance, time })
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

    const exists = Effect.fn("Segments.exists")(function*(id: string) {
      return (yield* sql`SELECT 1 FROM segments WHERE id = ${id}`).length > 0
    }, Effect.orDie)

    return { get, exists, list, create, update, remove: store.removeSegment, efforts, activityEfforts, climbs, climbSegment } as const
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
