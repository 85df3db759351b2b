import { RIDES, RUNS, type SportType } from "../../schema/SportType.ts"
import type { TrainingBasis } from "../../schema/TrainingBasis.ts"

/**
 * The figures of an activity that depend on the athlete's thresholds, from its stored
 * TrainingBasis and summary: plain arithmetic, microseconds an activity, so that a change of
 * thresholds recomputes a whole history at once.
 */

/** A set of thresholds as stored: in force from `on` until the next set's date. */
export interface ThresholdSet {
  readonly on: string
  readonly cyclingFtp: number | null
  readonly runningFtp: number | null
  readonly maxHeartRate: number | null
  readonly restingHeartRate: number | null
  readonly lactateThresholdHeartRate: number | null
}

/** What an activity's figures read of its summary. */
export interface ActivitySummaryForTraining {
  readonly sportType: SportType
  readonly movingTimeInSeconds: number
  readonly averageHeartRate: number | null
  /** its date is unknown: it has no day to load */
  readonly dateUnknown?: boolean
}

export type TrainingLoadSource = "power" | "heartRate"

/** The set in force on `day` (YYYY-MM-DD) among `sets` sorted by date, oldest first: the latest dated on or before it. */
export const thresholdsOn = (sets: ReadonlyArray<ThresholdSet>, day: string): ThresholdSet | null => {
  let found: ThresholdSet | null = null
  for (const set of sets) {
    if (set.on > day) break
    found = set
  }
  return found
}

/** The FTP that applies to a sport: cycling FTP for rides, running FTP for runs, none for other sports. */
export const ftpFor = (sport: SportType, set: ThresholdSet | null): number | null =>
  set === null ? null : RIDES.has(sport) ? set.cyclingFtp : RUNS.has(sport) ? set.runningFtp : null

/** Coggan's intensity factor: normalized power over FTP. */
export const intensityFactor = (np: number, ftp: number): number => np / ftp

/**
 * Coggan's training stress score (as GoldenCheetah's Coggan.cpp computes it):
 * seconds × NP × IF / (FTP × 3600) × 100, one hour at FTP scoring 100.
 */
export const trainingStressScore = (seconds: number, np: number, ftp: number): number =>
  (seconds * np * intensityFactor(np, ftp)) / (ftp * 3600) * 100

/** Banister's sex factor, as GoldenCheetah applies it by default (1.67 for women). */
const BANISTER_K = 1.92

/**
 * Banister's training impulse (Morton/Banister with Green et al.'s coefficient, as
 * GoldenCheetah's TRIMPPoints.cpp computes it): minutes × x × 0.64 × e^(1.92·x), x the
 * heart-rate reserve fraction (HRavg − HRrest) / (HRmax − HRrest); 0 below the resting rate.
 */
export const banisterTrimp = (minutes: number, heartRate: number, rest: number, max: number): number => {
  const x = (heartRate - rest) / (max - rest)
  return heartRate < rest ? 0 : minutes * x * 0.64 * Math.exp(BANISTER_K * x)
}

/** hrTSS (GoldenCheetah's TRIMP(100)): the TRIMP scaled so that one hour at the lactate-threshold heart rate scores 100. */
export const heartRateStressScore = (trimp: number, lthr: number, rest: number, max: number): number =>
  (100 * trimp) / banisterTrimp(60, lthr, rest, max)

export interface TrainingFigures {
  readonly ftp: number | null
  readonly intensityFactor: number | null
  readonly trainingStressScore: number | null
  readonly trimp: number | null
  readonly heartRateStressScore: number | null
  readonly trainingLoad: number | null
  readonly trainingLoadSource: TrainingLoadSource | null
}

/** The parts of a basis these figures need (a stored row reads only these). */
export interface PowerFigures {
  readonly seconds: number
  readonly normalizedPower: number | null
}

/**
 * Every threshold-dependent figure of an activity: IF and TSS where there is power and an FTP for
 * its sport; TRIMP and hrTSS where there is an average heart rate and the heart rates they need;
 * the training load is the TSS, else the hrTSS, else none (always none when the date is unknown).
 */
