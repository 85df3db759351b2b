import type { ParsedSamples } from "../../../schema/ParsedActivity.ts"
import type { SportProfile } from "./SportProfile.ts"
import { forEachCentredWindow } from "./CentredWindow.ts"
import { displacementSpeed, gpsDistance } from "./GpsTrack.ts"
import { isNum } from "./Numbers.ts"

/** Intervals longer than this are recording gaps (auto-pause, signal loss): never moving time. */
export const MAX_RECORDING_GAP_S = 60
/** Half width (s) of the centred window over which a speed is derived from distance. */
const SPEED_HALF_WINDOW_S = 2.5
/**
 * Half width (s) of the window over which the speed that decides moving or stopped is read:
 * long enough that a receiver standing still (its fixes wandering a few metres) reads below the
 * stop speed, short enough that a stop at a crossing is seen.
 */
const STOP_HALF_WINDOW_S = 5

/**
 * The per-sample kinematics every later step works from. Interval i is the time between
 * sample i−1 and sample i; it is never counted across a segment start.
 */
export interface Motion {
  readonly n: number
  /** seconds since the activity start */
  readonly timeS: Float64Array
  /** [start, end) of each recording segment */
  readonly segments: ReadonlyArray<readonly [number, number]>
  readonly segmentStart: Uint8Array
  /** positions as [lat, lng] or null */
  readonly positions: Array<[number, number] | null>
  readonly positionCount: number
  /** cumulative metres (0 everywhere when nothing tells the distance) */
  readonly distance: Float64Array
  readonly hasDistance: boolean
  /** where the distance came from */
  readonly distanceSource: "device" | "gps" | "speed" | "none"
  /** m/s per sample, NaN when unknown */
  readonly velocity: Float64Array
  readonly hasVelocity: boolean
  /** 1 when interval i (ending at sample i) counts as moving */
  readonly movingInterval: Uint8Array
  /** cumulative moving seconds at each sample */
  readonly movingCum: Float64Array
  /** cumulative seconds stopped at each sample: recorded intervals (≤ 60 s) below the stop speed */
  readonly stoppedCum: Float64Array
  /** the `moving` stream: speed at or above the stop speed (unknown counts as moving) */
  readonly movingSample: Uint8Array
}

const validFix = (lat: number | null | undefined, lng: number | null | undefined): boolean =>
  isNum(lat) && isNum(lng) && !(lat === 0 && lng === 0) && Math.abs(lat) <= 90 && Math.abs(lng) <= 180

/**
 * Each step below is a function of its own, with its own loops: V8 optimizes each apart, and a
 * file that takes a branch no earlier file took (GPS distance after device distance) sends
 * only that small function back to be compiled again, not the whole computation (which,
 * optimized as one, was compiled nine times over the corpus in each parse worker).
 */
export const computeMotion = (samples: ParsedSamples, startTime: number, profile: SportProfile): Motion => {
  const n = samples.time.length
  const timeS = secondsSince(samples.time, startTime)
  const { segments, segmentStart } = segmentsOf(samples.segmentStarts, n)
  const { positions, positionCount } = positionsOf(samples.lat, samples.lng, n)
  const deviceSpeed = samples.speed.some(isNum)
  const distanceSource: Motion["distanceSource"] = samples.distance.some(isNum)
    ? "device"
    : positionCount >= 2
    ? "gps"
    : deviceSpeed
    ? "speed"
    : "none"
  const distance = distanceSource === "device"
    ? deviceDistance(samples.distance, timeS, segmentStart)
    : distanceSource === "gps"
    ? gpsDistance(timeS, positions, segments, profile.positionSmoothS)
    : distanceSource === "speed"
    ? speedDistance(samples.speed, timeS, segmentStart)
    : new Float64Array(n)
  // a device's distance counts from its own zero (a leg of a triathlon from the race's start): the
  // activity's from its first sample
  if (distanceSource === "device") fromZero(distance)
  const hasDistance = distanceSource !== "none" && n > 0 && distance[n - 1]! > 0

  // velocity: device speed where recorded, else the centred-window speed from the distance
  const velocity = hasDistance ? windowSpeed(timeS, distance, segments, SPEED_HALF_WINDOW_S) : new Float64Array(n).fill(NaN)
  if (deviceSpeed) overlayDeviceSpeed(velocity, samples.speed)
  const hasVelocity = velocity.some((v) => !Number.isNaN(v))

  // moving: the speed that decides it is read from the GPS track when there is one, whatever
  // the format, so that a ride gets one moving time as FIT, GPX or TCX (a device's speed sensor
  // reads a stopped wheel, but a GPX carries no speed); else the device speed or distance
  const stopSpeed = positionCount >= 2 ? displacementSpeed(timeS, positions, segments, STOP_HALF_WINDOW_S) : velocity
  const moving = movingOf(timeS, segmentStart, stopSpeed, profile.stop)

  return { n, timeS, segments, segmentStart, positions, positionCount, distance, hasDistance, distanceSource, velocity, hasVelocity, ...moving }
}

