import { DISTANCE_RATIO, type LatLng, type SegmentLine, TOLERANCE } from "./segmentLine.ts"

/**
 * The passes of one track over one segment. A pass enters the start's gate (the track comes
 * within TOLERANCE of the segment's first point), then the end's gate, keeps every point of the
 * resampled line within TOLERANCE of the track in between, and covers between 90 and 110 % of
 * the segment's length (give or take TOLERANCE: where a track turning onto the segment through
 * GPS scatter passes a gate is known only within the gate's width, which on a 200 m street is
 * as much as the ratio's 10 %). The direction follows from the gates' order; a track that passes twice
 * makes two efforts. Distances to the track are taken to its lines between samples, not to its
 * samples, so that a sparse recording (a point every 5 s) is matched as well as a dense one, and
 * the gate crossings are timed where the track comes nearest the gate's point, between samples.
 *
 * Pure and allocation-light: it runs over every candidate track of the history.
 */

export interface TrackStreams {
  readonly latlng: ReadonlyArray<LatLng | null>
  readonly time?: ReadonlyArray<number> | undefined
  /** the recorded distance (smoothed by the device): read for the distance ratio where present */
  readonly distance?: ReadonlyArray<number> | undefined
  readonly heartrate?: ReadonlyArray<number> | undefined
  readonly watts?: ReadonlyArray<number> | undefined
  readonly cadence?: ReadonlyArray<number> | undefined
  readonly moving?: ReadonlyArray<boolean> | undefined
}

export interface MatchedEffort {
  /** seconds from the activity's start to the start gate's crossing */
  readonly startOffsetInSeconds: number
  readonly elapsedTimeInSeconds: number
  readonly movingTimeInSeconds: number
  /** the activity's distance at the start gate's crossing */
  readonly startDistanceInMeter: number
  readonly endDistanceInMeter: number
  /** the segment's length over the elapsed time */
  readonly averageSpeed: number
  readonly averageHeartRate: number | null
  readonly averagePower: number | null
  readonly averageCadence: number | null
}

/** A segment readied for matching many tracks: its line in local metres around its first point. */
export interface PreparedSegment {
  readonly line: SegmentLine
  readonly lengthInMeter: number
  readonly lat0: number
  readonly lon0: number
  readonly kx: number
  readonly ky: number
  /** x, y of each resampled point, metres */
  readonly xs: Float64Array
  readonly ys: Float64Array
}

export const prepareSegment = (line: SegmentLine): PreparedSegment => {
  const [lat0, lon0] = line.points[0]!
  const { kx, ky } = line.ruler
  const n = line.points.length
  const xs = new Float64Array(n)
  const ys = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    xs[i] = (line.points[i]![1] - lon0) * kx
    ys[i] = (line.points[i]![0] - lat0) * ky
  }
  return { line, lengthInMeter: line.lengthInMeter, lat0, lon0, kx, ky, xs, ys }
}

const TOLERANCE_2 = TOLERANCE * TOLERANCE

/**
 * The squared distance from (px, py) to the track's line from sample i to i + 1, and where on
 * it (0..1) the nearest point lies, written into `at`.
 */
const edgeDistance2 = (tx: Float64Array, ty: Float64Array, i: number, px: number, py: number, at: { t: number }) => {
  const ax = tx[i]!, ay = ty[i]!
  const dx = tx[i + 1]! - ax, dy = ty[i + 1]! - ay
  const len2 = dx * dx + dy * dy
  let t = len2 === 0 ? 0 : ((px - ax) * dx + (py - ay) * dy) / len2
  t = t < 0 ? 0 : t > 1 ? 1 : t
  at.t = t
  const x = ax + dx * t - px, y = ay + dy * t - py
  return x * x + y * y
}

/**
 * Where the track passes a gate: within each stretch of the track that comes within TOLERANCE
 * of the gate's point, the fractional sample index where it comes nearest that point, between
 * samples. A stretch ends only where the track is twice TOLERANCE away, so that scatter at the
 * gate's edge does not make one pass two.
 */
const gateVisits = (tx: Float64Array, ty: Float64Array, px: number, py: number): Array<number> => {
  const visits: Array<number> = []
  const at = { t: 0 }
  const out = 2 * TOLERANCE
  let best = Infinity
  let bestAt = -1
  for (let i = 0; i + 1 < tx.length; i++) {
    // cheap reject: both ends far on one axis
    const ax = tx[i]!, bx = tx[i + 1]!, ay = ty[i]!, by = ty[i + 1]!
    const far = (ax - px > out && bx - px > out) || (px - ax > out && px - bx > out) ||
      (ay - py > out && by - py > out) || (py - ay > out && py - by > out)
    const d2 = far ? Infinity : edgeDistance2(tx, ty, i, px, py, at)
    if (d2 <= TOLERANCE_2) {
      if (d2 < best) {
        best = d2
        bestAt = i + at.t
      }
    } else if (bestAt >= 0 && d2 > out * out) {
      visits.push(bestAt)
      best = Infinity
      bestAt = -1
    }
  }
  if (bestAt >= 0) visits.push(bestAt)
  return visits
}

