import type { ParsedLap } from "../../../schema/ParsedActivity.ts"
import type { Lap, Length } from "../../../schema/ActivityDraft.ts"
import { hysteresisGain } from "./Elevation.ts"
import { type Motion, movingWithinTimer } from "./Motion.ts"
import { isNum, kmh, lastIndexAtOrBefore, meanOf, round } from "./Numbers.ts"
import { type SwimLength, swimFigures } from "./Swim.ts"

export interface ActivitySummary {
  readonly elapsed: number
  readonly moving: number
  readonly distance: number
  readonly elevation: number
  readonly averageSpeedKmh: number
  readonly maxSpeedKmh: number
  readonly averageHeartRate: number | null
}

/** First sample index at or after `t` seconds (n when none). */
const firstIndexAtOrAfter = (timeS: Float64Array, t: number): number => {
  const i = lastIndexAtOrBefore(timeS, t)
  return i >= 0 && timeS[i] === t ? i : i + 1
}

/** A lap's bounds moved by more than this (s) to fit the activity: its device totals no longer describe it. */
const CLIPPED_S = 1

/**
 * Laps that are true to the activity: each file lap runs from its start to the next lap's
 * (the last to the activity's end, the first from its start), clipped to the activity, so that
 * no lap starts before it and the laps' times add up to its elapsed time. A lap left with no
 * time (one recorded before the activity began, or a second lap at the same instant) is
 * dropped. The device's totals of a lap win (its distance, timer, ascent, heart rate) unless the
 * lap was clipped, when they count what lies outside: its samples in range then tell them. Its
 * moving time follows the activity's rule (the samples' moving seconds, bounded by the lap's
 * timer; a pool swim's lap, the time of its lengths), its speed is its own distance over its own
 * moving time, and no lap is faster than the activity's own maximum speed: a lap that would be
 * (a few seconds of samples under a lap's distance) is given the time that speed needs.
 * Without file laps: one lap for the whole activity. A pool swim's lengths go to the lap they
 * start in: its strokes, lengths, SWOLF and stroke.
 */
