import type { Calendar, CalendarActivity, CalendarDay, CalendarWeek } from "../../schema/YearCalendarModels.ts"
import { dateOf, dayNumber, isoWeekOf, mondayOf, monthRange } from "../platform/LocalTime.ts"

/**
 * A month of the calendar from the activities of the weeks it spans (Monday to Sunday), read in
 * the order they started: every day of the month with its activities and their sums, each
 * week's sums over its seven days, and the month's.
 */

export interface CalendarRow extends CalendarActivity {
  readonly elevationInMeter: number
}

/** The first and last day of the weeks `month` spans: the rows `calendarOf` needs. */
export const calendarSpan = (month: string): { readonly first: number; readonly last: number } => {
  const { first, end } = monthRange(month)
  return { first: mondayOf(first), last: mondayOf(end - 1) + 6 }
}

export const calendarOf = (month: string, rows: ReadonlyArray<CalendarRow>): Calendar => {
  const { first, end } = monthRange(month)
  const byDay = new Map<number, Array<CalendarRow>>()
  for (const row of rows) {
    const day = dayNumber(row.startDateLocal)
    const list = byDay.get(day)
    if (list === undefined) byDay.set(day, [row])
    else list.push(row)
  }
  const sumsOver = (from: number, to: number) => {
    let count = 0
    let distanceInMeter = 0
    let movingTimeInSeconds = 0
    let elevationInMeter = 0
    let activeDays = 0
    for (let day = from; day <= to; day++) {
      const list = byDay.get(day) ?? []
      if (list.length > 0) activeDays++
      for (const row of list) {
        count++
        distanceInMeter += row.distanceInMeter
        movingTimeInSeconds += row.movingTimeInSeconds
        elevationInMeter += row.elevationInMeter
      }
    }
    return { count, distanceInMeter, movingTimeInSeconds, elevationInMeter, activeDays }
  }

  const days: Array<CalendarDay> = []
  for (let day = first; day < end; day++) {
    const list = byDay.get(day) ?? []
    const { distanceInMeter, movingTimeInSeconds } = sumsOver(day, day)
    days.push({
      on: dateOf(day),
      activities: list.map((a) => ({
        id: a.id,
        name: a.name,
        sportType: a.sportType,
        startDateLocal: a.startDateLocal,
        distanceInMeter: a.distanceInMeter,
        movingTimeInSeconds: a.movingTimeInSeconds
      })),
      distanceInMeter,
      movingTimeInSeconds
    })
  }
  const weeks: Array<CalendarWeek> = []
  for (let monday = mondayOf(first); monday < end; monday += 7) {
    const { count, distanceInMeter, movingTimeInSeconds, elevationInMeter } = sumsOver(monday, monday + 6)
    weeks.push({ week: isoWeekOf(monday), firstDay: dateOf(monday), lastDay: dateOf(monday + 6), count, distanceInMeter, movingTimeInSeconds, elevationInMeter })
  }
  return { month, days, weeks, totals: sumsOver(first, end - 1) }
}
