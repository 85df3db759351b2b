import { Effect } from "effect"
import type { ActivityDraft } from "../../src/schema/ActivityDraft.ts"
import { bestEffortDistances } from "../../src/schema/SportType.ts"
import { ActivityRepo } from "../../src/services/activities/ActivityRepo.ts"
import { encodeDraft } from "../../src/services/activities/StreamsCodec.ts"
import { makeDraft } from "./TestDaemon.ts"

/**
 * Generated activities for the benchmarks and the tests that need many: the i-th starts 7 hours
 * before the (i-1)-th (so at every hour of the day in turn), counted back from `end`, in one sport
 * of seven in turn and in one of nine time zones in an order that shifts every 24 activities (its
 * local start is the instant in that zone, so local dates cross the UTC day, month and year
 * both ways), with distances, times, elevation, calories, countries, commutes,
 * gear and best efforts that vary from one to the next. Deterministic: the same `i` gives the
 * same activity.
 */

export const GENERATED_SPORTS = ["Ride", "Run", "Walk", "Hike", "Swim", "GravelRide", "TrailRun"] as const

/** UTC offsets in minutes, each with the country an activity there is in. */
const ZONES: ReadonlyArray<readonly [number, string]> = [
  [0, "gb"], [60, "be"], [-300, "us"], [330, "in"], [780, "nz"], [-600, "us"], [540, "jp"], [120, "fi"], [-180, "br"]
]

const SPEED: Record<typeof GENERATED_SPORTS[number], number> = { Ride: 7.5, Run: 3, Walk: 1.4, Hike: 1.2, Swim: 0.8, GravelRide: 6, TrailRun: 2.6 }
const SCALE: Record<typeof GENERATED_SPORTS[number], number> = { Ride: 1.5, Run: 0.35, Walk: 0.15, Hike: 0.3, Swim: 0.05, GravelRide: 1.2, TrailRun: 0.3 }

export interface GeneratedOptions {
  /** the newest activity's start (epoch ms); 2024-12-31T07:00:00Z by default */
  readonly end?: number
  /** gear given in turn to the rides and runs (none by default) */
  readonly gearIds?: ReadonlyArray<string>
}

const HOUR = 3_600_000

/** The wall time of `instant` at `offsetMinutes` from UTC, `YYYY-MM-DDTHH:mm:ss`. */
const wallTime = (instant: number, offsetMinutes: number) => new Date(instant + offsetMinutes * 60_000).toISOString().slice(0, 19)

export const generatedActivity = (i: number, options: GeneratedOptions = {}): ActivityDraft => {
  const sport = GENERATED_SPORTS[i % GENERATED_SPORTS.length]!
  const [offset, country] = ZONES[(i + Math.floor(i / 24)) % ZONES.length]!
  const startTime = (options.end ?? Date.parse("2024-12-31T07:00:00Z")) - i * 7 * HOUR + (i % 5) * 7 * 60_000
  const distanceInMeter = Math.round((5_000 + (i * 7919) % 60_000) * SCALE[sport])
  // one activity in three 10 % faster or slower than the sport's pace
  const pace = 1 + ((i * 37) % 21 - 10) / 100
  const movingTimeInSeconds = Math.round(distanceInMeter / (SPEED[sport] * pace))
  const isRideOrRun = sport === "Ride" || sport === "Run" || sport === "GravelRide" || sport === "TrailRun"
  const gearIds = options.gearIds ?? []
  return makeDraft({
    name: `${sport} number ${i}`,
    sportType: sport,
    startTime,
    startDateLocal: wallTime(startTime, offset),
    distanceInMeter,
    movingTimeInSeconds,
    elapsedTimeInSeconds: movingTimeInSeconds + (i % 13) * 60,
    elevationInMeter: Math.round(((i * 131) % 1500) * SCALE[sport]),
    averageSpeedInKmPerHour: Math.round(SPEED[sport] * pace * 360) / 100,
    calories: i % 17 === 0 ? null : Math.round(movingTimeInSeconds / 6),
    isCommute: isRideOrRun && i % 9 === 1,
    gearId: isRideOrRun && gearIds.length > 0 ? gearIds[i % gearIds.length]! : null,
    location: { countryCode: country, state: null, city: null },
    passedThroughCountries: i % 13 === 0 ? [country, "ch"] : [country],
    bestEfforts: bestEffortDistances(sport).filter((d) => d <= distanceInMeter).map((d, k) => ({
      distanceInMeter: d,
      timeInSeconds: Math.round((d / (SPEED[sport] * pace)) * (1 + k / 100)),
      startOffsetSeconds: k * 10
    }))
  })
}

/** Stores the first `count` generated activities (ids `activity-generated-<i>`) through ActivityRepo, oldest last. */
export const seedGenerated = (count: number, options: GeneratedOptions = {}) =>
  Effect.gen(function*() {
    const repo = yield* ActivityRepo
    const drafts: Array<ActivityDraft & { readonly id: string }> = []
    for (let i = 0; i < count; i++) {
      const draft = generatedActivity(i, options)
      const id = `activity-generated-${i}`
      yield* repo.insert(id, encodeDraft(draft))
      drafts.push({ ...draft, id })
    }
    return drafts
  })
