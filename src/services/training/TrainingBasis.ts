import type { ActivityStreams } from "../../schema/ActivityDraft.ts"
import type { HeartRateBasis, PowerBasis, TrainingBasis } from "../../schema/TrainingBasis.ts"
import { gradeAdjustedDistance } from "./Minetti.ts"

/**
 * The threshold-independent part of an activity's training analysis (TrainingBasis), from its
 * streams. Plain functions without the Effect runtime: the parse worker computes it from every
 * sample, before long streams are thinned for storage.
 *
 * Everything is read from one series per sensor on a 1-second grid: a device records every 1 to
 * 10 s (smart recording) or several times a second, and a grid makes "30 seconds" or "20
 * minutes" a count of values. Second s holds the last reading at or before it. An interval of
 * over a minute between two samples is a pause (the timer stood still, as the activity's moving
 * time counts it): its seconds are left out and the series goes on after it, as GoldenCheetah's
 * metrics run over the recorded points.
 */

/** Bumped whenever what is stored changes: older rows are computed again from the stored streams. */
export const TRAINING_BASIS_VERSION = 1

/** An interval between samples longer than this (s) is a pause, not recorded time. */
export const MAX_RECORDED_INTERVAL_S = 60

/** Coggan's rolling window (s). */
const NP_WINDOW_S = 30

/**
 * The durations of the power curve (s): 1, 5, 10, 15, 30 s, 1, 2, 3, 5, 8, 10, 12, 20, 30, 45,
 * 60 min, then 90 min and 2 to 24 h; each one that fits in the recording.
 */
export const POWER_CURVE_DURATIONS: ReadonlyArray<number> = [
  1, 5, 10, 15, 30, 60, 120, 180, 300, 480, 600, 720, 1200, 1800, 2700, 3600,
  5400, 7200, 10_800, 14_400, 18_000, 21_600, 28_800, 43_200, 86_400
]

/**
 * The values of a stream on a 1-second grid from its first sample: second s takes the reading of
 * the last sample at or before it; the seconds inside a pause (an interval over
 * MAX_RECORDED_INTERVAL_S) are left out, the sample that ends it starting the next stretch.
 */
export const secondlySeries = (time: ReadonlyArray<number>, values: ReadonlyArray<number>): Float64Array => {
  const n = Math.min(time.length, values.length)
  if (n === 0) return new Float64Array(0)
  const out: Array<number> = [values[0]!]
  // the grid second of the last value written, counted from the first sample
  let second = 0
  const t0 = time[0]!
  for (let i = 1; i < n; i++) {
    const t = time[i]! - t0
    const dt = time[i]! - time[i - 1]!
    if (!(dt > 0)) continue
    const at = Math.floor(t)
    if (dt > MAX_RECORDED_INTERVAL_S) {
      // a pause: the series resumes with this sample
      out.push(values[i]!)
      second = at
      continue
    }
    // the seconds up to this sample hold the previous reading, this one takes its own
    for (let s = second + 1; s < at; s++) out.push(values[i - 1]!)
    if (at > second) {
      out.push(values[i]!)
      second = at
    }
  }
  return Float64Array.from(out)
}

/**
 * Coggan's normalized power (Allen & Coggan, "Training and Racing with a Power Meter"; as
 * TrainingPeaks computes it): the 30-second rolling mean of power from the 30th second on,
 * raised to the fourth power, averaged, and the fourth root taken. Null under 30 s of power.
 */
export const normalizedPower = (series: Float64Array): number | null => {
  const n = series.length
  if (n < NP_WINDOW_S) return null
  let window = 0
  for (let i = 0; i < NP_WINDOW_S; i++) window += series[i]!
  let sum = (window / NP_WINDOW_S) ** 4
  for (let i = NP_WINDOW_S; i < n; i++) {
    window += series[i]! - series[i - NP_WINDOW_S]!
    sum += (window / NP_WINDOW_S) ** 4
  }
  return (sum / (n - NP_WINDOW_S + 1)) ** 0.25
}

/** The best mean over each of `durations` (s) that fits in the series, [duration, mean]. */
export const bestMeans = (series: Float64Array, durations: ReadonlyArray<number>): Array<readonly [number, number]> => {
  const n = series.length
  const prefix = new Float64Array(n + 1)
  for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i]! + series[i]!
  const out: Array<readonly [number, number]> = []
  for (const d of durations) {
    if (d > n) break
    let best = -Infinity
    for (let i = d; i <= n; i++) {
      const sum = prefix[i]! - prefix[i - d]!
      if (sum > best) best = sum
    }
    out.push([d, Math.round((best / d) * 10) / 10])
  }
  return out
}

/** Seconds at each whole value of the series (index = value, 0 to the highest). */
const histogramOf = (series: Float64Array): Array<number> => {
  let max = 0
  for (let i = 0; i < series.length; i++) if (series[i]! > max) max = series[i]!
  const counts = new Array<number>(Math.round(max) + 1).fill(0)
  for (let i = 0; i < series.length; i++) counts[Math.max(0, Math.round(series[i]!))]! += 1
  return counts
}

const powerBasis = (time: ReadonlyArray<number>, watts: ReadonlyArray<number>): PowerBasis | null => {
  const series = secondlySeries(time, watts)
  let work = 0
  for (let i = 0; i < series.length; i++) work += series[i]!
  if (!(work > 0)) return null
  return {
    seconds: series.length,
    normalizedPower: normalizedPower(series),
    work,
    curve: bestMeans(series, POWER_CURVE_DURATIONS),
    histogram: histogramOf(series)
  }
}

const heartRateBasis = (time: ReadonlyArray<number>, heartrate: ReadonlyArray<number>): HeartRateBasis | null => {
  const series = secondlySeries(time, heartrate)
  const histogram = histogramOf(series)
  return histogram.length > 1 ? { seconds: series.length, histogram } : null
}

/** The training basis of an activity's streams (each part null where its sensor recorded nothing). */
export const trainingBasisOf = (streams: ActivityStreams): TrainingBasis => ({
  version: TRAINING_BASIS_VERSION,
  // a recording whose times are unknown has no seconds to weigh its power and heart rate by
  power: streams.watts === undefined || streams.time === undefined ? null : powerBasis(streams.time, streams.watts),
  heartRate: streams.heartrate === undefined || streams.time === undefined ? null : heartRateBasis(streams.time, streams.heartrate),
  gradeAdjustedDistance: streams.distance === undefined || streams.altitude === undefined
    ? null
    : gradeAdjustedDistance(streams.distance, streams.altitude)
})
