import polyline from "@mapbox/polyline"
import * as Effect from "effect/Effect"
import simplify from "simplify-js"
import { RECORD_DISTANCES, effortName } from "../../schema/EffortDistances.ts"
import type { StatsPeriod } from "../../schema/QueryParams.ts"
import { ActivityFields as F, type WorldType } from "../../schema/ActivityFields.ts"
import { MILE, OUTDOOR_RIDES, OUTDOOR_RUNS, SPORT_TYPES, type SportType } from "../../schema/SportType.ts"
import type { Eddington, HeatmapRoute, PersonalRecord, Total } from "../../schema/StatsModels.ts"
import { type ActivitySearch, ActivityReads, filterOf } from "../activities/ActivityReads.ts"
import { placeholders, ReadConnection } from "../platform/ReadConnection.ts"

/**
 * The athlete's statistics over the stored activities, read on the read connection: totals per
 * period and sport type, records over the standard distances, the Eddington number and the
 * routes of the heatmap. Periods and days are those of the local start date: what is counted by
 * date reads `dated_activities`, which leaves out the activities whose date is unknown.
 */

export type ActivityFilter = Omit<ActivitySearch, "page" | "size">

/** The period of the local start date `start_date_local` in SQL: ISO week, month or year. */
const PERIOD_SQL: Record<StatsPeriod, string> = {
  week: "strftime('%G-W%V', substr(start_date_local, 1, 10))",
  month: "substr(start_date_local, 1, 7)",
  year: "substr(start_date_local, 1, 4)"
}

/** The sports done in a virtual world, whose coordinates are no real place. */
const VIRTUAL_SPORTS: ReadonlyArray<SportType> = SPORT_TYPES.filter((s) => s.startsWith("Virtual"))

/** Douglas-Peucker tolerance of the heatmap's routes, in degrees (about 20 m). */
export const HEATMAP_TOLERANCE_DEG = 0.0002

/** The largest n with at least n of `daily` values at or above n, and the days more that n + 1 needs. */
export const eddingtonOf = (daily: ReadonlyArray<number>): { readonly number: number; readonly daysNeededForNext: number } => {
  const sorted = [...daily].sort((a, b) => b - a)
  let n = 0
  while (n < sorted.length && sorted[n]! >= n + 1) n++
  const next = n + 1
  const reached = sorted.filter((d) => d >= next).length
  return { number: n, daysNeededForNext: next - reached }
}

/** An encoded polyline thinned for a map of the whole history (a few points per kilometre). */
export const heatmapPolyline = (encoded: string): string => {
  const points = polyline.decode(encoded).map(([lat, lng]) => ({ x: lng, y: lat }))
  const kept = points.length > 2 ? simplify(points, HEATMAP_TOLERANCE_DEG, false) : points
  return polyline.encode(kept.map((p) => [p.y, p.x] as [number, number]), 5)
}

/**
 * The kinds of records, each its own: a treadmill's or a trainer's distance is the machine's
 * reckoning (a virtual world's, a belt's), not ground covered, so indoor efforts keep records of
 * their own apart from the outdoor ones.
 */
export const DISCIPLINES = [
  { discipline: "run", words: "run", sports: OUTDOOR_RUNS, distances: RECORD_DISTANCES.run },
  { discipline: "ride", words: "ride", sports: OUTDOOR_RIDES, distances: RECORD_DISTANCES.ride },
  { discipline: "virtualRun", words: "virtual run", sports: new Set<SportType>(["VirtualRun"]), distances: RECORD_DISTANCES.run },
  { discipline: "virtualRide", words: "virtual ride", sports: new Set<SportType>(["VirtualRide"]), distances: RECORD_DISTANCES.ride }
] as const

/** A discipline as a person reads it: "run", "virtual ride". */
export const disciplineWords = (discipline: typeof DISCIPLINES[number]["discipline"]): string =>
  DISCIPLINES.find((d) => d.discipline === discipline)!.words

/** Simplified routes kept per activity while its stored polyline is the same. */
interface KeptRoute {
  readonly source: string
  readonly simplified: string
}

