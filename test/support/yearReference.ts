import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { disciplineWords } from "../../src/services/stats/Stats.ts"
import { send } from "./TestDaemon.ts"

/**
 * The figures of the athlete's year computed the plain way from the activities as the API lists
 * them (every page of GET /activities), day by day with Date strings, and the checks of each
 * route's answer against them (over generated activities and over the corpus alike).
 */

export interface Listed {
  readonly id: string
  readonly name: string
  readonly sportType: string
  readonly startDateLocal: string
  readonly dateUnknown: boolean
  readonly distanceInMeter: number
  readonly movingTimeInSeconds: number
  readonly elapsedTimeInSeconds: number
  readonly elevationInMeter: number
  readonly calories?: number | null
  readonly isCommute: boolean
  readonly location: { readonly countryCode: string | null }
  readonly passedThroughCountries: ReadonlyArray<string>
}

/** Every activity the year counts (those whose date is unknown are in no period), oldest first (the list is newest first by start instant). */
export const listedActivities = Effect.gen(function*() {
  const all: Array<Listed> = []
  for (let page = 1; ; page++) {
    const answer = yield* send("GET", `/api/v1/activities?pagination[size]=100&pagination[page]=${page}`)
    all.push(...answer.json.activities)
    if (page >= answer.json.pagination.totalPages) break
  }
  return all.filter((a) => !a.dateUnknown).reverse()
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

// ---------------------------------------------------------------------------------------
// The routes' answers against the plain figures

export const getJson = (path: string) =>
  Effect.map(send("GET", `/api/v1${path}`), (a) => {
    expect(a.status, `${path}: ${a.text}`).toBe(200)
    return a.json
  })

/** The calendar of `month` (of `sportTypes`) equals the list's activities of its days and weeks. */
export const expectCalendar = (all: ReadonlyArray<Listed>, month: string, sportTypes?: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const of = sportTypes === undefined ? all : all.filter((a) => sportTypes.includes(a.sportType))
    const answer = yield* getJson(`/stats/calendar?filters[month]=${month}${sportTypes === undefined ? "" : `&filters[sportType]=${sportTypes.join(",")}`}`)
    const expected = expectedCalendar(of, month)
    expect(answer.month).toBe(month)
    expect(answer.days.map((d: any) => ({
      on: d.on,
      ids: d.activities.map((a: any) => a.id),
      distanceInMeter: d.distanceInMeter,
      movingTimeInSeconds: d.movingTimeInSeconds
    })), month).toEqual(expected.days)
    expect(answer.weeks.map(({ week: _, ...w }: any) => w), month).toEqual(expected.weeks)
    expect(answer.totals, month).toEqual(expected.totals)
    const byId = new Map(all.map((a) => [a.id, a]))
    for (const day of answer.days) {
      for (const a of day.activities) {
        const listed = byId.get(a.id)!
        expect(a).toEqual({
          id: listed.id,
          name: listed.name,
          sportType: listed.sportType,
          startDateLocal: listed.startDateLocal,
          distanceInMeter: listed.distanceInMeter,
          movingTimeInSeconds: listed.movingTimeInSeconds
        })
      }
    }
    return answer
  })

const maxOf = <A>(xs: ReadonlyArray<A>, f: (x: A) => number) => Math.max(...xs.map(f))

/** The year in review of `year` equals the list's activities of its days, and of the year before. */
export const expectYearInReview = (all: ReadonlyArray<Listed>, year: number) =>
  Effect.gen(function*() {
    const of = all.filter((a) => dayOf(a).startsWith(String(year)))
    const review = yield* getJson(`/stats/year-in-review?filters[year]=${year}`)
    expect(review.year).toBe(year)
    expect(review.totals, String(year)).toEqual(yearTotals(of))
    expect(review.previousYear).toEqual({ year: year - 1, totals: yearTotals(all.filter((a) => dayOf(a).startsWith(String(year - 1)))) })
    expect(review.sportTypes.map((s: any) => s.sportType).sort()).toEqual([...new Set(of.map((a) => a.sportType))].sort())
    for (const s of review.sportTypes) {
      const xs = of.filter((a) => a.sportType === s.sportType)
      expect(s).toEqual({ sportType: s.sportType, ...sumsOf(xs), calories: xs.reduce((c, a) => c + (a.calories ?? 0), 0) })
    }
    const moving = review.sportTypes.map((s: any) => s.movingTimeInSeconds)
    expect(moving).toEqual([...moving].sort((a: number, b: number) => b - a))
    expect(review.months.map((m: any) => m.month)).toEqual(Array.from({ length: 12 }, (_, i) => `${year}-${String(i + 1).padStart(2, "0")}`))
    for (const m of review.months) expect(m).toEqual({ month: m.month, ...sumsOf(of.filter((a) => dayOf(a).startsWith(m.month))) })
    for (const w of review.weekdays) expect(w).toEqual({ weekday: w.weekday, ...sumsOf(of.filter((a) => weekdayOf(dayOf(a)) === w.weekday)) })
    for (const h of review.startHours) expect(h.count).toBe(of.filter((a) => Number(a.startDateLocal.slice(11, 13)) === h.hour).length)
    if (of.length > 0) {
      expect(review.busiestMonth.movingTimeInSeconds).toBe(maxOf(review.months, (m: any) => m.movingTimeInSeconds))
      expect(review.busiestWeekday.movingTimeInSeconds).toBe(maxOf(review.weekdays, (w: any) => w.movingTimeInSeconds))
      expect(review.usualStartHour.count).toBe(maxOf(review.startHours, (h: any) => h.count))
      expect(review.longestActivity.distanceInMeter).toBe(maxOf(of, (a) => a.distanceInMeter))
      expect(of.find((a) => a.id === review.longestActivity.id)?.distanceInMeter).toBe(review.longestActivity.distanceInMeter)
    }
    const climb = maxOf(of, (a) => a.elevationInMeter)
    if (climb > 0) expect(review.biggestClimb.elevationInMeter).toBe(climb)
    else expect(review.biggestClimb).toBeNull()
    const visits = new Map<string, number>()
    for (const a of of) for (const c of countriesOfListed(a)) visits.set(c, (visits.get(c) ?? 0) + 1)
    expect(review.countries).toEqual([...visits].map(([countryCode, count]) => ({ countryCode, count }))
      .sort((a, b) => b.count - a.count || a.countryCode.localeCompare(b.countryCode)))
    const days = of.map(dayOf)
    const streakOf = (step: 1 | 7) => {
      const longest = longestOf(runsOf(days, step))
      return longest === null ? null : { length: longest.length, firstDay: longest.firstDay, lastDay: longest.lastDay }
    }
    expect(review.longestStreak).toEqual({ days: streakOf(1), weeks: streakOf(7) })
    const commutes = of.filter((a) => a.isCommute)
    const commuteMeters = commutes.reduce((s, a) => s + a.distanceInMeter, 0)
    expect(review.commutes).toEqual({ count: commutes.length, distanceInMeter: commuteMeters, co2SavedInKg: Math.round(commuteMeters / 1000 * 0.2178 * 10) / 10 })
    return review
  })

/** The streaks: the longest runs of each sport type and overall as the plain walk finds them, the current ones against the answer's today. */
export const expectStreaks = (all: ReadonlyArray<Listed>) =>
  Effect.gen(function*() {
    const answer = yield* getJson("/stats/streaks")
    const pairOf = (days: ReadonlyArray<string>, step: 1 | 7) => {
      const runs = runsOf(days, step)
      const longest = longestOf(runs)
      const last = runs.at(-1)
      const todayKey = step === 1 ? answer.today : mondayOfDate(answer.today)
      const current = last !== undefined && last.lastKey >= addDays(todayKey, -step) ? last : null
      const plain = (r: { length: number; firstDay: string; lastDay: string } | null) => (r === null ? null : { length: r.length, firstDay: r.firstDay, lastDay: r.lastDay })
      return { current: plain(current), longest: plain(longest) }
    }
    const setOf = (xs: ReadonlyArray<Listed>) => ({ days: pairOf(xs.map(dayOf), 1), weeks: pairOf(xs.map(dayOf), 7) })
    expect(answer.overall).toEqual(setOf(all))
    const sports = [...new Set(all.map((a) => a.sportType))].sort()
    expect(answer.sportTypes).toEqual(sports.map((sportType) => ({ sportType, ...setOf(all.filter((a) => a.sportType === sportType)) })))
    return answer
  })

/**
 * The milestones of the history: newest first by date; the first activity of each sport type
 * and in each country, every cumulative mark, every Eddington number up to the statistics' own,
 * the records up to the statistics' own (of equal times, the first), each longer activity.
 */
export const expectMilestones = (all: ReadonlyArray<Listed>) =>
  Effect.gen(function*() {
    const { milestones } = yield* getJson("/milestones")
    const dates = milestones.map((m: any) => m.on)
    expect(dates).toEqual([...dates].sort().reverse())
    // in the order the activities started: the answer is by local date, which a later start further west may hold earlier
    const started = new Map(all.map((a, i) => [a.id, i]))
    const of = (kind: string, sportType?: string | null) =>
      milestones.filter((m: any) => m.kind === kind && (sportType === undefined || m.sportType === sportType)).reverse()
        .sort((x: any, y: any) => started.get(x.activityId)! - started.get(y.activityId)!)
    for (const m of milestones) expect(m.on).toBe(dayOf(all[started.get(m.activityId)!]!))

    const firsts = new Map<string, Listed>()
    for (const a of all) if (!firsts.has(a.sportType)) firsts.set(a.sportType, a)
    expect(of("firstOfSportType").map((m: any) => [m.sportType, m.activityId])).toEqual([...firsts.values()].map((a) => [a.sportType, a.id]))

    const seen = new Map<string, string>()
    for (const a of all) for (const c of countriesOfListed(a)) if (!seen.has(c)) seen.set(c, a.id)
    expect(of("firstInCountry").map((m: any) => [m.value, m.activityId])).toEqual([...seen])

    const marks = [100, 250, 500, 1000, 2500, 5000, 10_000, 25_000, 50_000, 100_000]
    const passedMarks = (xs: ReadonlyArray<Listed>) => {
      let total = 0
      const passed: Array<[number, string]> = []
      for (const a of xs) {
        const before = total
        total += a.distanceInMeter
        for (const km of marks) if (before < km * 1000 && total >= km * 1000) passed.push([km * 1000, a.id])
      }
      return passed
    }
    expect(of("distanceMark", null).map((m: any) => [m.value, m.activityId])).toEqual(passedMarks(all))
    for (const sportType of firsts.keys()) {
      expect(of("distanceMark", sportType).map((m: any) => [m.value, m.activityId]), sportType).toEqual(passedMarks(all.filter((a) => a.sportType === sportType)))
    }

    const eddington = (yield* getJson("/stats/eddington")).eddington
    expect(of("eddington", null).map((m: any) => m.value)).toEqual(Array.from({ length: eddington.km }, (_, i) => i + 1))
    for (const sportType of firsts.keys()) {
      const own = (yield* getJson(`/stats/eddington?filters[sportType]=${sportType}`)).eddington
      expect(of("eddington", sportType).map((m: any) => m.value), sportType).toEqual(Array.from({ length: own.km }, (_, i) => i + 1))
    }

    const records = (yield* getJson("/stats/records")).records
    for (const r of records) {
      const last = of("record").filter((m: any) => m.title.includes(` ${r.name} ${disciplineWords(r.discipline)} record`)).at(-1)
      expect(last?.value, `${r.name} ${r.discipline}`).toBe(r.elapsedTimeInSeconds)
      // of equal times the first holds the record (the statistics name any of them)
      expect(started.get(last.activityId)!, `${r.name} ${r.discipline}`).toBeLessThanOrEqual(started.get(r.activityId)!)
    }
    const fastest = new Map<string, number>()
    for (const m of of("record")) {
      const key = m.title.split(":")[0]
      expect(m.value).toBeLessThan(fastest.get(key) ?? Infinity)
      fastest.set(key, m.value)
    }
    expect(fastest.size).toBe(records.length)

    const longest = new Map<string, number>()
    const longer: Array<string> = []
    for (const a of all) {
      const before = longest.get(a.sportType)
      if (before !== undefined && a.distanceInMeter > before) longer.push(a.id)
      longest.set(a.sportType, Math.max(before ?? 0, a.distanceInMeter))
    }
    expect(of("longestOfSportType").map((m: any) => m.activityId)).toEqual(longer)
    return milestones
  })
