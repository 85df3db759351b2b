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
 * Gap-filled, rounded numeric stream, or undefined when it has no truthy value. `at(i)` is the
 * sample's value, null or NaN for none. Indexed loops throughout: these run over every sample
 * once per file, mostly before the optimizing compiler has seen them, where iterators and
 * callbacks allocate for each sample.
 */
const numericOf = (n: number, at: (i: number) => number | null, decimals: number): Array<number> | undefined => {
  let first = -1
  for (let i = 0; i < n; i++) {
    const v = at(i)
    if (v !== null && Number.isFinite(v)) {
      first = i
      break
    }
  }
  if (first < 0) return undefined
  const out = new Array<number>(n)
  let prev = round(at(first)!, decimals)
  let truthy = false
  for (let i = 0; i < n; i++) {
    const v = at(i)
    if (v !== null && Number.isFinite(v)) prev = round(v, decimals)
    out[i] = prev
    if (prev !== 0) truthy = true
  }
  return truthy ? out : undefined
}

const numeric = (values: ReadonlyArray<number | null>, decimals: number): Array<number> | undefined =>
  numericOf(values.length, (i) => values[i]!, decimals)

const fromFloat = (values: Float64Array, decimals: number): Array<number> | undefined =>
  numericOf(values.length, (i) => values[i]!, decimals)

/**
 * The stored streams, one entry per sample: time (s since start, 1 decimal), latlng (6 decimals),
 * distance (m, 1 decimal), altitude (m, 1 decimal), velocity_smooth (m/s, 2 decimals), heartrate,
 * cadence, watts (integers), temp (1 decimal), moving. Nulls are gap-filled; a stream without
 * any truthy value is left out.
 */
export const buildStreams = (samples: ParsedSamples, motion: Motion): ActivityStreams => {
  const time = new Array<number>(motion.timeS.length)
  for (let i = 0; i < time.length; i++) time[i] = round(motion.timeS[i]!, 1)
  const streams: MutableStreams = { time }
  if (motion.n === 0) return streams
  if (motion.positionCount > 0) {
    const rounded = new Array<[number, number] | null>(motion.positions.length)
    for (let i = 0; i < rounded.length; i++) {
      const p = motion.positions[i]
      rounded[i] = p ? [round(p[0], 6), round(p[1], 6)] : null
    }
    const latlng = gapFill(rounded)
    if (latlng) streams.latlng = latlng
  }
  const distance = motion.hasDistance ? fromFloat(motion.distance, 1) : undefined
  if (distance) streams.distance = distance
  const altitude = numeric(samples.altitude, 1)
  if (altitude) streams.altitude = altitude
  const velocity = motion.hasVelocity ? fromFloat(motion.velocity, 2) : undefined
  if (velocity) streams.velocity_smooth = velocity
  const heartrate = numeric(samples.heartRate, 0)
  if (heartrate) streams.heartrate = heartrate
  const cadence = numeric(samples.cadence, 0)
  if (cadence) streams.cadence = cadence
  const watts = numeric(samples.power, 0)
  if (watts) streams.watts = watts
  const temp = numeric(samples.temperature, 1)
  if (temp) streams.temp = temp
  if (motion.hasVelocity) {
    const moving = new Array<boolean>(motion.movingSample.length)
    for (let i = 0; i < moving.length; i++) moving[i] = motion.movingSample[i] === 1
    if (hasTruthy(moving)) streams.moving = moving
  }
  return streams
}