export class Stats extends Effect.Service<Stats>()("services/stats/Stats", {
  effect: Effect.gen(function*() {
    const db = yield* ReadConnection
    // the list's filters, its word search included (which ActivityReads teaches the connection)
    yield* ActivityReads

    const totals = Effect.fn("Stats.totals")(function*(period: StatsPeriod, filter: ActivityFilter) {
      const { where, params } = filterOf(filter)
      const rows = db.rows(
        `SELECT ${PERIOD_SQL[period]} AS period, sport_type, COUNT(*), SUM(ROUND(distance)), SUM(ROUND(moving_time)),
          SUM(ROUND(elapsed_time)), SUM(ROUND(elevation))
        FROM dated_activities${where} GROUP BY period, sport_type ORDER BY period DESC, sport_type`,
        params
      )
      return rows.map(([period, sportType, count, distance, moving, elapsed, elevation]): Total => ({
        period: period as string,
        sportType: sportType as SportType,
        count: count as number,
        distanceInMeter: distance as number,
        movingTimeInSeconds: moving as number,
        elapsedTimeInSeconds: elapsed as number,
        elevationInMeter: elevation as number
      }))
    })

    const records = Effect.fn("Stats.records")(function*(sportTypes: ReadonlyArray<string> | undefined) {
      const found: Array<PersonalRecord> = []
      for (const { discipline, sports, distances } of DISCIPLINES) {
        const asked = [...sports].filter((s) => sportTypes === undefined || sportTypes.length === 0 || sportTypes.includes(s))
        if (asked.length === 0) continue
        // fastest first along the index; the first effort of a sport asked for is the record
        const sql = `SELECT b.time_in_seconds, b.start_offset, a.id, a.sport_type, a.start_date_local, a.name
          FROM activity_best_efforts b INDEXED BY activity_best_efforts_fastest CROSS JOIN dated_activities a ON a.id = b.activity_id
          WHERE b.distance = ? AND a.sport_type IN (${placeholders(asked.length)}) AND a.exclude_from_records = 0
          ORDER BY b.time_in_seconds LIMIT 1`
        for (const distance of distances) {
          const row = db.rows(sql, [distance, ...asked])[0]
          if (row === undefined) continue
          const [time, offset, activityId, sportType, startDateLocal, activityName] = row
          found.push({
            discipline,
            name: effortName(distance),
            distanceInMeter: distance,
            elapsedTimeInSeconds: time as number,
            activityId: activityId as string,
            sportType: sportType as SportType,
            startDateLocal: startDateLocal as string,
            startOffsetInSeconds: offset as number,
            activityName: F.name.read(activityName)
          })
        }
      }
      return found
    })

    const eddington = Effect.fn("Stats.eddington")(function*(sportTypes: ReadonlyArray<string> | undefined) {
      const { where, params } = filterOf({ sportTypes })
      const daily = db.rows(`SELECT SUM(distance) FROM dated_activities${where} GROUP BY substr(start_date_local, 1, 10)`, params)
        .map((r) => r[0] as number)
      const km = eddingtonOf(daily.map((m) => m / 1000))
      const mi = eddingtonOf(daily.map((m) => m / MILE))
      return { km: km.number, mi: mi.number, daysNeededForNextKm: km.daysNeededForNext, daysNeededForNextMi: mi.daysNeededForNext } satisfies Eddington
    })

    const kept = new Map<string, KeptRoute>()
    /**
     * The routes of one world: the real one draws no route of a virtual world (Zwift's Watopia
     * lies in the open sea) nor of a virtual sport whose world was not recognised (a trainer's
     * made-up coordinates); a virtual world draws its own.
     */
    const heatmap = Effect.fn("Stats.heatmap")(function*(filter: ActivityFilter, worldType: WorldType = "realWorld") {
      const { where, params } = filterOf(filter)
      // a route whose date is unknown is drawn on the whole history's map, not on a period's
      const dated = filter.from !== undefined || filter.to !== undefined
      const world = worldType === "realWorld"
        ? `world_type = 'realWorld' AND sport_type NOT IN (${VIRTUAL_SPORTS.map((s) => `'${s}'`).join(", ")})`
        : "world_type = ?"
      const rows = db.rows(
        `SELECT id, sport_type, encoded_polyline FROM ${dated ? "dated_activities" : "activities"}${where === "" ? " WHERE" : `${where} AND`} encoded_polyline IS NOT NULL
          AND ${world} ORDER BY start_time DESC, id DESC`,
        worldType === "realWorld" ? params : [...params, worldType]
      )
      const seen = new Set<string>()
      const routes = rows.map(([id, sportType, encoded]): HeatmapRoute => {
        const activityId = id as string
        const source = encoded as string
        seen.add(activityId)
        let route = kept.get(activityId)
        if (route === undefined || route.source !== source) {
          route = { source, simplified: heatmapPolyline(source) }
          kept.set(activityId, route)
        }
        return { activityId, sportType: sportType as SportType, encodedPolyline: route.simplified }
      })
      // a whole-history answer of the real world: what it did not name is gone (or filtered out, and cheap to redo)
      if (
        worldType === "realWorld" && filter.from === undefined && filter.to === undefined && filter.sportTypes === undefined &&
        filter.hasGpx === undefined && filter.search === undefined
      ) {
        for (const id of kept.keys()) if (!seen.has(id)) kept.delete(id)
      }
      return routes
    })

    return { totals, records, eddington, heatmap } as const
  })
}) {}
