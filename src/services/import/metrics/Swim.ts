import type { Length } from "../../../schema/ActivityDraft.ts"
import type { ParsedLength, ParsedSamples } from "../../../schema/ParsedActivity.ts"
import type { StrokeType } from "../../../schema/SwimStroke.ts"
import { isNum, kmh } from "./Numbers.ts"

/**
 * A pool swim's lengths: the device records each one (its time, strokes and stroke) and the
 * rests between them. A length is the pool's length; its SWOLF is its seconds plus its strokes
 * (lower is better), and a lap's or a swim's SWOLF the mean over its lengths. The time swum is
 * the time of the lengths, rests left out: a pool swim's moving time, as the watch shows it.
 * A watch in a pool has no GPS, and the distance of its records is sparse or missing (a reading
 * every few lengths, none after the first 1,800 m of 2,300): the distance over time is that of
 * the lengths, each covered at its own even pace.
 */

/** A length as computed, before it is given its lap; `seconds` its time unrounded (the sums of many add up). */
export type SwimLength = Omit<Length, "lapIndex"> & { readonly seconds: number }

/** The active lengths (rests left out), in order, with their times since `startTime` (epoch ms). */
export const computeLengths = (lengths: ReadonlyArray<ParsedLength>, poolLengthMeters: number, startTime: number): Array<SwimLength> =>
  lengths
    .filter((l) => l.active && l.elapsedSeconds > 0)
    .sort((a, b) => a.startTime - b.startTime)
    .map((l, i) => ({
      lengthIndex: i + 1,
      startOffsetSeconds: Math.round((l.startTime - startTime) / 1000),
      elapsedTimeInSeconds: Math.round(l.elapsedSeconds),
      distanceInMeter: poolLengthMeters,
      averageSpeedInKmPerHour: kmh(poolLengthMeters / l.elapsedSeconds),
      strokes: isNum(l.strokes) && l.strokes > 0 ? Math.round(l.strokes) : null,
      strokeType: l.strokeType,
      swolf: isNum(l.strokes) && l.strokes > 0 ? Math.round(l.elapsedSeconds + l.strokes) : null,
      seconds: l.elapsedSeconds
    }))

export interface SwimFigures {
  readonly numberOfLengths: number
  readonly strokes: number | null
  readonly swolf: number | null
  /** seconds swum: the lengths' time, rests left out */
  readonly swumSeconds: number
  /** the one stroke of every length, "mixed" when they differ, null when none was recorded */
  readonly strokeType: StrokeType | null
}

/** What a set of lengths (a lap's, or the whole swim's) adds up to. */
export const swimFigures = (lengths: ReadonlyArray<SwimLength>): SwimFigures => {
  let strokes = 0
  let counted = 0
  let swolf = 0
  let swolfs = 0
  let swumSeconds = 0
  const types = new Set<StrokeType>()
  for (const l of lengths) {
    swumSeconds += l.seconds
    if (l.strokes !== null) {
      strokes += l.strokes
      counted++
    }
    if (l.swolf !== null) {
      swolf += l.swolf
      swolfs++
    }
    if (l.strokeType !== null) types.add(l.strokeType)
  }
  return {
    numberOfLengths: lengths.length,
    strokes: counted > 0 ? strokes : null,
    swolf: swolfs > 0 ? Math.round(swolf / swolfs) : null,
    swumSeconds,
    strokeType: types.size === 0 ? null : types.size === 1 ? [...types][0]! : "mixed"
  }
}

/**
 * The samples with the distance the lengths give (each length's pool length covered evenly over
 * its time, none during a rest), in place of what the records say. Lengths swum before the
 * first record or after the last (a watch that wrote records late, or stopped before the swim's
 * end) add a sample at each of their starts and ends, so that the distance over time covers the
 * whole swim.
 */
export const withDistanceOfLengths = (
  samples: ParsedSamples,
  lengths: ReadonlyArray<ParsedLength>,
  poolLengthMeters: number
): ParsedSamples => {
  const active = lengths.filter((l) => l.active && l.elapsedSeconds > 0).sort((a, b) => a.startTime - b.startTime)
  if (active.length === 0) return samples
  const endOf = (l: ParsedLength) => l.startTime + l.elapsedSeconds * 1000
  const firstTime = samples.time[0] ?? Infinity
  const lastTime = samples.time[samples.time.length - 1] ?? -Infinity
  const bounds = [...new Set(active.flatMap((l) => [l.startTime, endOf(l)]))]
  const earlier = bounds.filter((t) => t < firstTime).sort((a, b) => a - b)
  const later = bounds.filter((t) => t > lastTime).sort((a, b) => a - b)
  const extended = earlier.length === 0 && later.length === 0 ? samples : withEmpty(samples, earlier, later)
  const n = extended.time.length
  const distance = new Array<number | null>(n)
  let k = 0
  let before = 0
  for (let i = 0; i < n; i++) {
    const t = extended.time[i]!
    while (k < active.length && endOf(active[k]!) <= t) {
      before += poolLengthMeters
      k++
    }
    const current = active[k]
    const into = current !== undefined && t > current.startTime
      ? poolLengthMeters * Math.min(1, (t - current.startTime) / (current.elapsedSeconds * 1000))
      : 0
    distance[i] = before + into
  }
  return { ...extended, distance }
}

/** The samples between samples at `before` and `after` (earlier and later than all of them) that recorded nothing. */
const withEmpty = (samples: ParsedSamples, before: ReadonlyArray<number>, after: ReadonlyArray<number>): ParsedSamples => {
  const column = (values: ReadonlyArray<number | null>) => [...before.map(() => null), ...values, ...after.map(() => null)]
  return {
    time: [...before, ...samples.time, ...after],
    lat: column(samples.lat),
    lng: column(samples.lng),
    altitude: column(samples.altitude),
    distance: column(samples.distance),
    speed: column(samples.speed),
    heartRate: column(samples.heartRate),
    cadence: column(samples.cadence),
    power: column(samples.power),
    temperature: column(samples.temperature),
    segmentStarts: samples.segmentStarts.map((i) => i + before.length)
  }
}