/** Seconds since `startTime` (epoch ms) of each sample. */
const secondsSince = (time: ReadonlyArray<number>, startTime: number): Float64Array => {
  const n = time.length
  const timeS = new Float64Array(n)
  for (let i = 0; i < n; i++) timeS[i] = (time[i]! - startTime) / 1000
  return timeS
}

/** The recording segments of `n` samples, from the indices where segments after the first start. */
const segmentsOf = (segmentStarts: ReadonlyArray<number>, n: number) => {
  const segmentStart = new Uint8Array(n)
  const starts = [...new Set(segmentStarts)].filter((s) => s > 0 && s < n).sort((a, b) => a - b)
  for (const s of starts) segmentStart[s] = 1
  const segments: Array<readonly [number, number]> = []
  if (n > 0) {
    let a = 0
    for (const s of starts) {
      segments.push([a, s])
      a = s
    }
    segments.push([a, n])
  }
  return { segments, segmentStart }
}

/** The valid fixes of `n` samples as [lat, lng] (null elsewhere), and how many there are. */
const positionsOf = (lat: ReadonlyArray<number | null>, lng: ReadonlyArray<number | null>, n: number) => {
  const positions = new Array<[number, number] | null>(n)
  let positionCount = 0
  for (let i = 0; i < n; i++) {
    const la = lat[i]
    const lo = lng[i]
    if (validFix(la, lo)) {
      positions[i] = [la!, lo!]
      positionCount++
    } else positions[i] = null
  }
  return { positions, positionCount }
}

/** Cumulative metres from the device's own distance readings. */
const deviceDistance = (readings: ReadonlyArray<number | null>, timeS: Float64Array, segmentStart: Uint8Array): Float64Array => {
  const n = timeS.length
  const distance = new Float64Array(n)
  let prev = 0
  let offset = 0
  let seenFirst = false
  let lastRead = -1
  for (let i = 0; i < n; i++) {
    const raw = readings[i]
    if (isNum(raw)) {
      // a reset at a new segment (one TCX track per lap) continues from the previous total
      if (segmentStart[i] === 1 && seenFirst && raw + offset < prev - 1) offset = prev - raw
      const d = raw + offset
      if (!seenFirst) {
        // leading samples without distance take the first recorded value
        for (let j = 0; j < i; j++) distance[j] = d
        seenFirst = true
        prev = d
      }
      const next = Math.max(prev, d)
      // samples between two readings lie on the line between them in time: carried forward,
      // the distance of a gap would be covered in the one second after it (a best kilometre
      // of one second)
      if (lastRead >= 0 && i - lastRead > 1 && timeS[i]! > timeS[lastRead]!) {
        const from = timeS[lastRead]!
        const span = timeS[i]! - from
        for (let j = lastRead + 1; j < i; j++) distance[j] = prev + (next - prev) * ((timeS[j]! - from) / span)
      }
      prev = next
      lastRead = i
    }
    distance[i] = prev
  }
  return distance
}

/** Cumulative metres counted from the first sample's. */
const fromZero = (distance: Float64Array): void => {
  const d0 = distance[0]
  if (d0 === undefined || d0 === 0) return
  for (let i = 0; i < distance.length; i++) distance[i] = distance[i]! - d0
}

