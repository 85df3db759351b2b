/** Small numeric helpers shared by the metrics modules. */

export const round = (value: number, decimals: number): number => {
  const f = 10 ** decimals
  const r = Math.round(value * f) / f
  return r === 0 ? 0 : r // no -0 in JSON
}

export const kmh = (metersPerSecond: number): number => round(metersPerSecond * 3.6, 2)

export const isNum = (v: number | null | undefined): v is number => typeof v === "number" && Number.isFinite(v)

/** Mean of the recorded values (nulls ignored, zeros too unless `keepZeros`), rounded; null when none. */
export const meanOf = (
  values: ReadonlyArray<number | null>,
  keepZeros: boolean,
  from = 0,
  to = values.length
): number | null => {
  let sum = 0
  let count = 0
  for (let i = from; i < to; i++) {
    const v = values[i]
    if (!isNum(v) || (!keepZeros && v === 0)) continue
    sum += v
    count++
  }
  return count === 0 ? null : Math.round(sum / count)
}

/**
 * Time-weighted mean of a stream: a recorded value holds until the next one (a null, or a zero
 * unless `keepZeros`, holds the previous value, and a leading one takes the first, for at most
 * `maxHoldS` from the reading), and each interval between two samples counts with the mean of
 * its ends. An interval longer than `maxIntervalS` (a pause: the timer stood still) or across a
 * segment start does not count. A device averages every second, not every record (smart
 * recording writes one every 1 to 10 s), and the same ride as GPX may carry other records or the
 * stream with its gaps filled: weighting by time gives them one average. A sensor that read for
 * less than `minCoverage` of the recorded time (a wrist sensor out of the water for the last
 * seconds of a swim) gives no average of the activity. Rounded; null when nothing is recorded.
 */
export const timeWeightedMeanOf = (
  values: ReadonlyArray<number | null>,
  timeS: Float64Array,
  segmentStart: Uint8Array,
  keepZeros: boolean,
  maxIntervalS: number,
  maxHoldS: number = Infinity,
  minCoverage = 0
): number | null => {
  const held = timeWeightedIntegralOf(values, timeS, segmentStart, keepZeros, maxIntervalS, maxHoldS)
  if (held === null) return null
  if (held.recordedSeconds > 0 && held.seconds < held.recordedSeconds * minCoverage) return null
  return Math.round(held.seconds > 0 ? held.integral / held.seconds : held.plainMean)
}

/**
 * The integral over time of a stream held as timeWeightedMeanOf holds it (value × seconds, over
 * the intervals that count), the seconds it covers, the seconds recorded, and the plain mean of
 * its readings; null when nothing is recorded. Power's integral is the work done (joules).
 */
export const timeWeightedIntegralOf = (
  values: ReadonlyArray<number | null>,
  timeS: Float64Array,
  segmentStart: Uint8Array,
  keepZeros: boolean,
  maxIntervalS: number,
  maxHoldS: number = Infinity
): { readonly integral: number; readonly seconds: number; readonly recordedSeconds: number; readonly plainMean: number } | null => {
  const n = values.length
  const recorded = (v: number | null | undefined): v is number => isNum(v) && (keepZeros || v !== 0)
  // the reading each sample holds (NaN: none within maxHoldS before it)
  const held = new Float64Array(n).fill(NaN)
  let last = NaN
  let lastTime = NaN
  for (let i = 0; i < n; i++) {
    const v = values[i]
    if (recorded(v)) {
      last = v
      lastTime = timeS[i]!
    }
    if (!Number.isNaN(last) && timeS[i]! - lastTime <= maxHoldS) held[i] = last
  }
  // leading samples take the first reading
  let first = -1
  for (let i = 0; i < n && first === -1; i++) if (recorded(values[i])) first = i
  if (first === -1) return null
  for (let i = 0; i < first; i++) {
    if (timeS[first]! - timeS[i]! <= maxHoldS) held[i] = values[first]!
  }
  let sum = 0
  let weights = 0
  let recordedTime = 0
  let plain = 0
  let count = 0
  for (let i = 0; i < n; i++) {
    const v = values[i]
    if (recorded(v)) {
      plain += v
      count++
    }
    const dt = i > 0 ? timeS[i]! - timeS[i - 1]! : 0
    if (i === 0 || segmentStart[i] === 1 || !(dt > 0) || dt > maxIntervalS) continue
    recordedTime += dt
    const a = held[i - 1]!
    const b = held[i]!
    if (Number.isNaN(a) || Number.isNaN(b)) continue
    sum += ((a + b) / 2) * dt
    weights += dt
  }
  return { integral: sum, seconds: weights, recordedSeconds: recordedTime, plainMean: plain / count }
}

export const maxOf = (values: ReadonlyArray<number | null>, from = 0, to = values.length): number | null => {
  let max = -Infinity
  for (let i = from; i < to; i++) {
    const v = values[i]
    if (isNum(v) && v > max) max = v
  }
  return max === -Infinity ? null : max
}

/** Gap-fill: a null takes the previous value, leading nulls take the first value. Null when all null. */
export const gapFill = <A>(values: ReadonlyArray<A | null | undefined>): Array<A> | null => {
  let first: A | undefined
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (v !== null && v !== undefined) {
      first = v
      break
    }
  }
  if (first === undefined) return null
  const out = new Array<A>(values.length)
  let prev = first
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (v !== null && v !== undefined) prev = v
    out[i] = prev
  }
  return out
}

/** Largest index i in [0, n) with sorted[i] <= x (−1 when none). */
export const lastIndexAtOrBefore = (sorted: ArrayLike<number>, x: number): number => {
  let lo = 0
  let hi = sorted.length - 1
  let ans = -1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (sorted[mid]! <= x) {
      ans = mid
      lo = mid + 1
    } else hi = mid - 1
  }
  return ans
}
