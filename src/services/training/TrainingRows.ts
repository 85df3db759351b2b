import type { SportType } from "../../schema/SportType.ts"
import type { TrainingBasis } from "../../schema/TrainingBasis.ts"
import type { ActivitySummaryForTraining, ThresholdSet } from "./TrainingFigures.ts"

/**
 * How the training tables' rows read back: a set of thresholds, an activity's basis. Shared by
 * the writer (TrainingStore, TrainingRecompute) and the reads (TrainingReads).
 */

export const THRESHOLD_COLUMNS = `"on", cycling_ftp, running_ftp, max_heart_rate, resting_heart_rate, lactate_threshold_heart_rate`

const intOrNull = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? Math.round(v) : null)

/** A set of thresholds from its row's values, in THRESHOLD_COLUMNS order. */
export const thresholdSetOf = (values: ReadonlyArray<unknown>): ThresholdSet => ({
  on: String(values[0]),
  cyclingFtp: intOrNull(values[1]),
  runningFtp: intOrNull(values[2]),
  maxHeartRate: intOrNull(values[3]),
  restingHeartRate: intOrNull(values[4]),
  lactateThresholdHeartRate: intOrNull(values[5])
})

/** The row of a set of thresholds. */
export const thresholdRow = (set: ThresholdSet) => ({
  on: set.on,
  cycling_ftp: set.cyclingFtp,
  running_ftp: set.runningFtp,
  max_heart_rate: set.maxHeartRate,
  resting_heart_rate: set.restingHeartRate,
  lactate_threshold_heart_rate: set.lactateThresholdHeartRate
})

/**
 * The basis columns of `activity_training` (as `t`) and `activity_histograms` (as `h`), in the
 * order `basisOf` reads them (the power curve is a table of its own).
 */
export const BASIS_COLUMNS = "t.version, t.power_seconds, t.normalized_power, t.work, h.power, t.heart_rate_seconds, h.heart_rate, t.grade_adjusted_distance"

const histogram = (v: unknown): Array<number> => {
  try {
    const parsed: unknown = typeof v === "string" ? JSON.parse(v) : null
    return Array.isArray(parsed) ? parsed.map((x) => (typeof x === "number" && Number.isFinite(x) ? x : 0)) : []
  } catch {
    return []
  }
}

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null)

/** The stored basis from BASIS_COLUMNS' values and the activity's power-curve rows. */
export const basisOf = (values: ReadonlyArray<unknown>, curve: ReadonlyArray<readonly [number, number]>): TrainingBasis => {
  const [version, powerSeconds, np, work, powerHistogram, heartRateSeconds, heartRateHistogram, gad] = values
  return {
    version: intOrNull(version) ?? 0,
    power: num(powerSeconds) === null
      ? null
      : { seconds: num(powerSeconds)!, normalizedPower: num(np), work: num(work) ?? 0, curve, histogram: histogram(powerHistogram) },
    heartRate: num(heartRateSeconds) === null ? null : { seconds: num(heartRateSeconds)!, histogram: histogram(heartRateHistogram) },
    gradeAdjustedDistance: num(gad)
  }
}

/** The basis columns' values of an `activity_training` row. */
export const basisRow = (basis: TrainingBasis) => ({
  version: basis.version,
  power_seconds: basis.power?.seconds ?? null,
  normalized_power: basis.power?.normalizedPower ?? null,
  work: basis.power?.work ?? null,
  heart_rate_seconds: basis.heartRate?.seconds ?? null,
  grade_adjusted_distance: basis.gradeAdjustedDistance
})

/** The values of an `activity_histograms` row. */
export const histogramsRow = (basis: TrainingBasis) => ({
  power: basis.power === null ? null : JSON.stringify(basis.power.histogram),
  heart_rate: basis.heartRate === null ? null : JSON.stringify(basis.heartRate.histogram)
})

/** The activity columns a training figure reads, in the order `summaryOf` reads them. */
export const SUMMARY_COLUMNS = "sport_type, start_date_local, moving_time, average_heart_rate, date_unknown"

export const summaryOf = (values: ReadonlyArray<unknown>): ActivitySummaryForTraining & { readonly day: string } => ({
  sportType: values[0] as SportType,
  day: String(values[1]).slice(0, 10),
  movingTimeInSeconds: num(values[2]) ?? 0,
  averageHeartRate: num(values[3]),
  dateUnknown: values[4] === 1
})
