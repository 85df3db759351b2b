import CheapRuler from "cheap-ruler"

/**
 * A small grid town for the segments' tests and bench: streets every BLOCK metres, east-west
 * and north-south, crossing at intersections (x, y) for x, y in 0..SIZE; routes through it
 * from one intersection to the next, recorded as a device would (a sample every `every`
 * seconds, optionally scattered by GPS noise). Deterministic: noise comes from a seeded generator.
 */

export const ORIGIN = { lat: 51.05, lon: 3.72 } as const
export const BLOCK = 200
export const SIZE = 5
const ruler = new CheapRuler(ORIGIN.lat, "meters")

export type Corner = readonly [number, number]

/** The position of a point `east`, `north` metres from the origin, [lat, lon]. */
export const at = (east: number, north: number): [number, number] => [ORIGIN.lat + north / ruler.ky, ORIGIN.lon + east / ruler.kx]
export const corner = ([x, y]: Corner): [number, number] => at(x * BLOCK, y * BLOCK)

/** A seeded generator (mulberry32): the same noise on every run. */
export const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

export interface Recording {
  /** metres a second */
  readonly speed: number
  /** seconds between samples */
  readonly every?: number
  /** the largest scatter of a sample, metres (uniform in a disc) */
  readonly noise?: number
  readonly seed?: number
}

export interface RecordedTrack {
  readonly time: Array<number>
  readonly latlng: Array<[number, number]>
  readonly distance: Array<number>
  readonly altitude: Array<number>
  readonly heartrate: Array<number>
  readonly watts: Array<number>
  readonly cadence: Array<number>
  readonly moving: Array<boolean>
}

/** A path through points given in metres east and north of the origin, recorded at a constant speed. */
export const recordPath = (path: ReadonlyArray<readonly [number, number]>, recording: Recording): RecordedTrack => {
  const every = recording.every ?? 1
  const random = seeded(recording.seed ?? 1)
  const legs = path.slice(1).map((p, i) => Math.hypot(p[0] - path[i]![0], p[1] - path[i]![1]))
  const total = legs.reduce((a, b) => a + b, 0)
  const track: RecordedTrack = { time: [], latlng: [], distance: [], altitude: [], heartrate: [], watts: [], cadence: [], moving: [] }
  let leg = 0
  let legStart = 0
  for (let t = 0; ; t += every) {
    const d = Math.min(total, t * recording.speed)
    while (leg < legs.length - 1 && d > legStart + legs[leg]!) legStart += legs[leg++]!
    const f = legs[leg] === 0 ? 0 : (d - legStart) / legs[leg]!
    const a = path[leg]!, b = path[leg + 1]!
    const r = (recording.noise ?? 0) * Math.sqrt(random())
    const angle = 2 * Math.PI * random()
    const east = a[0] + (b[0] - a[0]) * f + r * Math.cos(angle)
    const north = a[1] + (b[1] - a[1]) * f + r * Math.sin(angle)
    track.time.push(t)
    track.latlng.push(at(east, north))
    track.distance.push(d)
    track.altitude.push(10 + north / 50)
    track.heartrate.push(140)
    track.watts.push(200)
    track.cadence.push(85)
    track.moving.push(true)
    if (d >= total) break
  }
  return track
}

/** A route from corner to corner along the streets (each step to a neighbouring corner), in metres. */
export const streetPath = (corners: ReadonlyArray<Corner>) => corners.map(([x, y]) => [x * BLOCK, y * BLOCK] as const)

/** The corners a route passes, one block at a time (straight runs between the given corners filled in). */
export const blocksOf = (corners: ReadonlyArray<Corner>): Array<Corner> => {
  const out: Array<Corner> = [corners[0]!]
  for (let i = 1; i < corners.length; i++) {
    const [x0, y0] = corners[i - 1]!, [x1, y1] = corners[i]!
    const steps = Math.abs(x1 - x0) + Math.abs(y1 - y0)
    for (let s = 1; s <= steps; s++) out.push([x0 + Math.sign(x1 - x0) * s, y0 + Math.sign(y1 - y0) * s])
  }
  return out
}
