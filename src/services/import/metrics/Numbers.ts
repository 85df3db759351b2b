/** Small numeric helpers shared by the metrics modules. */

export const EARTH_RADIUS_M = 6_371_000
const RAD = Math.PI / 180

/** Great-circle distance in metres (R = 6 371 000 m). */
export const haversine = (lat1: number, lng1: number, lat2: number, lng2: number): number => {
  const a = Math.sin(((lat2 - lat1) * RAD) / 2) ** 2 +
    Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(((lng2 - lng1) * RAD) / 2) ** 2
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)))
}

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