export const trainingFigures = (
  power: PowerFigures | null,
  summary: ActivitySummaryForTraining,
  set: ThresholdSet | null
): TrainingFigures => {
  const ftp = ftpFor(summary.sportType, set)
  const np = power?.normalizedPower ?? null
  const withPower = power !== null && np !== null && ftp !== null
  const tss = withPower ? trainingStressScore(power.seconds, np, ftp) : null
  const hr = summary.averageHeartRate
  const rest = set?.restingHeartRate ?? null
  const max = set?.maxHeartRate ?? null
  const lthr = set?.lactateThresholdHeartRate ?? null
  const trimp = hr !== null && hr > 0 && rest !== null && max !== null && max > rest && summary.movingTimeInSeconds > 0
    ? banisterTrimp(summary.movingTimeInSeconds / 60, hr, rest, max)
    : null
  const hrTss = trimp !== null && lthr !== null && lthr > rest! && max! > lthr ? heartRateStressScore(trimp, lthr, rest!, max!) : null
  return {
    ftp,
    intensityFactor: withPower ? intensityFactor(np, ftp) : null,
    trainingStressScore: tss,
    trimp,
    heartRateStressScore: hrTss,
    // the load of an activity whose date is unknown would fall on its stand-in day: it has none
    trainingLoad: summary.dateUnknown === true ? null : tss ?? hrTss,
    trainingLoadSource: summary.dateUnknown === true ? null : tss !== null ? "power" : hrTss !== null ? "heartRate" : null
  }
}

export interface Zone {
  readonly zone: number
  readonly name: string
  /** lower bound, included */
  readonly min: number
  /** upper bound, excluded; null for the last zone */
  readonly max: number | null
  readonly timeInSeconds: number
}

/** Coggan's power zones: lower bounds in % of FTP (GoldenCheetah's Zones.cpp defaults). */
export const POWER_ZONES: ReadonlyArray<readonly [number, string]> = [
  [0, "Active recovery"], [55, "Endurance"], [75, "Tempo"], [90, "Threshold"], [105, "VO2max"], [120, "Anaerobic capacity"], [150, "Neuromuscular"]
]

/** Heart-rate zones: lower bounds in % of maximum heart rate. */
export const HEART_RATE_ZONES: ReadonlyArray<readonly [number, string]> = [
  [0, "Recovery"], [60, "Endurance"], [70, "Aerobic"], [80, "Threshold"], [90, "Maximum"]
]

/**
 * Time in each zone from the seconds spent at each whole value (`histogram`, index = value):
 * zone k holds the values from its lower bound (included: a value on a bound belongs to the
 * upper zone) up to the next zone's. Bounds are `percents` of `reference`.
 */
export const zonesOf = (
  histogram: ReadonlyArray<number>,
  reference: number,
  zones: ReadonlyArray<readonly [number, string]>
): Array<Zone> => {
  const bounds = zones.map(([percent]) => (reference * percent) / 100)
  const times = new Array<number>(zones.length).fill(0)
  let k = 0
  for (let value = 0; value < histogram.length; value++) {
    while (k + 1 < bounds.length && value >= bounds[k + 1]!) k++
    times[k]! += histogram[value]!
  }
  return zones.map(([, name], i) => ({
    zone: i + 1,
    name,
    min: Math.round(bounds[i]! * 10) / 10,
    max: i + 1 < bounds.length ? Math.round(bounds[i + 1]! * 10) / 10 : null,
    timeInSeconds: times[i]!
  }))
}

/** The basis's power zones for this FTP, or null without power or FTP. */
export const powerZones = (basis: TrainingBasis, ftp: number | null): Array<Zone> | null =>
  basis.power === null || ftp === null ? null : zonesOf(basis.power.histogram, ftp, POWER_ZONES)

/** The basis's heart-rate zones for this maximum heart rate, or null without heart rate or maximum. */
export const heartRateZones = (basis: TrainingBasis, max: number | null): Array<Zone> | null =>
  basis.heartRate === null || max === null ? null : zonesOf(basis.heartRate.histogram, max, HEART_RATE_ZONES)
