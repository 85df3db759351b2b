/**
 * Elevation gain from an altitude stream, for files without a device total (FIT total_ascent):
 * the altitude is first smoothed with a centred moving average over ±SMOOTH_HALF_WINDOW_S
 * seconds (at least ±2 samples), then gain is counted with a hysteresis: a climb only counts
 * once it rises the threshold above the last reference level. The raw sum of positive deltas
 * overstates GPS gain many times, but one fixed threshold does not suit every altimeter: the
 * 3 m that GoldenCheetah uses (GC_ELEVATION_HYSTERESIS) for noisy GPS altitude drops a third
 * of the climbing a barometric altimeter records in small steps. The threshold is therefore
 * twice the altitude's own noise (the RMS of what the smoothing removed), between
 * MIN_HYSTERESIS_M and HYSTERESIS_M: the same ride's gain then agrees with the device's total
 * whether it comes as FIT or as GPX.
 */
export const HYSTERESIS_M = 3
export const MIN_HYSTERESIS_M = 0.5
const NOISE_FACTOR = 2
export const SMOOTH_HALF_WINDOW_S = 10
const MIN_HALF_WINDOW_SAMPLES = 2

/**
 * Smoothed altitude per sample (NaN where the sample has no altitude). Windows do not cross
 * recording segments. O(n) with prefix sums and two pointers.
 */
export const smoothAltitude = (
  timeS: Float64Array,
  altitude: ReadonlyArray<number | null>,
  segmentBounds: ReadonlyArray<readonly [number, number]>,
  halfWindowS: number = SMOOTH_HALF_WINDOW_S
): Float64Array => {
  const n = timeS.length
  const out = new Float64Array(n).fill(NaN)
  const sum = new Float64Array(n + 1)
  const count = new Uint32Array(n + 1)
  for (let i = 0; i < n; i++) {
    const a = altitude[i]
    const ok = typeof a === "number" && Number.isFinite(a)
    sum[i + 1] = sum[i]! + (ok ? a : 0)
    count[i + 1] = count[i]! + (ok ? 1 : 0)
  }
  for (const [a, b] of segmentBounds) {
    let lo = a
    let hi = a
    for (let i = a; i < b; i++) {
      if (hi < i) hi = i
      while (hi + 1 < b && (timeS[hi + 1]! - timeS[i]! <= halfWindowS || hi + 1 - i <= MIN_HALF_WINDOW_SAMPLES)) hi++
      while (lo < i && timeS[i]! - timeS[lo]! > halfWindowS && i - lo > MIN_HALF_WINDOW_SAMPLES) lo++
      const v = altitude[i]
      if (typeof v !== "number" || !Number.isFinite(v)) continue
      const c = count[hi + 1]! - count[lo]!
      out[i] = (sum[hi + 1]! - sum[lo]!) / c
    }
  }
  return out
}

/** Gain (m) over smoothed altitudes in [from, to) with the hysteresis threshold; NaN entries skipped. */
export const hysteresisGain = (
  smoothed: Float64Array,
  from = 0,
  to = smoothed.length,
  threshold: number = HYSTERESIS_M
): number => {
  let gain = 0
  let ref = NaN
  for (let i = from; i < to; i++) {
    const v = smoothed[i]!
    if (Number.isNaN(v)) continue
    if (Number.isNaN(ref)) ref = v
    else if (v > ref + threshold) {
      gain += v - ref
      ref = v
    } else if (v < ref - threshold) ref = v
  }
  return gain
}

/** The hysteresis (m) that suits an altitude stream: twice its noise around the smoothed altitude, within bounds. */
export const climbThreshold = (altitude: ReadonlyArray<number | null>, smoothed: Float64Array): number => {
  let squares = 0
  let count = 0
  for (let i = 0; i < smoothed.length; i++) {
    const a = altitude[i]
    const s = smoothed[i]!
    if (typeof a !== "number" || !Number.isFinite(a) || Number.isNaN(s)) continue
    squares += (a - s) ** 2
    count++
  }
  const noise = count === 0 ? 0 : Math.sqrt(squares / count)
  return Math.min(HYSTERESIS_M, Math.max(MIN_HYSTERESIS_M, NOISE_FACTOR * noise))
}
