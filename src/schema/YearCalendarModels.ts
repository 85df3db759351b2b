import * as Schema from "effect/Schema"
import { SportType } from "./ApiModels.ts"
import { LocalDate } from "./LocalDate.ts"

/** Response of /stats/calendar: a month day by day, in the athlete's local dates. */

export const CalendarActivity = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  sportType: SportType,
  startDateLocal: Schema.String.annotations({ description: "Local date-time of the start, ISO 8601 without offset" }),
  distanceInMeter: Schema.Int,
  movingTimeInSeconds: Schema.Int
}).annotations({ identifier: "CalendarActivity" })
export type CalendarActivity = typeof CalendarActivity.Type

export const CalendarDay = Schema.Struct({
  on: LocalDate("The local date"),
  activities: Schema.Array(CalendarActivity).annotations({ description: "The activities that started on this local date, in the order they started" }),
  distanceInMeter: Schema.Int.annotations({ description: "The sum of the activities' distances" }),
  movingTimeInSeconds: Schema.Int.annotations({ description: "The sum of the activities' moving times" })
}).annotations({ identifier: "CalendarDay" })
export type CalendarDay = typeof CalendarDay.Type

/** The sums of a set of activities (a week, a month, a year): the fields of several answers. */
export const activitySums = {
  count: Schema.Int.annotations({ description: "Number of activities" }),
  distanceInMeter: Schema.Int,
  movingTimeInSeconds: Schema.Int,
  elevationInMeter: Schema.Int
}

export const CalendarWeek = Schema.Struct({
  week: Schema.String.annotations({ description: "ISO 8601 week", examples: ["2025-W01"] }),
  firstDay: LocalDate("Its Monday"),
  lastDay: LocalDate("Its Sunday"),
  ...activitySums
}).annotations({
  identifier: "CalendarWeek",
  description: "A week (Monday to Sunday) holding days of the month, summed over all its seven days, those of the month before or after included"
})
export type CalendarWeek = typeof CalendarWeek.Type

export const CalendarTotals = Schema.Struct({
  ...activitySums,
  activeDays: Schema.Int.annotations({ description: "Days of the month with at least one activity" })
}).annotations({ identifier: "CalendarTotals", description: "The sums over the month's activities" })
export type CalendarTotals = typeof CalendarTotals.Type

export const Calendar = Schema.Struct({
  month: Schema.String.annotations({ examples: ["2025-03"] }),
  days: Schema.Array(CalendarDay).annotations({ description: "Every day of the month, days without activities included" }),
  weeks: Schema.Array(CalendarWeek).annotations({ description: "The weeks the month's days fall in, from the one of its first day" }),
  totals: CalendarTotals
}).annotations({ identifier: "Calendar" })
export type Calendar = typeof Calendar.Type
