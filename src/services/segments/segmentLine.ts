import CheapRuler from "cheap-ruler"

/**
 * A segment's line as the matching reads it: its points resampled every `RESAMPLE_STEP` metres
 * (so that the corridor is checked as densely on a long straight road as in a bend), its
 * length, and the bounding box of its gates and its corridor.
 */

export type LatLng = readonly [number, number]

/** metres between two points of a resampled line */
export const RESAMPLE_STEP = 10
/** how near the track must come to the start and the end, and stay to every point of the line */
export const TOLERANCE = 25
/** the track's distance between the gates, as a share of the segment's */
export const DISTANCE_RATIO = [0.9, 1.1] as const

export interface SegmentLine {
  /** resampled every RESAMPLE_STEP metres, the first and last points those given */
  readonly points: ReadonlyArray<LatLng>
  readonly lengthInMeter: number
  readonly ruler: CheapRuler
}

/** A ruler for distances near this latitude (cheap-ruler: exact to 0.1 % within a few hundred kilometres). */
export const rulerAt = (lat: number) => new CheapRuler(lat, "meters")

/** CheapRuler takes [lon, lat]. */
export const lonLat = (p: LatLng): [number, number] => [p[1], p[0]]

export const lineOf = (points: ReadonlyArray<LatLng>): SegmentLine => {
  const lats = points.map((p) => p[0])
  const ruler = rulerAt((Math.min(...lats) + Math.max(...lats)) / 2)
  const resampled: Array<LatLng> = [points[0]!]
  let length = 0
  let carried = 0
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!
    const b = points[i]!
    const d = ruler.distance(lonLat(a), lonLat(b))
    let at = RESAMPLE_STEP - carried
    while (at < d) {
      const t = at / d
      resampled.push([a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t])
      at += RESAMPLE_STEP
    }
    carried = d - (at - RESAMPLE_STEP)
    length += d
  }
  const last = points[points.length - 1]!
  const end = resampled[resampled.length - 1]!
  if (end[0] !== last[0] || end[1] !== last[1]) resampled.push(last)
  return { points: resampled, lengthInMeter: length, ruler }
}

/** The bounding box of the line widened by the tolerance: where a matching track must lie. */
export const corridorBox = (line: SegmentLine) => {
  let minLat = Infinity, minLon = Infinity, maxLat = -Infinity, maxLon = -Infinity
  for (const [lat, lon] of line.points) {
    if (lat < minLat) minLat = lat
    if (lat > maxLat) maxLat = lat
    if (lon < minLon) minLon = lon
    if (lon > maxLon) maxLon = lon
  }
  const [w, s, e, n] = line.ruler.bufferBBox([minLon, minLat, maxLon, maxLat], TOLERANCE)
  return { minLat: s, maxLat: n, minLon: w, maxLon: e }
}

/** The box of the tolerance around one point (a gate). */
export const gateBox = (line: SegmentLine, p: LatLng) => {
  const [w, s, e, n] = line.ruler.bufferPoint(lonLat(p), TOLERANCE)
  return { minLat: s, maxLat: n, minLon: w, maxLon: e }
}

/** the least distance between two kept samples of a stretch: GPS scatter between closer ones would lengthen the line */
const STRETCH_SPACING = 30

/**
 * The stretch of a track between two of its distances, its ends interpolated between samples,
 * with each point's distance; null where the track does not reach them. Samples without a
 * position are skipped, and so are samples closer than STRETCH_SPACING to the one kept before.
 */
export const stretchOf = (
  latlng: ReadonlyArray<LatLng | null>,
  distance: ReadonlyArray<number>,
  from: number,
  to: number
): { readonly points: Array<LatLng>; readonly distances: Array<number> } | null => {
  const n = Math.min(latlng.length, distance.length)
  if (n < 2 || from < distance[0]! || to > distance[n - 1]! || to <= from) return null
  const pointAt = (d: number): LatLng | null => {
    for (let i = 0; i + 1 < n; i++) {
      if (distance[i + 1]! < d) continue
      const a = latlng[i], b = latlng[i + 1]
      if (a == null || b == null) return a ?? b ?? null
      const span = distance[i + 1]! - distance[i]!
      const t = span <= 0 ? 0 : (d - distance[i]!) / span
      return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]
    }
    return null
  }
  const first = pointAt(from)
  const last = pointAt(to)
  if (first === null || last === null) return null
  const points: Array<LatLng> = [first]
  const distances = [from]
  for (let i = 0; i < n; i++) {
    const p = latlng[i]
    const d = distance[i]!
    if (p != null && d - distances[distances.length - 1]! >= STRETCH_SPACING && to - d >= STRETCH_SPACING / 2) {
      points.push(p)
      distances.push(d)
    }
  }
  points.push(last)
  distances.push(to)
  return { points, distances }
}
