import type { Split, SplitUnit } from "../../../schema/ActivityDraft.ts"
import type { Motion } from "./Motion.ts"
import { kmh, meanOf, round } from "./Numbers.ts"

export const MILE_M = 1609.344
/** The metres of each unit of split: a kilometre, a mile, and a swim's 100 metres and 100 yards. */
export const SPLIT_METERS: Readonly<Record<SplitUnit, number>> = { metric: 1000, imperial: MILE_M, "100m": 100, "100yd": 91.44 }
/** A final partial split shorter than this share of its unit (10 m of a kilometre) is dropped. */
const MIN_PARTIAL_SHARE = 0.01

/** Linear interpolation of `values` at the point where the cumulative distance reaches `d`, in (i−1, i]. */
const at = (values: Float64Array, distance: Float64Array, i: number, d: number): number => {
  if (i === 0) return values[0]!
  const d0 = distance[i - 1]!
  const d1 = distance[i]!
  const f = d1 > d0 ? (d - d0) / (d1 - d0) : 1
  return values[i - 1]! + (values[i]! - values[i - 1]!) * f
}

/** The nearest known smoothed altitude at or before i (then after), NaN when none. */
const altitudeNear = (alt: Float64Array, i: number): number => {
  for (let j = i; j >= 0; j--) if (!Number.isNaN(alt[j]!)) return alt[j]!
  for (let j = i + 1; j < alt.length; j++) if (!Number.isNaN(alt[j]!)) return alt[j]!
  return NaN
}

/**
 * Splits of `unitM` metres over the distance/time streams: every full unit plus the final partial
 * one. Boundary times are interpolated; moving time comes from the cumulative moving seconds.
 */
export const computeSplits = (
  unit: SplitUnit,
  motion: Motion,
  smoothedAltitude: Float64Array,
  heartRate: ReadonlyArray<number | null>
): Array<Split> => {
  const unitM = SPLIT_METERS[unit]
  const { n, distance, timeS, movingCum } = motion
  if (!motion.hasDistance || n < 2) return []
  const total = distance[n - 1]!
  const splits: Array<Split> = []
  let prevIdx = 0
  let prevD = distance[0]!
  let prevT = timeS[0]!
  let prevM = 0
  let prevAlt = altitudeNear(smoothedAltitude, 0)
  let i = 0
  for (let k = 1; prevD < total; k++) {
    const target = Math.min(distance[0]! + k * unitM, total)
    const partial = target === total && total - prevD < unitM - 1e-6
    if (partial && total - prevD < unitM * MIN_PARTIAL_SHARE) break
    while (i < n - 1 && distance[i]! < target) i++
    const t = at(timeS, distance, i, target)
    const m = at(movingCum, distance, i, target)
    const alt = altitudeNear(smoothedAltitude, i)
    const d = target - prevD
    const elapsed = Math.max(0, Math.round(t - prevT))
    const moving = Math.min(elapsed, Math.max(0, Math.round(m - prevM)))
    const seconds = moving > 0 ? m - prevM : t - prevT
    splits.push({
      unit,
      splitIndex: k,
      distanceInMeter: round(d, 1),
      elapsedTimeInSeconds: elapsed,
      movingTimeInSeconds: moving,
      elevationDifferenceInMeter: Number.isNaN(alt) || Number.isNaN(prevAlt) ? 0 : round(alt - prevAlt, 1),
      averageSpeedInKmPerHour: seconds > 0 ? kmh(d / seconds) : 0,
      averageHeartRate: meanOf(heartRate, false, prevIdx, Math.max(i, prevIdx + 1))
    })
    prevIdx = i
    prevD = target
    prevT = t
    prevM = m
    prevAlt = alt
  }
  return splits
}
