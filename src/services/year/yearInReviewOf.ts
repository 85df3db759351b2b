import type { SportType } from "../../schema/SportType.ts"
import type { PersonalRecord } from "../../schema/StatsModels.ts"
import {
  CAR_CO2_KG_PER_KM,
  type CountryVisits,
  type MonthOfYear,
  type SportTypeYear,
  type StartHour,
  type WeekdayOfYear,
  type YearHighlight,
  type YearInReview,
  type YearTotals
} from "../../schema/YearInReviewModels.ts"
import { DISCIPLINES } from "../stats/Stats.ts"
import { dayNumber, isoWeekday } from "../platform/LocalTime.ts"
import { dayStreaks, weekStreaks } from "./Streaks.ts"

/**
 * The athlete's year from its activities (read in the order they started, so that the first of
 * equal ones is the earliest), the year before's, and the records the whole history set.
 */

export interface YearRow extends YearHighlight {
  readonly elapsedTimeInSeconds: number
  readonly calories: number | null
  readonly isCommute: boolean
  /** the start's country, then those passed through */
  readonly countries: ReadonlyArray<string>
}

interface Sums {
  count: number
  distanceInMeter: number
  movingTimeInSeconds: number
  elevationInMeter: number
}

const emptySums = (): Sums => ({ count: 0, distanceInMeter: 0, movingTimeInSeconds: 0, elevationInMeter: 0 })

const addTo = (sums: Sums, row: YearRow) => {
  sums.count++
  sums.distanceInMeter += row.distanceInMeter
  sums.movingTimeInSeconds += row.movingTimeInSeconds
  sums.elevationInMeter += row.elevationInMeter
}

/** The first item with the largest positive `measure`, or null. */
const mostOf = <A>(items: ReadonlyArray<A>, measure: (item: A) => number): A | null => {
  let best: A | null = null
  for (const item of items) if (measure(item) > 0 && (best === null || measure(item) > measure(best))) best = item
  return best
}

const highlight = (row: YearRow | null): YearHighlight | null =>
  row === null
    ? null
    : {
      id: row.id,
      name: row.name,
      sportType: row.sportType,
      startDateLocal: row.startDateLocal,
      distanceInMeter: row.distanceInMeter,
      movingTimeInSeconds: row.movingTimeInSeconds,
      elevationInMeter: row.elevationInMeter
    }

export const yearTotalsOf = (rows: ReadonlyArray<YearRow>): YearTotals => {
  const sums = emptySums()
  let elapsedTimeInSeconds = 0
  let calories = 0
  const days = new Set<string>()
  for (const row of rows) {
    addTo(sums, row)
    elapsedTimeInSeconds += row.elapsedTimeInSeconds
    calories += row.calories ?? 0
    days.add(row.startDateLocal.slice(0, 10))
  }
  return { ...sums, elapsedTimeInSeconds, calories, activeDays: days.size }
}

const recordOrder = (r: PersonalRecord) => DISCIPLINES.findIndex((d) => d.discipline === r.discipline) * 1e9 + r.distanceInMeter

/** Per distance, the last (so the fastest) of the records set within `year`, runs first, shortest distance first. */
const recordsSetIn = (year: number, records: ReadonlyArray<PersonalRecord>): Array<PersonalRecord> => {
  const last = new Map<string, PersonalRecord>()
  for (const record of records) {
    if (Number(record.startDateLocal.slice(0, 4)) === year) last.set(`${record.discipline} ${record.distanceInMeter}`, record)
  }
  return [...last.values()].sort((a, b) => recordOrder(a) - recordOrder(b))
}

export const yearInReviewOf = (
  year: number,
  rows: ReadonlyArray<YearRow>,
  previousRows: ReadonlyArray<YearRow>,
  records: ReadonlyArray<PersonalRecord>
): YearInReview => {
  const bySport = new Map<SportType, Sums & { calories: number }>()
  const months = Array.from({ length: 12 }, () => emptySums())
  const weekdays = Array.from({ length: 7 }, () => emptySums())
  const hours = Array.from({ length: 24 }, () => 0)
  const countries = new Map<string, number>()
  const commutes = { count: 0, distanceInMeter: 0 }
  const days = new Set<number>()
  for (const row of rows) {
    const day = dayNumber(row.startDateLocal)
    days.add(day)
    const sport = bySport.get(row.sportType) ?? { ...emptySums(), calories: 0 }
    addTo(sport, row)
    sport.calories += row.calories ?? 0
    bySport.set(row.sportType, sport)
    addTo(months[Number(row.startDateLocal.slice(5, 7)) - 1]!, row)
    addTo(weekdays[isoWeekday(day) - 1]!, row)
    hours[Number(row.startDateLocal.slice(11, 13)) % 24]!++
    for (const country of new Set(row.countries)) countries.set(country, (countries.get(country) ?? 0) + 1)
    if (row.isCommute) {
      commutes.count++
      commutes.distanceInMeter += row.distanceInMeter
    }
  }

  const monthList: Array<MonthOfYear> = months.map((m, i) => ({ month: `${year}-${String(i + 1).padStart(2, "0")}`, ...m }))
  const weekdayList: Array<WeekdayOfYear> = weekdays.map((w, i) => ({ weekday: i + 1, ...w }))
  const startHours: Array<StartHour> = hours.map((count, hour) => ({ hour, count }))
  const sportTypes: Array<SportTypeYear> = [...bySport]
    .map(([sportType, s]) => ({ sportType, ...s }))
    .sort((a, b) => b.movingTimeInSeconds - a.movingTimeInSeconds || a.sportType.localeCompare(b.sportType))
  const countryList: Array<CountryVisits> = [...countries]
    .map(([countryCode, count]) => ({ countryCode, count }))
    .sort((a, b) => b.count - a.count || a.countryCode.localeCompare(b.countryCode))
  const activeDays = [...days].sort((a, b) => a - b)

  return {
    year,
    totals: yearTotalsOf(rows),
    sportTypes,
    months: monthList,
    weekdays: weekdayList,
    startHours,
    // by distance (whole metres), then by moving time: under 10^7 s, it only breaks a tie
    longestActivity: highlight(mostOf(rows, (r) => r.distanceInMeter + r.movingTimeInSeconds / 1e7)),
    biggestClimb: highlight(mostOf(rows, (r) => r.elevationInMeter)),
    // a month (weekday) with activities but no moving time still beats one without activities
    busiestMonth: mostOf(monthList, (m) => (m.count > 0 ? m.movingTimeInSeconds + 1 : 0)),
    busiestWeekday: mostOf(weekdayList, (w) => (w.count > 0 ? w.movingTimeInSeconds + 1 : 0)),
    usualStartHour: mostOf(startHours, (h) => h.count),
    countries: countryList,
    longestStreak: { days: dayStreaks(activeDays, 0).longest, weeks: weekStreaks(activeDays, 0).longest },
    records: recordsSetIn(year, records),
    commutes: {
      count: commutes.count,
      distanceInMeter: commutes.distanceInMeter,
      co2SavedInKg: Math.round((commutes.distanceInMeter / 1000) * CAR_CO2_KG_PER_KM * 10) / 10
    },
    previousYear: { year: year - 1, totals: yearTotalsOf(previousRows) }
  }
}
