import type { ParsedActivity, ParsedSamples } from "../../../schema/ParsedActivity.ts"
import type { SportType } from "../../../schema/SportType.ts"
import { metresBetween } from "../metrics/GpsTrack.ts"
import { isNum } from "../metrics/Numbers.ts"

/**
 * The sport of an activity whose file names none (a GPX without <type>, a TCX without Sport),
 * read from what it holds: how fast it moved (the time-weighted median of its moving speed, so
 * that a stop or a GPS jump does not decide it) and whether a power meter read. No one runs a
 * median of 5 m/s (18 km/h) for a whole outing; a power meter at more than a fast run's pace is
 * on a bike; below a jog's pace it is a walk. Between a fast run's median (15 km/h) and a ride's
 * the speed tells nothing (a fast runner, a slow ride on a hilly road), and neither does an
 * activity without speed or power, or with its times unknown: those stay a Workout.
 */

/** m/s: below it an interval is a stop, not counted in the median. */
const MOVING = 0.5
/** m/s: a median at or above it is a ride (18 km/h). */
const RIDE_SPEED = 5
/** m/s: with a power meter reading, a median at or above it is a ride (12.6 km/h). */
const POWERED_RIDE_SPEED = 3.5
/** m/s: a median at or above it is a run (6.5 km/h), below it a walk. */
const RUN_SPEED = 1.8
/** m/s: a median above it, short of a ride's, could be a fast run as well as a slow ride (15 km/h). */
const FASTEST_RUN = 4.2
/** m/s: a median above it is no sport done by a body (a car, a train). */
const FASTEST = 25
/** Intervals longer than this (s) are recording gaps, not speeds. */
const MAX_GAP_S = 60
/** A power meter reads when at least this share of the samples hold a power above 0. */
const POWER_SHARE = 0.3

/** Each interval's speed (m/s) and seconds, from the device's distance, else the positions. */
const intervals = (s: ParsedSamples): Array<readonly [speed: number, seconds: number]> => {
  const out: Array<readonly [number, number]> = []
  const byDistance = s.distance.some(isNum)
  let last = -1
  for (let i = 0; i < s.time.length; i++) {
    const known = byDistance ? isNum(s.distance[i]) : isNum(s.lat[i]) && isNum(s.lng[i])
    if (!known) continue
    if (last >= 0) {
      const dt = (s.time[i]! - s.time[last]!) / 1000
      if (dt > 0 && dt <= MAX_GAP_S) {
        const metres = byDistance ? s.distance[i]! - s.distance[last]! : metresBetween(s.lat[last]!, s.lng[last]!, s.lat[i]!, s.lng[i]!)
        if (metres >= 0) out.push([metres / dt, dt])
      }
    }
    last = i
  }
  return out
}

/** The time-weighted median of the moving speeds (m/s), or null when nothing moved. */
export const medianMovingSpeed = (samples: ParsedSamples): number | null => {
  const moving = intervals(samples).filter(([v]) => v >= MOVING).sort((a, b) => a[0] - b[0])
  const total = moving.reduce((sum, [, dt]) => sum + dt, 0)
  if (total === 0) return null
  let seen = 0
  for (const [v, dt] of moving) {
    seen += dt
    if (seen >= total / 2) return v
  }
  return moving[moving.length - 1]![0]
}

const powerRead = (samples: ParsedSamples): boolean => {
  let read = 0
  for (const p of samples.power) if (isNum(p) && p > 0) read++
  return samples.power.length > 0 && read >= samples.power.length * POWER_SHARE
}

/** The sport the samples of an activity tell, or null when they tell none. */
export const sportOfSamples = (samples: ParsedSamples, timesKnown: boolean): SportType | null => {
  const powered = powerRead(samples)
  const speed = timesKnown ? medianMovingSpeed(samples) : null
  if (speed === null) return powered ? "Ride" : null
  if (speed > FASTEST) return null
  if (speed >= RIDE_SPEED || (powered && speed >= POWERED_RIDE_SPEED)) return "Ride"
  if (speed > FASTEST_RUN) return null
  if (speed >= RUN_SPEED) return "Run"
  return "Walk"
}

/** The activity with the sport its samples tell when its file named none. */
export const inferSport = (activity: ParsedActivity): ParsedActivity => {
  if (activity.sportUnknown !== true) return activity
  const sport = sportOfSamples(activity.samples, activity.timesUnknown !== true)
  return sport === null ? activity : { ...activity, sportType: sport }
}
