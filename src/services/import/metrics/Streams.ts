import type { ActivityStreams } from "../../../schema/ActivityDraft.ts"
import type { ParsedSamples } from "../../../schema/ParsedActivity.ts"
import type { Motion } from "./Motion.ts"
import { gapFill, round } from "./Numbers.ts"

type MutableStreams = { -readonly [K in keyof ActivityStreams]: ActivityStreams[K] }

const hasTruthy = (values: ReadonlyArray<unknown>): boolean => {
  for (let i = 0; i < values.length; i++) if (values[i]) return true
  return false
}

/**
 * Gap-filled, rounded numeric stream, or undefined when it has no truthy value; null, NaN or
 * an infinity is no value. The gap-fill is done here rather than by `gapFill`: an array that
 * holds nulls boxes each of its numbers, and the rounded values would go through one, while
 * filled here they go straight into an array of numbers only. Indexed loops: they run over
 * every sample once per file, mostly before the optimizing compiler has seen them, where
 * iterators and callbacks allocate for each sample.
 */
const numeric = (values: ArrayLike<number | null>, decimals: number): Array<number> | undefined => {
  const valueAt = (i: number): number | null => {
    const v = values[i]
    return typeof v === "number" && Number.isFinite(v) ? v : null
  }
  let first: number | null = null
  for (let i = 0; i < values.length && first === null; i++) first = valueAt(i)
  if (first === null) return undefined
  const out = new Array<number>(values.length)
  let prev = round(first, decimals)
  let truthy = false
  for (let i = 0; i < values.length; i++) {
    const v = valueAt(i)
    if (v !== null) prev = round(v, decimals)
    out[i] = prev
    if (prev !== 0) truthy = true
  }
  return truthy ? out : undefined
}

/** Seconds since the start, 1 decimal. */
const roundedTimes = (timeS: Float64Array): Array<number> => {
  const time = new Array<number>(timeS.length)
  for (let i = 0; i < time.length; i++) time[i] = round(timeS[i]!, 1)
  return time
}

/** Positions at 6 decimals, gap-filled; null when there is none. */
const roundedPositions = (positions: ReadonlyArray<readonly [number, number] | null>): Array<[number, number]> | null => {
  const rounded = new Array<[number, number] | null>(positions.length)
  for (let i = 0; i < rounded.length; i++) {
    const p = positions[i]
    rounded[i] = p ? [round(p[0], 6), round(p[1], 6)] : null
  }
  return gapFill(rounded)
}

/** The moving flags, or undefined when no sample moves. */
const movingFlags = (movingSample: Uint8Array): Array<boolean> | undefined => {
  const moving = new Array<boolean>(movingSample.length)
  for (let i = 0; i < moving.length; i++) moving[i] = movingSample[i] === 1
  return hasTruthy(moving) ? moving : undefined
}

/**
 * The stored streams, one entry per sample: time (s since start, 1 decimal), latlng (6 decimals),
 * distance (m, 1 decimal), altitude (m, 1 decimal), velocity (m/s, 2 decimals), heartrate,
 * cadence, watts (integers), temperature (1 decimal), moving. Nulls are gap-filled; a stream without
 * any truthy value is left out. Each loop is a function of its own: the optimizing compiler
 * takes them one by one, and a file unlike the ones before sends only the loop it changes back
 * to be compiled again.
 */
export const buildStreams = (samples: ParsedSamples, motion: Motion): ActivityStreams => {
  const streams: MutableStreams = { time: roundedTimes(motion.timeS) }
  if (motion.n === 0) return streams
  const latlng = motion.positionCount > 0 ? roundedPositions(motion.positions) : null
  if (latlng) streams.latlng = latlng
  const distance = motion.hasDistance ? numeric(motion.distance, 1) : undefined
  if (distance) streams.distance = distance
  const altitude = numeric(samples.altitude, 1)
  if (altitude) streams.altitude = altitude
  const velocity = motion.hasVelocity ? numeric(motion.velocity, 2) : undefined
  if (velocity) streams.velocity = velocity
  const heartrate = numeric(samples.heartRate, 0)
  if (heartrate) streams.heartrate = heartrate
  const cadence = numeric(samples.cadence, 0)
  if (cadence) streams.cadence = cadence
  const watts = numeric(samples.power, 0)
  if (watts) streams.watts = watts
  const temperature = numeric(samples.temperature, 1)
  if (temperature) streams.temperature = temperature
  const moving = motion.hasVelocity ? movingFlags(motion.movingSample) : undefined
  if (moving) streams.moving = moving
  return streams
}
