/**
 * The part of an activity's track that may leave through a share link: every sample with a
 * position outside each privacy zone and beyond the hidden ends (the first and the last metres,
 * measured along the track). Everything a share shows is read from this and from nothing else:
 * the route drawn on the page and on the picture, its bounds, the charts and the figures
 * (distance, time, elevation gain, averages), so that none of them leads back to a hidden point.
 *
 * The visible samples come in runs (segments); a line is drawn within a run only, never across
 * what was taken out, and a run is cut where the line between two samples would pass through a
 * zone (a sparse recording skirting one). A sample without a position is not visible: where it
 * was cannot be told. An activity without any position shares its totals and no track.
 */

export type LatLng = readonly [number, number]

export interface TrackSamples {
  readonly latlng?: ReadonlyArray<LatLng | null> | undefined
  /** seconds from the start */
  readonly time?: ReadonlyArray<number | null> | undefined
  /**
   * the activity's own metres since the start: where both ends of a step have one, the step is
   * measured by it, so that a shared part is as long as the same part of the activity (a noisy
   * track's straight-line sum, which the import filters, can be several times longer)
   */
  readonly distance?: ReadonlyArray<number | null> | undefined
  readonly altitude?: ReadonlyArray<number | null> | undefined
  readonly heartrate?: ReadonlyArray<number | null> | undefined
  readonly watts?: ReadonlyArray<number | null> | undefined
}

export interface Circle {
  readonly latitude: number
  readonly longitude: number
  readonly radiusInMeter: number
}

export interface Bounds {
  readonly south: number
  readonly west: number
  readonly north: number
  readonly east: number
}

/** One visible sample: its position, its distance along the visible track, and what was recorded there. */
export interface VisibleSample {
  readonly latlng: LatLng
  /** metres along the visible track (the hidden parts not counted) */
  readonly distance: number
  readonly altitude: number | null
  readonly heartrate: number | null
  readonly watts: number | null
}

export interface VisibleTrack {
  /** false: the activity recorded no position, and shares its totals without a track */
  readonly hasPositions: boolean
  /** runs of visible samples, each drawn as one line */
  readonly segments: ReadonlyArray<ReadonlyArray<VisibleSample>>
  readonly distanceInMeter: number
  /** seconds between the samples of each run, summed; null without a time stream */
  readonly timeInSeconds: number | null
  readonly elevationGainInMeter: number | null
  readonly bounds: Bounds | null
}

const EARTH_RADIUS = 6_371_008.8
const RAD = Math.PI / 180

export const haversine = (a: LatLng, b: LatLng): number => {
  const dLat = (b[0] - a[0]) * RAD
  const dLng = (b[1] - a[1]) * RAD
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a[0] * RAD) * Math.cos(b[0] * RAD) * Math.sin(dLng / 2) ** 2
  return 2 * EARTH_RADIUS * Math.asin(Math.min(1, Math.sqrt(h)))
}

const inside = (p: LatLng, zone: Circle) => haversine(p, [zone.latitude, zone.longitude]) <= zone.radiusInMeter

/** Whether the straight line from `a` to `b` comes within the zone (on a plane tangent at its centre: zones are at most 2 km). */
const crosses = (a: LatLng, b: LatLng, zone: Circle): boolean => {
  const k = Math.cos(zone.latitude * RAD) * RAD * EARTH_RADIUS
  const ax = (a[1] - zone.longitude) * k, ay = (a[0] - zone.latitude) * RAD * EARTH_RADIUS
  const bx = (b[1] - zone.longitude) * k, by = (b[0] - zone.latitude) * RAD * EARTH_RADIUS
  const dx = bx - ax, dy = by - ay
  const length2 = dx * dx + dy * dy
  const t = length2 === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / length2))
  return Math.hypot(ax + t * dx, ay + t * dy) <= zone.radiusInMeter
}

/** A gain counts once the altitude has risen this far above its last low: GPS noise does not add up. */
const GAIN_HYSTERESIS = 2

