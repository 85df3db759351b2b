/**
 * The climbs of a track, categorised as Strava does: score = length in metres × average grade
 * in %; above 8,000 category 4, 16,000 category 3, 32,000 category 2, 64,000 category 1,
 * 80,000 HC (hors catégorie), for a climb of at least 300 m at 3 % or more on average.
 *
 * The altitude is first put on a grid of one point every GRID metres of distance and smoothed
 * over SMOOTHING metres (a barometer's steps and a GPS altitude's noise otherwise make walls of
 * a few metres); a climb then runs from its lowest point to its highest, and ends only where
 * the road falls more than DIP metres below that highest point, so that a short dip does not
 * split it in two.
 */

export const CLIMB_CATEGORIES = ["4", "3", "2", "1", "HC"] as const
export type ClimbCategory = typeof CLIMB_CATEGORIES[number]

const CATEGORY_SCORES: ReadonlyArray<readonly [number, ClimbCategory]> = [[80_000, "HC"], [64_000, "1"], [32_000, "2"], [16_000, "3"], [8_000, "4"]]
export const MIN_CLIMB_LENGTH = 300
export const MIN_CLIMB_GRADE = 3
const GRID = 10
const SMOOTHING = 100
const DIP = 10
/** a climb also ends where no new top is reached for this many metres */
const FLAT_BREAK = 500
/** the distance over which the steepest grade is measured */
const MAX_GRADE_OVER = 100

export interface FoundClimb {
  readonly category: ClimbCategory
  readonly score: number
  readonly startDistanceInMeter: number
  readonly endDistanceInMeter: number
  readonly lengthInMeter: number
  /** the smoothed altitude's rise from the climb's foot to its top */
  readonly elevationGainInMeter: number
  readonly startAltitudeInMeter: number
  readonly endAltitudeInMeter: number
  readonly averageGrade: number
  readonly maxGrade: number
  /** seconds from the activity's start to the foot */
  readonly startOffsetInSeconds: number | null
  readonly elapsedTimeInSeconds: number | null
  /** metres climbed per hour */
  readonly vam: number | null
}

export const categoryOf = (score: number): ClimbCategory | null => CATEGORY_SCORES.find(([above]) => score > above)?.[1] ?? null

/** `values` read at distance `at` along `distance` (increasing), linearly; from index `hint` on. */
const interpolator = (distance: ReadonlyArray<number>, values: ReadonlyArray<number>) => {
  let i = 0
  return (at: number) => {
    if (at < distance[i]!) i = 0
    while (i + 1 < distance.length && distance[i + 1]! < at) i++
    if (i + 1 >= distance.length) return values[distance.length - 1]!
    const d0 = distance[i]!, d1 = distance[i + 1]!
    const v0 = values[i]!, v1 = values[i + 1]!
    return d1 <= d0 ? v1 : v0 + (v1 - v0) * Math.max(0, Math.min(1, (at - d0) / (d1 - d0)))
  }
}

export interface ClimbStreams {
  readonly distance: ReadonlyArray<number>
  readonly altitude: ReadonlyArray<number>
  readonly time?: ReadonlyArray<number> | undefined
}

export const findClimbs = (streams: ClimbStreams): Array<FoundClimb> => {
  const { altitude, distance, time } = streams
  const count = Math.min(distance.length, altitude.length)
  if (count < 2) return []
  const total = distance[count - 1]! - distance[0]!
  if (!(total >= MIN_CLIMB_LENGTH)) return []
  const n = Math.floor(total / GRID) + 1
  const at = interpolator(distance.slice(0, count), altitude.slice(0, count))
  const raw = new Float64Array(n)
  for (let g = 0; g < n; g++) raw[g] = at(distance[0]! + g * GRID)
  // a centred moving average, by prefix sums
  const half = Math.round(SMOOTHING / GRID / 2)
  const sums = new Float64Array(n + 1)
  for (let g = 0; g < n; g++) sums[g + 1] = sums[g]! + raw[g]!
  const alt = new Float64Array(n)
  for (let g = 0; g < n; g++) {
    const a = Math.max(0, g - half), b = Math.min(n - 1, g + half)
    alt[g] = (sums[b + 1]! - sums[a]!) / (b - a + 1)
  }
  const timeAt = time === undefined || time.length < count ? null : interpolator(distance.slice(0, count), time.slice(0, count))

  const climbs: Array<FoundClimb> = []
  const emit = (low: number, high: number) => {
    const length = (high - low) * GRID
    const rise = alt[high]! - alt[low]!
    if (length < MIN_CLIMB_LENGTH) return
    const grade = (rise / length) * 100
    if (grade < MIN_CLIMB_GRADE) return
    const score = length * grade
    const category = categoryOf(score)
    if (category === null) return
    const span = MAX_GRADE_OVER / GRID
    let maxGrade = grade
    for (let g = low; g + span <= high; g++) maxGrade = Math.max(maxGrade, ((alt[g + span]! - alt[g]!) / MAX_GRADE_OVER) * 100)
    const from = distance[0]! + low * GRID
    const to = distance[0]! + high * GRID
    const startTime = timeAt?.(from) ?? null
    const elapsed = timeAt === null || startTime === null ? null : timeAt(to) - startTime
    climbs.push({
      category,
      score: Math.round(score),
      startDistanceInMeter: Math.round(from),
      endDistanceInMeter: Math.round(to),
      lengthInMeter: length,
      elevationGainInMeter: Math.round(rise * 10) / 10,
      startAltitudeInMeter: Math.round(alt[low]! * 10) / 10,
      endAltitudeInMeter: Math.round(alt[high]! * 10) / 10,
      averageGrade: Math.round(grade * 10) / 10,
      maxGrade: Math.round(maxGrade * 10) / 10,
      startOffsetInSeconds: startTime === null || time === undefined ? null : Math.round(startTime - time[0]!),
      elapsedTimeInSeconds: elapsed === null ? null : Math.round(elapsed),
      vam: elapsed === null || elapsed <= 0 ? null : Math.round((rise / elapsed) * 3600)
    })
  }

  // from the lowest point so far to the highest after it; a fall of more than DIP below that top ends the climb
  let low = 0
  let high = 0
  for (let g = 1; g < n; g++) {
    const a = alt[g]!
    if (a > alt[high]!) high = g
    else if (a < alt[high]! - DIP) {
      if (high > low) emit(low, high)
      low = g
      high = g
    } else if (a <= alt[low]!) {
      low = g
      high = g
    } else if ((g - high) * GRID > FLAT_BREAK) {
      // a long flat after the top: what follows is another climb, from the lowest point since
      if (high > low) emit(low, high)
      let bottom = high + 1
      for (let f = high + 1; f <= g; f++) if (alt[f]! <= alt[bottom]!) bottom = f
      low = bottom
      high = bottom
      for (let f = bottom + 1; f <= g; f++) if (alt[f]! > alt[high]!) high = f
    }
  }
  if (high > low) emit(low, high)
  return climbs
}
