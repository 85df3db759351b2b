import type { ParsedLap } from "../../../schema/ParsedActivity.ts"
import type { Lap } from "../../../schema/ActivityDraft.ts"
import { hysteresisGain } from "./Elevation.ts"
import { type Motion, movingWithinTimer } from "./Motion.ts"
import { isNum, kmh, lastIndexAtOrBefore, meanOf, round } from "./Numbers.ts"

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

/**
 * Laps from the file's laps; values the device stored win, the rest comes from the samples in
 * the lap's time range: moving = min(elapsed, moving seconds of the lap's samples, i.e. intervals
 * of at most 60 s at or above the stop speed), elevation = hysteresis gain in the lap.
 * Without file laps: one lap for the whole activity.
 */
export const computeLaps = (
  parsedLaps: ReadonlyArray<ParsedLap>,
  motion: Motion,
  smoothedAltitude: Float64Array,
  climbThreshold: number,
  heartRate: ReadonlyArray<number | null>,
  startTime: number,
  whole: ActivitySummary
): Array<Lap> => {
  if (parsedLaps.length === 0) {
    return [{
      lapIndex: 1,
      name: "Lap 1",
      startOffsetInSeconds: 0,
      elapsedTimeInSeconds: whole.elapsed,
      movingTimeInSeconds: whole.moving,
      distanceInMeter: round(whole.distance, 1),
      elevationInMeter: round(whole.elevation, 1),
      averageSpeedInKmPerHour: whole.averageSpeedKmh,
      maxSpeedInKmPerHour: whole.maxSpeedKmh,
      averageHeartRate: whole.averageHeartRate
    }]
  }
  const { n, timeS } = motion
  const laps = [...parsedLaps].sort((a, b) => a.startTime - b.startTime)
  return laps.map((lap, k) => {
    const startS = (lap.startTime - startTime) / 1000
    const next = laps[k + 1]
    const endS = next !== undefined
      ? (next.startTime - startTime) / 1000
      : isNum(lap.elapsedSeconds)
      ? startS + lap.elapsedSeconds
      : n > 0
      ? timeS[n - 1]!
      : startS
    const a = Math.min(firstIndexAtOrAfter(timeS, startS), n)
    // the lap owns samples [a, b); its distance and moving time run up to the next lap's first sample
    const b = Math.min(next !== undefined ? firstIndexAtOrAfter(timeS, endS) : lastIndexAtOrBefore(timeS, endS) + 1, n)
    const last = next !== undefined ? Math.min(b, n - 1) : b - 1
    const has = n > 0 && a < n && last >= a
    const elapsed = Math.max(0, Math.round(isNum(lap.elapsedSeconds) ? lap.elapsedSeconds : endS - startS))
    const active = has ? motion.movingCum[last]! - motion.movingCum[a]! : 0
    // as for the whole activity: a GPS track tells the stops that the device's timer counted
    const recorded = has ? active + motion.stoppedCum[last]! - motion.stoppedCum[a]! : 0
    const timer = isNum(lap.timerSeconds)
      ? motion.positionCount >= 2 && has ? movingWithinTimer(lap.timerSeconds, active, recorded) : lap.timerSeconds
      : active
    const moving = Math.min(elapsed, Math.round(timer))
    const sampleDistance = has && motion.hasDistance ? motion.distance[last]! - motion.distance[a]! : 0
    const distance = isNum(lap.distanceMeters) ? lap.distanceMeters : sampleDistance
    const elevation = isNum(lap.ascentMeters) ? lap.ascentMeters : has ? hysteresisGain(smoothedAltitude, a, b, climbThreshold) : 0
    let maxV = 0
    for (let i = a; i < b; i++) {
      const v = motion.velocity[i]!
      if (!Number.isNaN(v) && v > maxV) maxV = v
    }
    const avgSpeed = isNum(lap.averageSpeed) ? kmh(lap.averageSpeed) : moving > 0 ? kmh(distance / moving) : 0
    return {
      lapIndex: k + 1,
      name: `Lap ${k + 1}`,
      startOffsetInSeconds: Math.round(startS),
      elapsedTimeInSeconds: elapsed,
      movingTimeInSeconds: moving,
      distanceInMeter: round(distance, 1),
      elevationInMeter: round(elevation, 1),
      averageSpeedInKmPerHour: avgSpeed,
      maxSpeedInKmPerHour: isNum(lap.maxSpeed) ? kmh(lap.maxSpeed) : kmh(maxV),
      averageHeartRate: isNum(lap.averageHeartRate)
        ? Math.round(lap.averageHeartRate)
        : has
        ? meanOf(heartRate, false, a, b)
        : null
    }
  })
}