const isPosition = (p: LatLng | null | undefined): p is LatLng =>
  p != null && Number.isFinite(p[0]) && Number.isFinite(p[1]) && Math.abs(p[0]) <= 90 && Math.abs(p[1]) <= 180

const numberOrNull = (v: number | null | undefined) => (typeof v === "number" && Number.isFinite(v) ? v : null)

export const visibleTrack = (samples: TrackSamples, zones: ReadonlyArray<Circle>, hiddenEndsInMeter: number): VisibleTrack => {
  const latlng = samples.latlng ?? []
  // the distance along the whole recorded track at each positioned sample
  const along: Array<number> = new Array(latlng.length).fill(NaN)
  const own = samples.distance !== undefined && samples.distance.length === latlng.length ? samples.distance : undefined
  /** metres from sample `from` to sample `to` (both with a position) */
  const step = (from: number, to: number): number => {
    const a = own === undefined ? null : numberOrNull(own[from])
    const b = own === undefined ? null : numberOrNull(own[to])
    return a !== null && b !== null ? Math.max(0, b - a) : haversine(latlng[from]!, latlng[to]!)
  }
  let total = 0
  let previous = -1
  for (let i = 0; i < latlng.length; i++) {
    const p = latlng[i]
    if (!isPosition(p)) continue
    if (previous >= 0) total += step(previous, i)
    along[i] = total
    previous = i
  }
  if (previous < 0) {
    return { hasPositions: false, segments: [], distanceInMeter: 0, timeInSeconds: null, elevationGainInMeter: null, bounds: null }
  }

  const hidden = Math.max(0, hiddenEndsInMeter)
  const visible = (i: number) => {
    const d = along[i]!
    if (Number.isNaN(d) || d < hidden || d > total - hidden) return false
    const p = latlng[i]!
    return !zones.some((zone) => inside(p, zone))
  }

  const time = samples.time
  const hasTime = time !== undefined && time.length === latlng.length
  const segments: Array<Array<VisibleSample>> = []
  let current: Array<VisibleSample> | null = null
  let lastIndex = -1
  let distance = 0
  let seconds = 0
  let gain = 0
  let hasAltitude = false
  let south = 90, west = 180, north = -90, east = -180

  for (let i = 0; i < latlng.length; i++) {
    if (!visible(i)) {
      current = null
      continue
    }
    const p = latlng[i]!
    if (current !== null && zones.some((zone) => crosses(latlng[lastIndex]!, p, zone))) current = null
    const altitude = numberOrNull(samples.altitude?.[i])
    if (current === null) {
      current = []
      segments.push(current)
    } else {
      distance += step(lastIndex, i)
      const t0 = hasTime ? numberOrNull(time[lastIndex]) : null
      const t1 = hasTime ? numberOrNull(time[i]) : null
      if (t0 !== null && t1 !== null && t1 > t0) seconds += t1 - t0
    }
    if (altitude !== null) hasAltitude = true
    current.push({
      latlng: p,
      distance,
      altitude,
      heartrate: numberOrNull(samples.heartrate?.[i]),
      watts: numberOrNull(samples.watts?.[i])
    })
    south = Math.min(south, p[0])
    north = Math.max(north, p[0])
    west = Math.min(west, p[1])
    east = Math.max(east, p[1])
    lastIndex = i
  }

  for (const segment of segments) {
    let low: number | null = null
    for (const sample of segment) {
      if (sample.altitude === null) continue
      if (low === null || sample.altitude < low) low = sample.altitude
      else if (sample.altitude - low >= GAIN_HYSTERESIS) {
        gain += sample.altitude - low
        low = sample.altitude
      }
    }
  }

  const any = segments.length > 0
  return {
    hasPositions: true,
    segments,
    distanceInMeter: distance,
    timeInSeconds: hasTime ? seconds : null,
    elevationGainInMeter: hasAltitude ? gain : null,
    bounds: any ? { south, west, north, east } : null
  }
}
