import { type ActivityStreams, sampleCount } from "../../schema/ActivityDraft.ts"
import { MAX_STORED_SAMPLES } from "../../schema/ActivityLimits.ts"

/**
 * The two thinnings of an activity's streams, both choosing one index for all of them (the
 * streams share one index: a chart of one and the map of another must show the same moments):
 * `thinStreams` for storage, cheap enough for every long recording imported, and
 * `thinnedIndices` for an answer asked to hold at most so many samples, finer in the shape it
 * keeps.
 */

/** The values of `values` at `indices` (ascending). */
export const pickSamples = <A>(values: ReadonlyArray<A>, indices: ReadonlyArray<number>): Array<A> => {
  const out = new Array<A>(indices.length)
  for (let k = 0; k < indices.length; k++) out[k] = values[indices[k]!]!
  return out
}

// ---------------------------------------------------------------------------------------
// For storage: the peaks of equal stretches

/** Index of the largest (or, `lowest`, smallest) value in [from, to). */
const extreme = (values: ReadonlyArray<number>, from: number, to: number, lowest: boolean): number => {
  let at = from
  for (let i = from + 1; i < to; i++) if (lowest ? values[i]! < values[at]! : values[i]! > values[at]!) at = i
  return at
}

/**
 * Streams of at most `max` samples for storage: a longer recording is cut into equal stretches,
 * each keeping its first sample and its peaks (highest heart rate, power, speed and cadence,
 * highest and lowest altitude), so that a chart of the stored streams shows every effort and
 * summit. The last sample is kept. Totals and best efforts are computed before, from every sample.
 */
export const thinStreams = (streams: ActivityStreams, max: number = MAX_STORED_SAMPLES): ActivityStreams => {
  const n = sampleCount(streams)
  if (n <= max) return streams
  const highs: Array<ReadonlyArray<number>> = []
  for (const s of [streams.heartrate, streams.watts, streams.velocity, streams.cadence, streams.altitude]) if (s !== undefined) highs.push(s)
  const lows: Array<ReadonlyArray<number>> = streams.altitude !== undefined ? [streams.altitude] : []
  const perStretch = 1 + highs.length + lows.length
  const stretches = Math.max(1, Math.floor((max - 1) / perStretch))
  const keep = new Uint8Array(n)
  for (let k = 0; k < stretches; k++) {
    const from = Math.floor((k * n) / stretches)
    const to = Math.floor(((k + 1) * n) / stretches)
    if (to <= from) continue
    keep[from] = 1
    for (const s of highs) keep[extreme(s, from, to, false)] = 1
    for (const s of lows) keep[extreme(s, from, to, true)] = 1
  }
  keep[n - 1] = 1
  const indices: Array<number> = []
  for (let i = 0; i < n; i++) if (keep[i]) indices.push(i)
  const thinned: Record<string, unknown> = {}
  for (const [key, values] of Object.entries(streams)) thinned[key] = Array.isArray(values) ? pickSamples(values, indices) : values
  return thinned as unknown as ActivityStreams
}

// ---------------------------------------------------------------------------------------
// For an answer: Largest-Triangle-Three-Buckets over every stream at once

/**
 * At most `limit` samples of an activity's streams, chosen once for all of them. Each
 * stream's highest and lowest samples are kept first (the maximum heart rate or power, the
 * summit), then the rest is chosen by Largest-Triangle-Three-Buckets over every stream at once:
 * the first and last samples stay, and each bucket between keeps the sample that makes the
 * largest triangle with the sample kept before it and the bucket after, its area summed over
 * the streams (each scaled to its own range, so that heart rate weighs as much as altitude) and
 * over the route in the plane of latitude and longitude. A peak or a turn makes a large
 * triangle, so local peaks and the route's shape survive; two streams' peaks in one bucket
 * would share its one sample, which is why the extremes are kept apart. Libraries of the
 * method thin one x/y series, not several sharing their samples.
 */

type Series = ReadonlyArray<number | null>
type Route = ReadonlyArray<readonly [number, number] | null>

/** `values` scaled to [0, 1] (NaN where unknown); null when it varies not at all. */
const scaled = (values: Series, n: number): Float64Array | null => {
  let min = Infinity
  let max = -Infinity
  for (let i = 0; i < n; i++) {
    const v = values[i]
    if (typeof v === "number" && Number.isFinite(v)) {
      if (v < min) min = v
      if (v > max) max = v
    }
  }
  if (!(max > min)) return null
  const out = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const v = values[i]
    out[i] = typeof v === "number" && Number.isFinite(v) ? (v - min) / (max - min) : NaN
  }
  return out
}

/** Latitudes and longitudes scaled by the route's larger extent (the route keeps its shape). */
const scaledRoute = (route: Route, n: number): [Float64Array, Float64Array] | null => {
  const lat = new Float64Array(n).fill(NaN)
  const lng = new Float64Array(n).fill(NaN)
  let minLat = Infinity, maxLat = -Infinity, minLng = Infinity, maxLng = -Infinity
  for (let i = 0; i < n; i++) {
    const p = route[i]
    if (p === null || p === undefined) continue
    lat[i] = p[0]
    lng[i] = p[1]
    minLat = Math.min(minLat, p[0]); maxLat = Math.max(maxLat, p[0])
    minLng = Math.min(minLng, p[1]); maxLng = Math.max(maxLng, p[1])
  }
  const extent = Math.max(maxLat - minLat, maxLng - minLng)
  if (!(extent > 0)) return null
  for (let i = 0; i < n; i++) {
    lat[i] = (lat[i]! - minLat) / extent
    lng[i] = (lng[i]! - minLng) / extent
  }
  return [lat, lng]
}

