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
 * Time-weighted mean of the recorded values: each sample stands for the interval that ends at
 * it; the first sample of a segment or after a pause (an interval longer than `maxIntervalS`,
 * when the timer stood still) for the interval that follows it. A device averages every second and not
 * every record (smart recording writes a record every 1 to 10 s), and a GPX or TCX of the
 * same ride may keep other records: weighting by time gives them one average. Nulls are
 * ignored, zeros too unless `keepZeros`. Rounded; null when none.
 */
export const timeWeightedMeanOf = (
  values: ReadonlyArray<number | null>,
  timeS: Float64Array,
  segmentStart: Uint8Array,
  keepZeros: boolean,
  maxIntervalS: number
): number | null => {
  const n = values.length
  const interval = (i: number) => {
    if (i <= 0 || i >= n || segmentStart[i] === 1) return 0
    const dt = timeS[i]! - timeS[i - 1]!
    return dt > 0 && dt <= maxIntervalS ? dt : 0
  }
  let sum = 0
  let weights = 0
  let count = 0
  let plain = 0
  for (let i = 0; i < n; i++) {
    const v = values[i]
    if (!isNum(v) || (!keepZeros && v === 0)) continue
    const w = interval(i) || interval(i + 1)
    sum += v * w
    weights += w
    plain += v
    count++
  }
  if (count === 0) return null
  return Math.round(weights > 0 ? sum / weights : plain / count)
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
  for (const v of values) {
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