export const computeLaps = (
  parsedLaps: ReadonlyArray<ParsedLap>,
  motion: Motion,
  smoothedAltitude: Float64Array,
  climbThreshold: number,
  heartRate: ReadonlyArray<number | null>,
  startTime: number,
  whole: ActivitySummary,
  swimming = false,
  lengths: ReadonlyArray<SwimLength> = []
): { readonly laps: Array<Lap>; readonly lengths: Array<Length> } => {
  const { n, timeS } = motion
  const ordered = [...parsedLaps].sort((a, b) => a.startTime - b.startTime)
  const bounds = ordered.map((lap, k) => {
    const rawStart = (lap.startTime - startTime) / 1000
    const next = ordered[k + 1]
    const rawEnd = isNum(lap.elapsedSeconds) ? rawStart + lap.elapsedSeconds : next !== undefined ? (next.startTime - startTime) / 1000 : whole.elapsed
    const start = k === 0 ? 0 : Math.min(whole.elapsed, Math.max(0, Math.round(rawStart)))
    const end = next !== undefined ? Math.min(whole.elapsed, Math.max(0, Math.round((next.startTime - startTime) / 1000))) : whole.elapsed
    const clipped = rawStart < -CLIPPED_S || rawEnd > whole.elapsed + CLIPPED_S
    return { lap, start, end: Math.max(start, end), clipped }
  }).filter((b) => b.end > b.start)
  const tiles = bounds.length > 0
    ? bounds
    : [{ lap: null, start: 0, end: whole.elapsed, clipped: false }]
  // a lap before the activity took the first's start: the first kept starts with the activity
  tiles[0] = { ...tiles[0]!, start: 0 }

  const laps: Array<Lap> = []
  const assigned: Array<Length> = []
  for (const [k, { lap, start, end, clipped }] of tiles.entries()) {
    const next = tiles[k + 1]
    const last = next === undefined
    const a = Math.min(firstIndexAtOrAfter(timeS, start), n)
    // the lap owns samples [a, b); its distance and moving time run up to the next lap's first sample
    const b = last ? n : Math.min(firstIndexAtOrAfter(timeS, end), n)
    const to = last ? b - 1 : Math.min(b, n - 1)
    const has = n > 0 && a < n && to >= a
    const elapsed = end - start
    const own = (v: number | null | undefined): v is number => lap !== null && !clipped && isNum(v)
    const mine = lengths.filter((l) => l.startOffsetSeconds >= start && (last || l.startOffsetSeconds < end))
    for (const { seconds: _seconds, ...l } of mine) assigned.push({ ...l, lapIndex: laps.length + 1 })
    const swim = mine.length > 0 ? swimFigures(mine) : null

    // the whole activity in one lap is the activity
    const single = tiles.length === 1
    const active = has ? motion.movingCum[to]! - motion.movingCum[a]! : 0
    // as for the whole activity: a GPS track tells the stops that the device's timer counted
    const recorded = has ? active + motion.stoppedCum[to]! - motion.stoppedCum[a]! : 0
    const timer = own(lap?.timerSeconds)
      ? motion.positionCount >= 2 && has ? movingWithinTimer(lap.timerSeconds, active, recorded) : lap.timerSeconds
      : active
    const sampleDistance = has && motion.hasDistance ? motion.distance[to]! - motion.distance[a]! : 0
    const distance = single ? whole.distance : own(lap?.distanceMeters) ? lap.distanceMeters : swim !== null ? swim.numberOfLengths * lengths[0]!.distanceInMeter : sampleDistance
    let moving = single ? whole.moving : Math.min(elapsed, Math.round(swim !== null || lengths.length > 0 ? swim?.swumSeconds ?? 0 : timer))
    // no lap is faster than the activity's own maximum: its time is at least what that speed needs
    const fastest = whole.maxSpeedKmh / 3.6
    if (fastest > 0 && moving > 0 && distance / moving > fastest) moving = Math.min(elapsed, Math.ceil(distance / fastest))
    const elevation = single ? whole.elevation : own(lap?.ascentMeters) ? lap.ascentMeters : has ? hysteresisGain(smoothedAltitude, a, b, climbThreshold) : 0
    let maxV = 0
    for (let i = a; i < b; i++) {
      const v = motion.velocity[i]!
      if (!Number.isNaN(v) && v > maxV) maxV = v
    }
    const average = moving > 0 ? Math.min(kmh(distance / moving), whole.maxSpeedKmh > 0 ? whole.maxSpeedKmh : Infinity) : 0
    const max = own(lap?.maxSpeed) ? kmh(lap.maxSpeed) : kmh(maxV)
    laps.push({
      lapIndex: laps.length + 1,
      name: `Lap ${laps.length + 1}`,
      startOffsetSeconds: start,
      elapsedTimeInSeconds: elapsed,
      movingTimeInSeconds: moving,
      distanceInMeter: round(distance, 1),
      elevationInMeter: round(elevation, 1),
      averageSpeedInKmPerHour: average,
      maxSpeedInKmPerHour: Math.max(average, whole.maxSpeedKmh > 0 ? Math.min(max, whole.maxSpeedKmh) : max),
      averageHeartRate: single
        ? whole.averageHeartRate
        : own(lap?.averageHeartRate)
        ? Math.round(lap.averageHeartRate)
        : has
        ? meanOf(heartRate, false, a, b)
        : null,
      ...(swimming
        ? {
          strokes: own(lap?.strokes) && lap.strokes > 0 ? Math.round(lap.strokes) : swim?.strokes ?? null,
          numberOfLengths: lengths.length > 0 ? swim?.numberOfLengths ?? 0 : null,
          swolf: swim?.swolf ?? null,
          strokeType: (lap !== null && !clipped ? lap.strokeType ?? null : null) ?? swim?.strokeType ?? null
        }
        : {})
    })
  }
  return { laps, lengths: assigned }
}
