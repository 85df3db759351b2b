import CheapRuler from "cheap-ruler"
import { forEachCentredWindow } from "./CentredWindow.ts"

/**
 * Cumulative distance (m) along a GPS track, measured the way a device measures it rather than
 * point to point:
 * - only fresh fixes count: a position repeated unchanged (a recorder that writes the last
 *   known fix while it has none, a track re-exported with its gaps filled) is no new fix, so a
 *   stretch without fixes is covered in one step from the last fix to the next;
 * - fixes are averaged over a centred window of ±halfWindowS seconds where the sport asks for
 *   it (SportProfile): a swimmer's watch gets a fix only when the arm is out of the water and
 *   its jitter would add a tenth to the distance; on land, measured against the devices' own
 *   totals over the corpus, any averaging cuts more real corners than it removes jitter;
 * - distances are measured on the WGS84 ellipsoid (cheap-ruler, re-centred as the latitude
 *   changes), as devices do, not on a sphere;
 * - between two fixes the distance grows linearly with time, so that every sample, fix or
 *   not, has a distance and a speed can be read over any window.
 * Windows and distances never cross a recording segment; the total carries over from one
 * segment to the next.
 */
/** Latitude change (degrees) after which the ruler is re-centred (its error stays below 0.01 %). */
const RULER_RECENTRE_DEG = 0.05

/** Indices in [a, b) of the fresh fixes: a position, not the same as the fix before it. */
const freshFixes = (positions: ReadonlyArray<readonly [number, number] | null>, a: number, b: number): Array<number> => {
  const fix: Array<number> = []
  let last: readonly [number, number] | null = null
  for (let i = a; i < b; i++) {
    const p = positions[i]
    if (!p || (last !== null && p[0] === last[0] && p[1] === last[1])) continue
    fix.push(i)
    last = p
  }
  return fix
}

export const gpsDistance = (
  timeS: Float64Array,
  positions: ReadonlyArray<readonly [number, number] | null>,
  segments: ReadonlyArray<readonly [number, number]>,
  halfWindowS: number
): Float64Array => {
  const n = timeS.length
  const out = new Float64Array(n)
  let total = 0
  let ruler: CheapRuler | null = null
  let rulerLat = NaN
  const measure = (a: readonly [number, number], b: readonly [number, number]) => {
    const lat = (a[1] + b[1]) / 2
    if (ruler === null || Math.abs(lat - rulerLat) > RULER_RECENTRE_DEG) {
      ruler = new CheapRuler(lat, "meters")
      rulerLat = lat
    }
    return ruler.distance(a, b)
  }
  for (const [a, b] of segments) {
    const fix = freshFixes(positions, a, b)
    if (fix.length === 0) {
      out.fill(total, a, b)
      continue
    }
    // centred moving average of the fixes (two pointers over running sums), as [lng, lat]
    const m = fix.length
    const smooth = new Array<[number, number]>(m)
    let lo = 0
    let hi = -1
    let sumLat = 0
    let sumLng = 0
    for (let k = 0; k < m; k++) {
      const t = timeS[fix[k]!]!
      while (hi + 1 < m && timeS[fix[hi + 1]!]! - t <= halfWindowS) {
        hi++
        sumLat += positions[fix[hi]!]![0]
        sumLng += positions[fix[hi]!]![1]
      }
      while (t - timeS[fix[lo]!]! > halfWindowS) {
        sumLat -= positions[fix[lo]!]![0]
        sumLng -= positions[fix[lo]!]![1]
        lo++
      }
      const c = hi - lo + 1
      smooth[k] = [sumLng / c, sumLat / c]
    }
    // distance at each fix, then linear in time between fixes
    const atFix = new Float64Array(m)
    atFix[0] = total
    for (let k = 1; k < m; k++) atFix[k] = atFix[k - 1]! + measure(smooth[k - 1]!, smooth[k]!)
    let k = 0
    for (let i = a; i < b; i++) {
      while (k + 1 < m && fix[k + 1]! <= i) k++
      if (i <= fix[0]!) out[i] = atFix[0]!
      else if (k === m - 1) out[i] = atFix[m - 1]!
      else {
        const t0 = timeS[fix[k]!]!
        const t1 = timeS[fix[k + 1]!]!
        out[i] = t1 > t0 ? atFix[k]! + (atFix[k + 1]! - atFix[k]!) * ((timeS[i]! - t0) / (t1 - t0)) : atFix[k]!
      }
    }
    total = atFix[m - 1]!
  }
  return out
}

/**
 * The speed (m/s) that tells moving from stopped: the straight-line displacement between the
 * ends of a centred window of ±halfWindowS seconds over the time between them, positions taken
 * between fresh fixes by linear interpolation in time. A path length would add up the jitter of
 * a receiver standing still (a metre a second, as fast as a slow walk); its displacement stays
 * near zero. NaN where the segment has no fix.
 */
export const displacementSpeed = (
  timeS: Float64Array,
  positions: ReadonlyArray<readonly [number, number] | null>,
  segments: ReadonlyArray<readonly [number, number]>,
  halfWindowS: number
): Float64Array => {
  const n = timeS.length
  const lat = new Float64Array(n).fill(NaN)
  const lng = new Float64Array(n).fill(NaN)
  const out = new Float64Array(n).fill(NaN)
  let ruler: CheapRuler | null = null
  let rulerLat = NaN
  for (const [a, b] of segments) {
    const fix = freshFixes(positions, a, b)
    if (fix.length === 0) continue
    let k = 0
    for (let i = a; i < b; i++) {
      while (k + 1 < fix.length && fix[k + 1]! <= i) k++
      const p0 = positions[fix[k]!]!
      if (i <= fix[0]! || k === fix.length - 1) {
        const p = i <= fix[0]! ? positions[fix[0]!]! : p0
        lat[i] = p[0]
        lng[i] = p[1]
        continue
      }
      const p1 = positions[fix[k + 1]!]!
      const t0 = timeS[fix[k]!]!
      const t1 = timeS[fix[k + 1]!]!
      const f = t1 > t0 ? (timeS[i]! - t0) / (t1 - t0) : 0
      lat[i] = p0[0] + (p1[0] - p0[0]) * f
      lng[i] = p0[1] + (p1[1] - p0[1]) * f
    }
    forEachCentredWindow(timeS, a, b, halfWindowS, (i, lo, hi) => {
      const dt = timeS[hi]! - timeS[lo]!
      if (dt <= 0) return
      if (ruler === null || Math.abs(lat[i]! - rulerLat) > RULER_RECENTRE_DEG) {
        ruler = new CheapRuler(lat[i]!, "meters")
        rulerLat = lat[i]!
      }
      out[i] = ruler.distance([lng[lo]!, lat[lo]!], [lng[hi]!, lat[hi]!]) / dt
    })
  }
  return out
}

/**
 * Metres between two positions, on a ruler centred between them: exact enough for the
 * off-track check, which only compares far jumps (over a kilometre) and the speeds they imply.
 */
export const metresBetween = (lat1: number, lng1: number, lat2: number, lng2: number): number =>
  new CheapRuler((lat1 + lat2) / 2, "meters").distance([lng1, lat1], [lng2, lat2])
