import * as Effect from "effect/Effect"
import { RUNS, type SportType } from "../../schema/SportType.ts"
import type { TrainingBasis } from "../../schema/TrainingBasis.ts"
import type { ActivityAnalysis, PowerCurveAnswer, TrainingLoadAnswer } from "../../schema/TrainingModels.ts"
import { type ActivitySearch, ActivityReads, filterOf } from "../activities/ActivityReads.ts"
import { localInZone } from "../platform/LocalTime.ts"
import { AppConfig } from "../platform/AppConfig.ts"
import { ReadConnection } from "../platform/ReadConnection.ts"
import { makeVersionedCache } from "../platform/VersionedCache.ts"
import { estimatedFtp } from "./CriticalPower.ts"
import { fitnessAndFatigue } from "./FitnessFatigue.ts"
import { POWER_CURVE_DURATIONS } from "./TrainingBasis.ts"
import { heartRateZones, powerZones, type ThresholdSet, trainingFigures } from "./TrainingFigures.ts"
import { storedTrainingBasis } from "./storedTrainingBasis.ts"
import { BASIS_COLUMNS, basisOf, SUMMARY_COLUMNS, summaryOf, THRESHOLD_COLUMNS, thresholdSetOf } from "./TrainingRows.ts"

/**
 * The training analysis as the API reads it, on the read connection: one activity's analysis
 * (its threshold-dependent figures derived on each read from its stored basis and the
 * thresholds in force on its day, so that they are current the moment a threshold changes), the
 * power curve of a selection of activities, and the training load per day with fitness, fatigue
 * and form. Answers over many activities are kept until the next commit.
 */

export type ActivityFilter = Omit<ActivitySearch, "page" | "size">

const SWIMS: ReadonlySet<SportType> = new Set(["Swim", "OpenWaterSwim"])

const round = (x: number | null, decimals: number) => (x === null ? null : Math.round(x * 10 ** decimals) / 10 ** decimals)

const ONE_ACTIVITY = `SELECT a.distance, ${SUMMARY_COLUMNS.split(", ").map((c) => `a.${c}`).join(", ")}, t.activity_id, ${BASIS_COLUMNS}
  FROM activities a LEFT JOIN activity_training t ON t.activity_id = a.id LEFT JOIN activity_histograms h ON h.activity_id = a.id WHERE a.id = ?`
const STREAMS = `SELECT data FROM activity_streams WHERE activity_id = ?`
const CURVE = `SELECT duration, watts FROM activity_power_curve WHERE activity_id = ? ORDER BY duration`
const SET_ON = `SELECT ${THRESHOLD_COLUMNS} FROM athlete_thresholds WHERE "on" <= ? ORDER BY "on" DESC LIMIT 1`
const BEST_AT = `SELECT p.watts, p.activity_id, a.start_date_local FROM activity_power_curve p INDEXED BY activity_power_curve_best
  CROSS JOIN dated_activities a ON a.id = p.activity_id WHERE p.duration = ? ORDER BY p.watts DESC LIMIT 1`
const DAILY_LOADS = `SELECT day, SUM(training_load) FROM activity_training INDEXED BY activity_training_daily
  WHERE day <= ? AND training_load IS NOT NULL GROUP BY day ORDER BY day`
const FIRST_DAY = `SELECT t.day FROM activity_training t INDEXED BY activity_training_daily CROSS JOIN dated_activities a ON a.id = t.activity_id
  ORDER BY t.day LIMIT 1`

/** Answers kept until the next commit: a few hundred whole histories. */
const CACHE_BYTES = 8 * 1024 * 1024

const BEST_OF_SPORT_AT = `SELECT p.watts, p.activity_id, a.start_date_local FROM activity_power_curve p INDEXED BY activity_power_curve_best_by_sport
  CROSS JOIN dated_activities a ON a.id = p.activity_id WHERE p.duration = ? AND p.sport_type = ? ORDER BY p.watts DESC LIMIT 1`

/** The sports a filter selects when it selects by nothing else (every sport: an empty list); undefined when it filters otherwise. */
const sportsOnly = (filter: ActivityFilter): ReadonlyArray<string> | undefined =>
  filter.from === undefined && filter.to === undefined && filter.hasGpx === undefined && (filter.search === undefined || filter.search.trim() === "")
    ? filter.sportTypes ?? []
    : undefined