/** Cumulative metres integrated from the device's speed, never across a recording gap. */
const speedDistance = (speed: ReadonlyArray<number | null>, timeS: Float64Array, segmentStart: Uint8Array): Float64Array => {
  const n = timeS.length
  const distance = new Float64Array(n)
  let acc = 0
  for (let i = 1; i < n; i++) {
    const dt = timeS[i]! - timeS[i - 1]!
    const v = speed[i]
    if (segmentStart[i] !== 1 && dt > 0 && dt <= MAX_RECORDING_GAP_S && isNum(v) && v > 0) acc += v * dt
    distance[i] = acc
  }
  return distance
}

/** The device's speed over `velocity` wherever it recorded one. */
const overlayDeviceSpeed = (velocity: Float64Array, speed: ReadonlyArray<number | null>): void => {
  const n = velocity.length
  for (let i = 0; i < n; i++) {
    const v = speed[i]
    if (isNum(v) && v >= 0) velocity[i] = v
  }
}

/** Which samples and intervals are moving (at or above `stop` m/s), and the seconds moving and stopped so far. */
const movingOf = (timeS: Float64Array, segmentStart: Uint8Array, stopSpeed: Float64Array, stop: number) => {
  const n = timeS.length
  const movingSample = new Uint8Array(n)
  const movingInterval = new Uint8Array(n)
  const movingCum = new Float64Array(n)
  const stoppedCum = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const v = stopSpeed[i]!
    movingSample[i] = Number.isNaN(v) || v >= stop ? 1 : 0
    if (i === 0) continue
    const dt = timeS[i]! - timeS[i - 1]!
    const counts = segmentStart[i] !== 1 && dt > 0 && dt <= MAX_RECORDING_GAP_S && movingSample[i] === 1
    movingInterval[i] = counts ? 1 : 0
    movingCum[i] = movingCum[i - 1]! + (counts ? dt : 0)
    const recorded = segmentStart[i] !== 1 && dt > 0 && dt <= MAX_RECORDING_GAP_S
    stoppedCum[i] = stoppedCum[i - 1]! + (recorded && !counts ? dt : 0)
    if (dt > MAX_RECORDING_GAP_S) movingSample[i] = 0
  }
  return { movingSample, movingInterval, movingCum, stoppedCum }
}

/** Speed (m/s) at each sample over a centred window of ±halfWindowS (at least one neighbour); NaN when unknown. */
const windowSpeed = (
  timeS: Float64Array,
  distance: Float64Array,
  segments: ReadonlyArray<readonly [number, number]>,
  halfWindowS: number
): Float64Array => {
  const out = new Float64Array(timeS.length).fill(NaN)
  for (const [a, b] of segments) {
    forEachCentredWindow(timeS, a, b, halfWindowS, (i, lo, hi) => {
      const dt = timeS[hi]! - timeS[lo]!
      if (dt > 0) out[i] = (distance[hi]! - distance[lo]!) / dt
    })
  }
  return out
}

/** Max of the velocity after a 3-point median (single-sample spikes) and dropping implausible values. */
export const robustMaxSpeed = (velocity: Float64Array, maxPlausible: number): number => {
  const n = velocity.length
  let max = 0
  for (let i = 0; i < n; i++) {
    const a = velocity[i > 0 ? i - 1 : i]!
    const b = velocity[i]!
    const c = velocity[i < n - 1 ? i + 1 : i]!
    if (Number.isNaN(b)) continue
    const m = Number.isNaN(a) || Number.isNaN(c) ? b : Math.max(Math.min(a, b), Math.min(Math.max(a, b), c))
    if (m <= maxPlausible && m > max) max = m
  }
  return max
}

/**
 * The moving time of a GPS activity with a device timer: what the track shows, never more than
 * the timer; the part of the timer that the track does not cover (a track of a few points
 * under a workout summary, a recording gap while the timer ran) is taken as the timer says.
 */
export const movingWithinTimer = (timerS: number, trackMovingS: number, trackRecordedS: number): number =>
  Math.min(timerS, trackMovingS + Math.max(0, timerS - trackRecordedS))