/** Twice the area of the triangle (ax, ay), (bx, by), (cx, cy); 0 when a corner is unknown. */
const area = (ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number => {
  const a = Math.abs((ax - cx) * (by - ay) - (ax - bx) * (cy - ay))
  return Number.isNaN(a) ? 0 : a
}

/** Mean of `values` over [from, to), ignoring unknown ones (NaN when none). */
const meanOf = (values: Float64Array, from: number, to: number): number => {
  let sum = 0
  let count = 0
  for (let i = from; i < to; i++) {
    const v = values[i]!
    if (!Number.isNaN(v)) {
      sum += v
      count++
    }
  }
  return count === 0 ? NaN : sum / count
}

/** The samples where a stream is at its highest or its lowest (the first such sample of each). */
const extremesOf = (series: ReadonlyArray<Series>, n: number): Set<number> => {
  const at = new Set<number>()
  for (const values of series) {
    let high = -1
    let low = -1
    for (let i = 0; i < n; i++) {
      const v = values[i]
      if (typeof v !== "number" || !Number.isFinite(v)) continue
      if (high === -1 || v > (values[high] as number)) high = i
      if (low === -1 || v < (values[low] as number)) low = i
    }
    // a stream that never varies has no peak to keep
    if (high !== -1 && values[high] !== values[low]) at.add(high).add(low)
  }
  return at
}

/**
 * The indices, ascending, of `limit` of the `n` samples: every index when `n <= limit`.
 * `series` are the numeric streams (not time), `route` the positions.
 */
export const thinnedIndices = (
  n: number,
  limit: number,
  time: Series,
  series: ReadonlyArray<Series>,
  route: Route | undefined
): Array<number> => {
  if (n <= limit) return Array.from({ length: n }, (_, i) => i)
  if (limit <= 1) return [0]
  if (limit === 2) return [0, n - 1]
  const extremes = new Set([...extremesOf(series, n)].filter((i) => i !== 0 && i !== n - 1).slice(0, limit - 2))
  const chosen = largestTriangles(n, limit - extremes.size, time, series, route, extremes)
  for (const i of extremes) chosen.push(i)
  chosen.sort((a, b) => a - b)
  return fillWidestGaps(chosen, limit)
}

/**
 * `chosen` (ascending) grown to `limit` samples by the middle of its widest gap, again and
 * again: a bucket made only of kept extremes chose nothing, and the answer still has `limit`.
 */
const fillWidestGaps = (chosen: Array<number>, limit: number): Array<number> => {
  while (chosen.length < limit) {
    let at = -1
    let widest = 1
    for (let k = 1; k < chosen.length; k++) {
      if (chosen[k]! - chosen[k - 1]! > widest) {
        widest = chosen[k]! - chosen[k - 1]!
        at = k
      }
    }
    if (at === -1) break
    chosen.splice(at, 0, chosen[at - 1]! + Math.floor(widest / 2))
  }
  return chosen
}

/**
 * Largest-Triangle-Three-Buckets: `limit` (at least 2) of the `n` samples, ascending, none of
 * them `taken` (kept already: a bucket of taken samples only chooses none).
 */
const largestTriangles = (
  n: number,
  limit: number,
  time: Series,
  series: ReadonlyArray<Series>,
  route: Route | undefined,
  taken: ReadonlySet<number>
): Array<number> => {
  const x = scaled(time, n) ?? Float64Array.from({ length: n }, (_, i) => i / (n - 1))
  const ys = series.map((s) => scaled(s, n)).filter((s): s is Float64Array => s !== null)
  const plane = route === undefined ? null : scaledRoute(route, n)
  const kept = [0]
  const every = (n - 2) / (limit - 2)
  let a = 0
  for (let bucket = 0; bucket < limit - 2; bucket++) {
    const from = Math.floor(bucket * every) + 1
    const to = Math.min(Math.floor((bucket + 1) * every) + 1, n - 1)
    // the next bucket's mean point (the last sample for the last bucket)
    const nextFrom = to
    const nextTo = Math.min(Math.floor((bucket + 2) * every) + 1, n)
    const cx = meanOf(x, nextFrom, Math.max(nextTo, nextFrom + 1))
    const cys = ys.map((y) => meanOf(y, nextFrom, Math.max(nextTo, nextFrom + 1)))
    const cLat = plane === null ? NaN : meanOf(plane[0], nextFrom, Math.max(nextTo, nextFrom + 1))
    const cLng = plane === null ? NaN : meanOf(plane[1], nextFrom, Math.max(nextTo, nextFrom + 1))
    let best = -1
    let bestArea = -1
    for (let i = from; i < to; i++) {
      if (taken.has(i)) continue
      let sum = 0
      for (let k = 0; k < ys.length; k++) sum += area(x[a]!, ys[k]![a]!, x[i]!, ys[k]![i]!, cx, cys[k]!)
      if (plane !== null) sum += area(plane[1][a]!, plane[0][a]!, plane[1][i]!, plane[0][i]!, cLng, cLat)
      if (sum > bestArea) {
        bestArea = sum
        best = i
      }
    }
    if (best === -1) continue
    kept.push(best)
    a = best
  }
  kept.push(n - 1)
  return kept
}
