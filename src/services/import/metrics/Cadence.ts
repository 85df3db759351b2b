import type { SportType } from "../../../schema/SportType.ts"
import { isNum } from "./Numbers.ts"

/**
 * Cadence as athletes read it: steps per minute on foot, whatever the file wrote. The FIT
 * profile's `cadence` of a run is per foot (strides per minute, its "rpm"), and Garmin's TCX
 * (`RunCadence`) and GPX exports and Strava's GPX carry the same; every platform shows the
 * steps of both feet (a runner's 92 is 184 steps a minute). A device that already wrote steps
 * is recognised by its values: no one runs below STRIDES_BELOW.run steps a minute, nor walks
 * below STRIDES_BELOW.walk, while no stride rate reaches them. Rides keep revolutions, swims
 * and rows strokes per minute.
 */

/** The median cadence below which a foot sport's cadence is per foot (strides), per minute. */
const STRIDES_BELOW = { run: 120, walk: 80 } as const

const RUNNING: ReadonlySet<SportType> = new Set(["Run", "TrailRun", "VirtualRun"])
const WALKING: ReadonlySet<SportType> = new Set(["Walk", "Hike", "Snowshoe"])

/** Whether the sport's cadence is counted in steps (runs, walks, hikes). */
export const countsSteps = (sport: SportType): boolean => RUNNING.has(sport) || WALKING.has(sport)

/** The median of the readings above 0 (stops and missing samples left out), or null. */
const medianReading = (cadence: ReadonlyArray<number | null>): number | null => {
  const readings: Array<number> = []
  for (let i = 0; i < cadence.length; i++) {
    const v = cadence[i]
    if (isNum(v) && v > 0) readings.push(v)
  }
  if (readings.length === 0) return null
  readings.sort((a, b) => a - b)
  return readings[readings.length >> 1]!
}

/** What the file's cadence of `sport` is multiplied by to read steps per minute: 2 for strides, else 1. */
export const stepsFactor = (sport: SportType, cadence: ReadonlyArray<number | null>, deviceAverage: number | null): 1 | 2 => {
  if (!countsSteps(sport)) return 1
  const typical = medianReading(cadence) ?? (isNum(deviceAverage) && deviceAverage > 0 ? deviceAverage : null)
  if (typical === null) return 1
  return typical < (RUNNING.has(sport) ? STRIDES_BELOW.run : STRIDES_BELOW.walk) ? 2 : 1
}

/** The cadence readings times `factor` (the same array when 1). */
export const scaleCadence = (cadence: ReadonlyArray<number | null>, factor: 1 | 2): ReadonlyArray<number | null> =>
  factor === 1 ? cadence : cadence.map((v) => (isNum(v) ? v * factor : v))
