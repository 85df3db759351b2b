import * as Schema from "effect/Schema"
import { SportType } from "./ApiModels.ts"
import { LocalDate } from "./LocalDate.ts"

/** Response of /stats/streaks: runs of consecutive days and ISO weeks with at least one activity. */

export const Streak = Schema.Struct({
  length: Schema.Int.annotations({ description: "Consecutive days, or consecutive ISO weeks (Monday to Sunday), with at least one activity" }),
  firstDay: LocalDate("Local date of the run's first activity"),
  lastDay: LocalDate("Local date of the run's last activity")
}).annotations({ identifier: "Streak" })
export type Streak = typeof Streak.Type

export const StreakPair = Schema.Struct({
  current: Schema.NullOr(Streak).annotations({
    description: "The run still going: of days, its last day is today or yesterday; of weeks, its last week is this week or the last one. Null when there is none"
  }),
  longest: Schema.NullOr(Streak).annotations({ description: "The longest run (the first of equal ones); null without activities" })
}).annotations({ identifier: "StreakPair" })
export type StreakPair = typeof StreakPair.Type

/** Runs of consecutive days, and of consecutive ISO weeks. */
const streakFields = { days: StreakPair, weeks: StreakPair }

export const StreakSet = Schema.Struct(streakFields).annotations({ identifier: "StreakSet" })
export type StreakSet = typeof StreakSet.Type

export const SportTypeStreaks = Schema.Struct({ sportType: SportType, ...streakFields }).annotations({ identifier: "SportTypeStreaks" })
export type SportTypeStreaks = typeof SportTypeStreaks.Type

/** `overall` counts every activity; `sportTypes` each sport type practised, in alphabetical order. */
export const Streaks = Schema.Struct({
  today: LocalDate("The date current runs are measured against: today where the service runs (its TZ)"),
  overall: StreakSet,
  sportTypes: Schema.Array(SportTypeStreaks)
}).annotations({ identifier: "Streaks", description: "overall counts every activity; sportTypes each sport type practised, in alphabetical order" })
export type Streaks = typeof Streaks.Type