/** Every point of the line within TOLERANCE of the track's lines between samples `from` and `to` (fractional). */
const staysInCorridor = (segment: PreparedSegment, tx: Float64Array, ty: Float64Array, from: number, to: number) => {
  const lo = Math.floor(from)
  const hi = Math.min(Math.ceil(to), tx.length - 1)
  const at = { t: 0 }
  let j = lo
  const near = (k: number, i: number) => edgeDistance2(tx, ty, Math.min(i, tx.length - 2), segment.xs[k]!, segment.ys[k]!, at) <= TOLERANCE_2
  for (let k = 0; k < segment.xs.length; k++) {
    // the track goes on along the line: look ahead of where the last point was found, then anywhere in the pass
    let found = -1
    for (let i = j; i < hi || (i === hi && i === lo); i++) if (near(k, i)) { found = i; break }
    if (found < 0) for (let i = lo; i < j; i++) if (near(k, i)) { found = i; break }
    if (found < 0) return false
    j = found
  }
  return true
}

const valueAt = (values: ReadonlyArray<number>, at: number) => {
  const i = Math.floor(at)
  const t = at - i
  const a = values[i]!
  return t === 0 || i + 1 >= values.length ? a : a + (values[i + 1]! - a) * t
}

const averageOver = (values: ReadonlyArray<number> | undefined, from: number, to: number, skipZeros: boolean) => {
  if (values === undefined) return null
  let sum = 0, n = 0
  for (let i = Math.ceil(from); i <= Math.floor(to) && i < values.length; i++) {
    const v = values[i]
    if (v === undefined || v === null || (skipZeros && v === 0)) continue
    sum += v
    n++
  }
  return n === 0 ? null : sum / n
}

/** The track's samples in local metres (a missing position takes the one before: no jump, no false gate). */
const projectTrack = (segment: PreparedSegment, latlng: ReadonlyArray<LatLng | null>) => {
  const tx = new Float64Array(latlng.length)
  const ty = new Float64Array(latlng.length)
  let first = latlng.findIndex((p) => p !== null)
  if (first < 0) return null
  let last = latlng[first]!
  for (let i = 0; i < latlng.length; i++) {
    const p = latlng[i] ?? last
    last = p
    tx[i] = (p[1] - segment.lon0) * segment.kx
    ty[i] = (p[0] - segment.lat0) * segment.ky
  }
  return { tx, ty }
}

/** The cumulative distance along the track, metres (the recorded one where present). */
const distancesOf = (track: TrackStreams, tx: Float64Array, ty: Float64Array): ReadonlyArray<number> => {
  if (track.distance !== undefined && track.distance.length === tx.length) return track.distance
  const d = new Array<number>(tx.length)
  d[0] = 0
  for (let i = 1; i < tx.length; i++) d[i] = d[i - 1]! + Math.hypot(tx[i]! - tx[i - 1]!, ty[i]! - ty[i - 1]!)
  return d
}

export const matchSegment = (segment: PreparedSegment, track: TrackStreams): Array<MatchedEffort> => {
  const time = track.time
  if (time === undefined || track.latlng.length < 2) return []
  const projected = projectTrack(segment, track.latlng)
  if (projected === null) return []
  const { tx, ty } = projected
  const n = segment.xs.length
  const starts = gateVisits(tx, ty, segment.xs[0]!, segment.ys[0]!)
  if (starts.length === 0) return []
  const ends = gateVisits(tx, ty, segment.xs[n - 1]!, segment.ys[n - 1]!)
  if (ends.length === 0) return []
  const distance = distancesOf(track, tx, ty)
  const efforts: Array<MatchedEffort> = []
  let after = -1
  for (let s = 0; s < starts.length; s++) {
    const from = starts[s]!
    if (from <= after) continue
    // the first pass of the end after this start (before the start is passed again: that pass is the shorter effort) that makes a pass
    const next = starts[s + 1] ?? Infinity
    const to = ends.find((e) => {
      if (e <= from || e > next) return false
      const covered = valueAt(distance, e) - valueAt(distance, from)
      return covered >= DISTANCE_RATIO[0] * segment.lengthInMeter - TOLERANCE && covered <= DISTANCE_RATIO[1] * segment.lengthInMeter + TOLERANCE &&
        staysInCorridor(segment, tx, ty, from, e)
    })
    if (to === undefined) continue
    const startTime = valueAt(time, from)
    const elapsed = valueAt(time, to) - startTime
    if (!(elapsed > 0)) continue
    let moving = 0
    if (track.moving !== undefined) {
      // each interval counts when its end was moving, its share of the pass where the gates cut it
      for (let i = Math.floor(from); i < Math.ceil(to) && i + 1 < time.length; i++) {
        if (!track.moving[i + 1]) continue
        const a = Math.max(i, from), b = Math.min(i + 1, to)
        moving += (time[i + 1]! - time[i]!) * (b - a)
      }
    } else moving = elapsed
    efforts.push({
      startOffsetInSeconds: Math.round(startTime - time[0]!),
      elapsedTimeInSeconds: Math.max(1, Math.round(elapsed)),
      movingTimeInSeconds: Math.max(1, Math.round(moving)),
      startDistanceInMeter: valueAt(distance, from),
      endDistanceInMeter: valueAt(distance, to),
      averageSpeed: segment.lengthInMeter / elapsed,
      averageHeartRate: averageOver(track.heartrate, from, to, true),
      averagePower: averageOver(track.watts, from, to, false),
      averageCadence: averageOver(track.cadence, from, to, true)
    })
    after = to
  }
  return efforts
}
