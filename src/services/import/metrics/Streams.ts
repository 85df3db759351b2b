import type { ActivityStreams } from "../../../schema/ActivityDraft.ts"
import type { ParsedSamples } from "../../../schema/ParsedActivity.ts"
import type { Motion } from "./Motion.ts"
import { gapFill, round } from "./Numbers.ts"

type MutableStreams = { -readonly [K in keyof ActivityStreams]: ActivityStreams[K] }

const hasTruthy = (values: ReadonlyArray<unknown>): boolean => values.some((v) => Boolean(v))

/** Gap-filled, rounded numeric stream, or undefined when it has no truthy value. */
const numeric = (values: ReadonlyArray<number | null>, decimals: number): Array<number> | undefined => {
  const filled = gapFill(values.map((v) => (typeof v === "number" && Number.isFinite(v) ? v : null)))
  if (!filled) return undefined
  for (let i = 0; i < filled.length; i++) filled[i] = round(filled[i]!, decimals)
  return hasTruthy(filled) ? filled : undefined
}

const fromFloat = (values: Float64Array, decimals: number): Array<number> | undefined =>
  numeric(Array.from(values, (v) => (Number.isNaN(v) ? null : v)), decimals)

/**
 * The stored streams, one entry per sample: time (s since start, 1 decimal), latlng (6 decimals),
 * distance (m, 1 decimal), altitude (m, 1 decimal), velocity_smooth (m/s, 2 decimals), heartrate,
 * cadence, watts (integers), temp (1 decimal), moving. Nulls are gap-filled; a stream without
 * any truthy value is left out.
 */
export const buildStreams = (samples: ParsedSamples, motion: Motion): ActivityStreams => {
  const streams: MutableStreams = { time: Array.from(motion.timeS, (t) => round(t, 1)) }
  if (motion.n === 0) return streams
  if (motion.positionCount > 0) {
    const latlng = gapFill(motion.positions.map((p) => (p ? [round(p[0], 6), round(p[1], 6)] as [number, number] : null)))
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
    const moving = Array.from(motion.movingSample, (m) => m === 1)
    if (hasTruthy(moving)) streams.moving = moving
  }
  return streams
}
