import { Effect } from "effect"
import { send } from "./TestDaemon.ts"

/**
 * The figures of the athlete's year computed the plain way from the activities as the API lists
 * them (every page of GET /activities), day by day with Date strings, for the tests to compare
 * the routes' answers with.
 */

export interface Listed {
  readonly id: string
  readonly name: string
  readonly sportType: string
  readonly startDateLocal: string
  readonly distanceInMeter: number
  readonly movingTimeInSeconds: number
  readonly elapsedTimeInSeconds: number
  readonly elevationInMeter: number
  readonly calories?: number | null
  readonly isCommute: boolean
  readonly location: { readonly countryCode: string | null }
  readonly passedThroughCountries: ReadonlyArray<string>
}

/** Every activity, oldest first (the list is newest first by start instant). */
export const listedActivities = Effect.gen(function*() {
  const all: Array<Listed> = []
  for (let page = 1; ; page++) {
    const answer = yield* send("GET", `/api/v1/activities?pagination[size]=100&pagination[page]=${page}`)
    all.push(...answer.json.activities)
    if (page >= answer.json.pagination.totalPages) break
  }
  return all.reverse()
})

export const dayOf = (a: Listed) => a.startDateLocal.slice(0, 10)
export const addDays = (date: string, n: number) => new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10)
/** 1 Monday … 7 Sunday */
export const weekdayOf = (date: string) => ((new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7) + 1
export const mondayOfDate = (date: string) => addDays(date, 1 - weekdayOf(date))

const sum = (xs: ReadonlyArray<Listed>, f: (a: Listed) => number) => xs.reduce((s, a) => s + f(a), 0)

export const sumsOf = (xs: ReadonlyArray<Listed>) => ({
  count: xs.length,
  distanceInMeter: sum(xs, (a) => a.distanceInMeter),
  movingTimeInSeconds: sum(xs, (a) => a.movingTimeInSeconds),
  elevationInMeter: sum(xs, (a) => a.elevationInMeter)
})

/** Every date of a month `YYYY-MM`. */
export const datesOfMonth = (month: string): Array<string> => {
  const dates: Array<string> = []
  for (let d = `${month}-01`; d.startsWith(month); d = addDays(d, 1)) dates.push(d)
  return dates
}

/** The calendar of `month` as the route should answer it (week labels aside). */
export const expectedCalendar = (all: ReadonlyArray<Listed>, month: string) => {
  const dates = datesOfMonth(month)
  const inMonth = all.filter((a) => dayOf(a).startsWith(month))
  const days = dates.map((on) => {
    const of = all.filter((a) => dayOf(a) === on).sort((x, y) => x.startDateLocal.localeCompare(y.startDateLocal))
    return {
      on,
      ids: of.map((a) => a.id),
      distanceInMeter: sum(of, (a) => a.distanceInMeter),
      movingTimeInSeconds: sum(of, (a) => a.movingTimeInSeconds)
    }
  })
  const weeks: Array<Record<string, unknown>> = []
  for (let monday = mondayOfDate(dates[0]!); monday <= dates.at(-1)!; monday = addDays(monday, 7)) {
    const sunday = addDays(monday, 6)
    weeks.push({ firstDay: monday, lastDay: sunday, ...sumsOf(all.filter((a) => dayOf(a) >= monday && dayOf(a) <= sunday)) })
  }
  return { days, weeks, totals: { ...sumsOf(inMonth), activeDays: new Set(inMonth.map(dayOf)).size } }
}

export const yearTotals = (xs: ReadonlyArray<Listed>) => ({
  ...sumsOf(xs),
  elapsedTimeInSeconds: sum(xs, (a) => a.elapsedTimeInSeconds),
  calories: sum(xs, (a) => a.calories ?? 0),
  activeDays: new Set(xs.map(dayOf)).size
})

/** Runs of consecutive dates (or of consecutive Mondays, `step` 7) over `dates`, by walking them one by one. */
export const runsOf = (dates: ReadonlyArray<string>, step: 1 | 7) => {
  const keys = [...new Set(dates.map((d) => (step === 1 ? d : mondayOfDate(d))))].sort()
  const runs: Array<{ length: number; firstKey: string; lastKey: string }> = []
  for (const key of keys) {
    const last = runs.at(-1)
    if (last !== undefined && addDays(last.lastKey, step) === key) {
      last.length++
      last.lastKey = key
    } else {
      runs.push({ length: 1, firstKey: key, lastKey: key })
    }
  }
  const sorted = [...dates].sort()
  return runs.map((r) => ({
    length: r.length,
    // the first and last activity dates within the run
    firstDay: sorted.find((d) => d >= r.firstKey)!,
    lastDay: sorted.filter((d) => d <= addDays(r.lastKey, step - 1)).at(-1)!,
    lastKey: r.lastKey
  }))
}

/** The longest run (the first of equal ones), or null. */
export const longestOf = <R extends { readonly length: number }>(runs: ReadonlyArray<R>): R | null =>
  runs.reduce<R | null>((best, r) => (best === null || r.length > best.length ? r : best), null)

/** Countries of an activity: its start's, then those passed through, each once. */
export const countriesOfListed = (a: Listed) => [...new Set([...(a.location.countryCode === null ? [] : [a.location.countryCode]), ...a.passedThroughCountries])]
