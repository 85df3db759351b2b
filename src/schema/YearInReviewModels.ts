import * as Schema from "effect/Schema"
import { SportType } from "./ApiModels.ts"
import { activitySums } from "./YearCalendarModels.ts"
import { PersonalRecord } from "./StatsModels.ts"
import { Streak } from "./YearStreakModels.ts"

/** Response of /stats/year-in-review: the athlete's year, in their local dates. */

/** Kilograms of CO₂ a car emits per kilometre, as the reference service counts a commute's saving. */
export const CAR_CO2_KG_PER_KM = 0.2178

const sums = activitySums

export const YearTotals = Schema.Struct({
  ...sums,
  elapsedTimeInSeconds: Schema.Int,
  calories: Schema.Int.annotations({ description: "Of the activities that recorded them" }),
  activeDays: Schema.Int.annotations({ description: "Days with at least one activity" })
}).annotations({ identifier: "YearTotals" })
export type YearTotals = typeof YearTotals.Type

export const SportTypeYear = Schema.Struct({ sportType: SportType, ...sums, calories: Schema.Int }).annotations({ identifier: "SportTypeYear" })
export type SportTypeYear = typeof SportTypeYear.Type

export const MonthOfYear = Schema.Struct({ month: Schema.String.annotations({ examples: ["2025-03"] }), ...sums }).annotations({ identifier: "MonthOfYear" })
export type MonthOfYear = typeof MonthOfYear.Type

export const WeekdayOfYear = Schema.Struct({
  weekday: Schema.Int.annotations({ description: "ISO weekday: 1 Monday … 7 Sunday" }),
  ...sums
}).annotations({ identifier: "WeekdayOfYear" })
export type WeekdayOfYear = typeof WeekdayOfYear.Type

export const StartHour = Schema.Struct({
  hour: Schema.Int.annotations({ description: "Local hour of the start, 0 to 23" }),
  count: Schema.Int
}).annotations({ identifier: "StartHour" })
export type StartHour = typeof StartHour.Type

export const YearHighlight = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  sportType: SportType,
  startDateLocal: Schema.String,
  distanceInMeter: Schema.Int,
  movingTimeInSeconds: Schema.Int,
  elevationInMeter: Schema.Int
}).annotations({ identifier: "YearHighlight" })
export type YearHighlight = typeof YearHighlight.Type

export const CountryVisits = Schema.Struct({
  countryCode: Schema.String.annotations({ description: "ISO 3166-1 alpha-2, lowercased" }),
  count: Schema.Int.annotations({ description: "Activities started in it or passing through it" })
}).annotations({ identifier: "CountryVisits" })
export type CountryVisits = typeof CountryVisits.Type

export const Commutes = Schema.Struct({
  count: Schema.Int,
  distanceInMeter: Schema.Int,
  co2SavedInKg: Schema.Number.annotations({
    description: `What a car would have emitted over that distance, ${CAR_CO2_KG_PER_KM} kg per km as the reference service counts it (one decimal)`
  })
}).annotations({ identifier: "Commutes", description: "The activities marked as commutes" })
export type Commutes = typeof Commutes.Type

export const YearInReview = Schema.Struct({
  year: Schema.Int,
  totals: YearTotals,
  sportTypes: Schema.Array(SportTypeYear).annotations({ description: "Per sport type, most moving time first" }),
  months: Schema.Array(MonthOfYear).annotations({ description: "The twelve months, January first" }),
  weekdays: Schema.Array(WeekdayOfYear).annotations({ description: "The seven weekdays, Monday first" }),
  startHours: Schema.Array(StartHour).annotations({ description: "The 24 local hours the activities started in" }),
  longestActivity: Schema.NullOr(YearHighlight).annotations({ description: "The longest by distance (then by moving time); null without activities" }),
  biggestClimb: Schema.NullOr(YearHighlight).annotations({ description: "The most elevation gained; null without any" }),
  busiestMonth: Schema.NullOr(MonthOfYear).annotations({ description: "The month of the most moving time (the first of equal ones)" }),
  busiestWeekday: Schema.NullOr(WeekdayOfYear).annotations({ description: "The weekday of the most moving time (the first of equal ones)" }),
  usualStartHour: Schema.NullOr(StartHour).annotations({ description: "The hour most activities started in (the earliest of equal ones)" }),
  countries: Schema.Array(CountryVisits).annotations({ description: "The countries of the year's activities, most visited first" }),
  longestStreak: Schema.Struct({ days: Schema.NullOr(Streak), weeks: Schema.NullOr(Streak) }).annotations({
    description: "The longest run of consecutive days and of ISO weeks with an activity within the year"
  }),
  records: Schema.Array(PersonalRecord).annotations({
    description: "Records set this year: per distance the fastest best effort of the year that was faster than every one before it"
  }),
  commutes: Commutes,
  previousYear: Schema.Struct({ year: Schema.Int, totals: YearTotals }).annotations({ description: "The year before, to compare with" })
}).annotations({ identifier: "YearInReview" })
export type YearInReview = typeof YearInReview.Type