export class TrainingReads extends Effect.Service<TrainingReads>()("services/training/TrainingReads", {
  effect: Effect.gen(function*() {
    const db = yield* ReadConnection
    const config = yield* AppConfig
    // the list's filters, its word search included (which ActivityReads teaches the connection)
    yield* ActivityReads
    const kept = makeVersionedCache<PowerCurveAnswer | TrainingLoadAnswer>({
      version: db.dataVersion,
      capacity: CACHE_BYTES,
      weigh: (_key, value) => 64 * ("days" in value ? value.days.length : value.powerCurve.length) + 64
    })

    const thresholdsOn = (day: string): ThresholdSet | null => {
      const row = db.rows(SET_ON, [day])[0]
      return row === undefined ? null : thresholdSetOf(row)
    }

    /** Today in the configured time zone: the last day of the training load by default. */
    const today = () => localInZone(Date.now(), config.timeZone).slice(0, 10)

    const analysis = Effect.fn("TrainingReads.analysis")(function*(id: string) {
      const row = db.rows(ONE_ACTIVITY, [id])[0]
      if (row === undefined) return null
      const distance = row[0] as number
      const summary = summaryOf(row.slice(1, 6))
      const curve = db.rows(CURVE, [id]).map(([d, w]) => [d as number, w as number] as const)
      // analysed once the daemon has caught up with activities stored before the analysis existed
      const basis: TrainingBasis = row[6] === null
        ? storedTrainingBasis((db.rows(STREAMS, [id])[0]?.[0] ?? null) as Uint8Array | null)
        : basisOf(row.slice(7), curve)
      const set = thresholdsOn(summary.day)
      const figures = trainingFigures(basis.power, summary, set)
      const moving = summary.movingTimeInSeconds
      const gad = basis.gradeAdjustedDistance
      const np = basis.power?.normalizedPower ?? null
      return {
        activityId: id,
        sportType: summary.sportType,
        thresholds: set,
        ftp: figures.ftp,
        normalizedPower: np === null ? null : Math.round(np),
        intensityFactor: round(figures.intensityFactor, 3),
        trainingStressScore: round(figures.trainingStressScore, 1),
        trimp: round(figures.trimp, 1),
        heartRateStressScore: round(figures.heartRateStressScore, 1),
        trainingLoad: round(figures.trainingLoad, 1),
        trainingLoadSource: figures.trainingLoadSource,
        workInKilojoules: basis.power === null ? null : round(basis.power.work / 1000, 1),
        powerCurve: basis.power === null ? null : basis.power.curve.map(([d, w]) => ({ durationInSeconds: d, watts: Math.round(w) })),
        powerZones: powerZones(basis, figures.ftp)?.map((z) => ({ zone: z.zone, name: z.name, minWatts: z.min, maxWatts: z.max, timeInSeconds: z.timeInSeconds })) ?? null,
        heartRateZones: heartRateZones(basis, set?.maxHeartRate ?? null)?.map((z) => ({
          zone: z.zone, name: z.name, minHeartRate: z.min, maxHeartRate: z.max, timeInSeconds: z.timeInSeconds
        })) ?? null,
        gradeAdjustedPaceInSecondsPerKm: RUNS.has(summary.sportType) && gad !== null && gad > 0 && moving > 0 ? round(moving / (gad / 1000), 1) : null,
        paceInSecondsPer100m: SWIMS.has(summary.sportType) && distance > 0 && moving > 0 ? round(moving / (distance / 100), 1) : null
      } satisfies ActivityAnalysis
    })

    /**
     * The best at each duration: over the whole history (of some sports), each duration's best
     * (of each sport) read first from an index; over another selection (a range of dates), the
     * bests of the selected activities grouped by duration.
     */
    const bestsOf = (filter: ActivityFilter): Array<readonly [number, number, string, string]> => {
      const sports = sportsOnly(filter)
      if (sports !== undefined) {
        return POWER_CURVE_DURATIONS.flatMap((d) => {
          const rows = sports.length === 0 ? db.rows(BEST_AT, [d]) : sports.flatMap((sport) => db.rows(BEST_OF_SPORT_AT, [d, sport]))
          const best = rows.reduce<Array<unknown> | undefined>((b, r) => (b === undefined || (r[0] as number) > (b[0] as number) ? r : b), undefined)
          return best === undefined ? [] : [[d, best[0] as number, best[1] as string, best[2] as string] as const]
        })
      }
      const { where, params } = filterOf(filter)
      // the list's filters name the activities' columns unqualified: they select in a query of their own
      return db.rows(
        `SELECT p.duration, MAX(p.watts), p.activity_id, a.start_date_local FROM (SELECT id, start_date_local FROM dated_activities${where}) a
          CROSS JOIN activity_power_curve p ON p.activity_id = a.id GROUP BY p.duration ORDER BY p.duration`,
        params
      ).map(([d, w, id, start]) => [d as number, w as number, id as string, start as string] as const)
    }

    const powerCurve = Effect.fn("TrainingReads.powerCurve")(function*(filter: ActivityFilter) {
      return kept(`curve ${JSON.stringify(filter)}`, () => {
        const bests = bestsOf(filter)
        const estimate = estimatedFtp(bests.map(([d, w]) => [d, w] as const))
        return {
          powerCurve: bests.map(([d, w, activityId, start]) => ({ durationInSeconds: d, watts: Math.round(w), activityId, on: start.slice(0, 10) })),
          estimatedFtp: estimate?.watts ?? null,
          estimatedFtpMethod: estimate?.method ?? null
        } satisfies PowerCurveAnswer
      }) as PowerCurveAnswer
    })

    /** The first day with an activity, or null when there is none. */
    const firstDay = (): string | null => (db.rows(FIRST_DAY, [])[0]?.[0] as string | null | undefined) ?? null

    /** Rows from `from` to `to`, the averages run from the first activity on. */
    const trainingLoad = Effect.fn("TrainingReads.trainingLoad")(function*(from: string, to: string) {
      return kept(`load ${from} ${to}`, () => {
        const loads = db.rows(DAILY_LOADS, [to]).map(([day, load]) => [day as string, load as number] as const)
        return { days: fitnessAndFatigue(loads, from, to) } satisfies TrainingLoadAnswer
      }) as TrainingLoadAnswer
    })

    return { analysis, powerCurve, trainingLoad, firstDay, today } as const
  })
}) {}
