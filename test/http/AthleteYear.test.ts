import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { RECORD_DISTANCES } from "../../src/schema/EffortDistances.ts"
import { generatedActivity, seedGenerated } from "../support/generatedActivities.ts"
import { seedActivity, send, TestDaemon } from "../support/TestDaemon.ts"
import {
  addDays,
  countriesOfListed,
  dayOf,
  expectedCalendar,
  listedActivities,
  type Listed,
  longestOf,
  runsOf,
  sumsOf,
  weekdayOf,
  yearTotals
} from "../support/yearReference.ts"
import { expectError } from "./helpers.ts"

/**
 * The athlete's year over 300 generated activities, 8 hours apart from October 2024 to 20 January
 * 2025 in nine time zones from UTC-10 to UTC+13: local dates cross UTC's days, months and the
 * year. Every figure is compared with the same figure computed from the activity list.
 */

const GENERATED = 300
const END = Date.parse("2025-01-20T07:00:00Z")

/** The generated activities with their best efforts (which the list does not show), oldest last. */
const seeded: Array<ReturnType<typeof generatedActivity> & { readonly id: string }> = []

/**
 * The records each year set, walking the activities from the oldest: per discipline and distance,
 * the fastest effort of the year that beat every effort before it.
 */
const recordsSetIn = (year: string) => {
  const best = new Map<string, number>()
  const ofYear = new Map<string, readonly [string, number]>()
  for (const activity of [...seeded].reverse()) {
    const discipline = ["Run", "TrailRun"].includes(activity.sportType) ? "run" : ["Ride", "GravelRide"].includes(activity.sportType) ? "ride" : null
    if (discipline === null) continue
    for (const effort of activity.bestEfforts) {
      if (!(RECORD_DISTANCES[discipline] as ReadonlyArray<number>).includes(effort.distanceInMeter)) continue
      const key = `${discipline} ${effort.distanceInMeter}`
      if (effort.timeInSeconds >= (best.get(key) ?? Infinity)) continue
      best.set(key, effort.timeInSeconds)
      if (activity.startDateLocal.startsWith(year)) ofYear.set(key, [activity.id, effort.timeInSeconds])
    }
  }
  return ofYear
}

const get = (path: string) => Effect.map(send("GET", `/api/v1${path}`), (a) => {
  expect(a.status, `${path}: ${a.text}`).toBe(200)
  return a.json
})

layer(TestDaemon.layer(), { excludeTestServices: true })("the athlete's year over generated activities", (it) => {
  it.effect("seeds activities whose local dates cross UTC's days, months and years", () =>
    Effect.gen(function*() {
      const drafts = yield* seedGenerated(GENERATED, { end: END })
      // an activity of the last evening of 2024 in New York started on 1 January 2025 in UTC, and one of Auckland the other way round
      expect(drafts.some((d) => d.startDateLocal.startsWith("2024-12-31") && new Date(d.startTime).toISOString().startsWith("2025-01-01"))).toBe(true)
      expect(drafts.some((d) => d.startDateLocal.startsWith("2025-01-01") && new Date(d.startTime).toISOString().startsWith("2024-12-31"))).toBe(true)
      expect(drafts.filter((d) => d.startDateLocal.slice(0, 10) !== new Date(d.startTime).toISOString().slice(0, 10)).length).toBeGreaterThan(50)
      seeded.push(...drafts)
    }))

  it.effect("calendar: every day of each month with its activities and sums, weeks from Monday, the month's totals", () =>
    Effect.gen(function*() {
      const all = yield* listedActivities
      expect(all.length).toBe(GENERATED)
      for (const month of ["2024-10", "2024-11", "2024-12", "2025-01", "2025-02"]) {
        const answer = yield* get(`/stats/calendar?filters[month]=${month}`)
        const expected = expectedCalendar(all, month)
        expect(answer.month).toBe(month)
        expect(answer.days.map((d: any) => ({
          on: d.on,
          ids: d.activities.map((a: any) => a.id),
          distanceInMeter: d.distanceInMeter,
          movingTimeInSeconds: d.movingTimeInSeconds
        })), month).toEqual(expected.days)
        expect(answer.weeks.map(({ week: _, ...w }: any) => w), month).toEqual(expected.weeks)
        expect(answer.totals, month).toEqual(expected.totals)
        for (const day of answer.days) {
          for (const a of day.activities) {
            const listed = all.find((l) => l.id === a.id)!
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
      }
      // ISO weeks: 30 December 2024 is the Monday of 2025's first week
      const december = yield* get("/stats/calendar?filters[month]=2024-12")
      expect(december.weeks.map((w: any) => w.week)).toEqual(["2024-W48", "2024-W49", "2024-W50", "2024-W51", "2024-W52", "2025-W01"])
      expect(december.days).toHaveLength(31)
      expect((yield* get("/stats/calendar?filters[month]=2024-02")).days).toHaveLength(29)
      // the month of a sport type: as the list filtered by it
      const runs = yield* get("/stats/calendar?filters[month]=2024-12&filters[sportType]=Run,TrailRun")
      const expectedRuns = expectedCalendar(all.filter((a) => a.sportType === "Run" || a.sportType === "TrailRun"), "2024-12")
      expect(runs.totals).toEqual(expectedRuns.totals)
      expect(runs.days.map((d: any) => d.activities.map((a: any) => a.id))).toEqual(expectedRuns.days.map((d) => d.ids))
    }))

  it.effect("year in review: totals, per sport, months, weekdays, hours, highlights, countries, streak, commutes and the year before", () =>
    Effect.gen(function*() {
      const all = yield* listedActivities
      const of2024 = all.filter((a) => dayOf(a).startsWith("2024"))
      const of2025 = all.filter((a) => dayOf(a).startsWith("2025"))
      const review = yield* get("/stats/year-in-review?filters[year]=2024")
      expect(review.year).toBe(2024)
      expect(review.totals).toEqual(yearTotals(of2024))
      expect(review.totals.count).toBeGreaterThan(200)
      const sports = [...new Set(of2024.map((a) => a.sportType))]
      expect(review.sportTypes.map((s: any) => s.sportType).sort()).toEqual(sports.sort())
      for (const s of review.sportTypes) {
        const xs = of2024.filter((a) => a.sportType === s.sportType)
        expect(s).toEqual({ sportType: s.sportType, ...sumsOf(xs), calories: xs.reduce((c, a) => c + (a.calories ?? 0), 0) })
      }
      expect(review.sportTypes.map((s: any) => s.movingTimeInSeconds)).toEqual(review.sportTypes.map((s: any) => s.movingTimeInSeconds).sort((a: number, b: number) => b - a))
      expect(review.months.map((m: any) => m.month)).toEqual(Array.from({ length: 12 }, (_, i) => `2024-${String(i + 1).padStart(2, "0")}`))
      for (const m of review.months) expect(m).toEqual({ month: m.month, ...sumsOf(of2024.filter((a) => dayOf(a).startsWith(m.month))) })
      for (const w of review.weekdays) expect(w).toEqual({ weekday: w.weekday, ...sumsOf(of2024.filter((a) => weekdayOf(dayOf(a)) === w.weekday)) })
      for (const h of review.startHours) expect(h.count).toBe(of2024.filter((a) => Number(a.startDateLocal.slice(11, 13)) === h.hour).length)
      const maxOf = <A>(xs: ReadonlyArray<A>, f: (x: A) => number) => Math.max(...xs.map(f))
      expect(review.busiestMonth.movingTimeInSeconds).toBe(maxOf(review.months, (m: any) => m.movingTimeInSeconds))
      expect(review.busiestWeekday.movingTimeInSeconds).toBe(maxOf(review.weekdays, (w: any) => w.movingTimeInSeconds))
      expect(review.usualStartHour.count).toBe(maxOf(review.startHours, (h: any) => h.count))
      expect(review.longestActivity.distanceInMeter).toBe(maxOf(of2024, (a) => a.distanceInMeter))
      expect(review.biggestClimb.elevationInMeter).toBe(maxOf(of2024, (a) => a.elevationInMeter))
      expect(of2024.find((a) => a.id === review.longestActivity.id)?.distanceInMeter).toBe(review.longestActivity.distanceInMeter)
      const visits = new Map<string, number>()
      for (const a of of2024) for (const c of countriesOfListed(a)) visits.set(c, (visits.get(c) ?? 0) + 1)
      expect(review.countries).toEqual([...visits].map(([countryCode, count]) => ({ countryCode, count }))
        .sort((a, b) => b.count - a.count || a.countryCode.localeCompare(b.countryCode)))
      const days = of2024.map(dayOf)
      const longestDays = longestOf(runsOf(days, 1))!
      const longestWeeks = longestOf(runsOf(days, 7))!
      expect(review.longestStreak).toEqual({
        days: { length: longestDays.length, firstDay: longestDays.firstDay, lastDay: longestDays.lastDay },
        weeks: { length: longestWeeks.length, firstDay: longestWeeks.firstDay, lastDay: longestWeeks.lastDay }
      })
      const commutes = of2024.filter((a) => a.isCommute)
      const commuteMeters = commutes.reduce((s, a) => s + a.distanceInMeter, 0)
      expect(commutes.length).toBeGreaterThan(5)
      expect(review.commutes).toEqual({ count: commutes.length, distanceInMeter: commuteMeters, co2SavedInKg: Math.round(commuteMeters / 1000 * 0.2178 * 10) / 10 })
      // nothing before October 2024; 2025 compares with all of 2024
      expect(review.previousYear).toEqual({ year: 2023, totals: yearTotals([]) })
      const next = yield* get("/stats/year-in-review?filters[year]=2025")
      expect(next.totals).toEqual(yearTotals(of2025))
      expect(next.previousYear).toEqual({ year: 2024, totals: review.totals })
      // the records set each year, runs first, shortest distance first
      for (const [year, answer] of [["2024", review], ["2025", next]] as const) {
        const expected = recordsSetIn(year)
        expect(answer.records.length, year).toBe(expected.size)
        for (const r of answer.records) {
          expect([r.activityId, r.elapsedTimeInSeconds], `${year} ${r.name} ${r.discipline}`).toEqual(expected.get(`${r.discipline} ${r.distanceInMeter}`))
        }
        const order = answer.records.map((r: any) => (r.discipline === "run" ? 0 : 1e9) + r.distanceInMeter)
        expect(order).toEqual([...order].sort((a: number, b: number) => a - b))
      }
      expect(review.records.length).toBeGreaterThan(5)
      const empty = yield* get("/stats/year-in-review?filters[year]=1990")
      expect(empty).toMatchObject({ year: 1990, totals: yearTotals([]), longestActivity: null, biggestClimb: null, busiestMonth: null, usualStartHour: null, countries: [], records: [] })
    }))

  it.effect("milestones: firsts, distance marks, records, Eddington numbers and countries as the history makes them, newest first", () =>
    Effect.gen(function*() {
      const all = yield* listedActivities
      const { milestones } = yield* get("/milestones")
      const dates = milestones.map((m: any) => m.on)
      expect(dates).toEqual([...dates].sort().reverse())
      // in the order the activities started: the answer is by local date, which a later start further west may hold earlier
      const started = new Map(all.map((a, i) => [a.id, i]))
      const of = (kind: string) =>
        milestones.filter((m: any) => m.kind === kind).reverse().sort((x: any, y: any) => started.get(x.activityId)! - started.get(y.activityId)!)
      // the first activity of each sport type
      const firsts = new Map<string, Listed>()
      for (const a of all) if (!firsts.has(a.sportType)) firsts.set(a.sportType, a)
      expect(of("firstOfSportType").map((m: any) => [m.sportType, m.activityId, m.on]))
        .toEqual([...firsts.values()].map((a) => [a.sportType, a.id, dayOf(a)]))
      // each cumulative distance mark, where the running total passed it
      const marks = [100, 250, 500, 1000, 2500, 5000, 10_000]
      let total = 0
      const passed: Array<[number, string]> = []
      for (const a of all) {
        total += a.distanceInMeter
        for (const mark of marks) if (total >= mark * 1000 && !passed.some(([m]) => m === mark * 1000)) passed.push([mark * 1000, a.id])
      }
      expect(of("distanceMark").filter((m: any) => m.sportType === null).map((m: any) => [m.value, m.activityId])).toEqual(passed)
      expect(of("distanceMark").find((m: any) => m.value === 1_000_000 && m.sportType === null).title).toBe("1,000 km in total")
      // the Eddington numbers: the last reached is the route's number, overall and for a sport type
      const eddington = (yield* get("/stats/eddington")).eddington
      const overall = of("eddington").filter((m: any) => m.sportType === null)
      expect(overall.map((m: any) => m.value)).toEqual(Array.from({ length: eddington.km }, (_, i) => i + 1))
      const rides = (yield* get("/stats/eddington?filters[sportType]=Ride")).eddington
      expect(of("eddington").filter((m: any) => m.sportType === "Ride").at(-1).value).toBe(rides.km)
      // the last record of each distance is the record of the statistics
      const records = (yield* get("/stats/records")).records
      for (const r of records) {
        const last = of("record").filter((m: any) => m.title.includes(` ${r.name} ${r.discipline} record`)).at(-1)
        expect(last.value, `${r.name} ${r.discipline}`).toBe(r.elapsedTimeInSeconds)
        // of equal times the first holds the record (the statistics name any of them)
        expect(started.get(last.activityId)!, `${r.name} ${r.discipline}`).toBeLessThanOrEqual(started.get(r.activityId)!)
      }
      // each record is faster than the one before it
      const byTitle = new Map<string, number>()
      for (const m of of("record")) {
        const key = m.title.split(":")[0]
        expect(m.value).toBeLessThan(byTitle.get(key) ?? Infinity)
        byTitle.set(key, m.value)
      }
      // the first activity in each country, the start's country before those passed through
      const seen = new Map<string, string>()
      for (const a of all) for (const c of countriesOfListed(a)) if (!seen.has(c)) seen.set(c, a.id)
      expect(of("firstInCountry").map((m: any) => [m.value, m.activityId])).toEqual([...seen])
      expect(of("firstInCountry").find((m: any) => m.value === "nz").title).toBe("First activity in New Zealand")
      // longer than every activity of its sport before it
      const longest = new Map<string, number>()
      const expectedLongest: Array<string> = []
      for (const a of all) {
        const before = longest.get(a.sportType)
        if (before !== undefined && a.distanceInMeter > before) expectedLongest.push(a.id)
        longest.set(a.sportType, Math.max(before ?? 0, a.distanceInMeter))
      }
      expect(of("longestOfSportType").map((m: any) => m.activityId)).toEqual(expectedLongest)
    }))

  it.effect("milestones are derived: deleting an activity removes what it made, and the next one makes it", () =>
    Effect.gen(function*() {
      const all = yield* listedActivities
      const firstSwim = all.find((a) => a.sportType === "Swim")!
      const secondSwim = all.filter((a) => a.sportType === "Swim")[1]!
      const before = (yield* get("/milestones")).milestones
      expect(before.some((m: any) => m.activityId === firstSwim.id && m.kind === "firstOfSportType")).toBe(true)
      const deleted = yield* send("DELETE", `/api/v1/activities/${firstSwim.id}`)
      expect(deleted.status).toBe(204)
      const after = (yield* get("/milestones")).milestones
      expect(after.filter((m: any) => m.activityId === firstSwim.id)).toEqual([])
      expect(after.find((m: any) => m.kind === "firstOfSportType" && m.sportType === "Swim")).toMatchObject({ activityId: secondSwim.id, title: "First swim" })
    }))

  it.effect("bad parameters answer 400 in the error shape; every route needs the key", () =>
    Effect.gen(function*() {
      for (const query of ["filters[month]=2024-13", "filters[month]=2024-1", "filters[month]=1899-12", "filters[sportType]=Flying", "filters[from]=2024-01-01"]) {
        expectError(yield* send("GET", `/api/v1/stats/calendar?${query}`), 400, "bad_request")
      }
      for (const query of ["filters[year]=24", "filters[year]=1899", "filters[year]=abcd", "filters[month]=2024-01"]) {
        expectError(yield* send("GET", `/api/v1/stats/year-in-review?${query}`), 400, "bad_request")
      }
      for (const path of ["/stats/calendar", "/stats/streaks", "/stats/year-in-review", "/milestones"]) {
        expectError(yield* send("GET", `/api/v1${path}`, { key: null }), 401, "invalid_token")
        expect((yield* send("GET", `/api/v1${path}`)).status).toBe(200)
      }
    }))
})

layer(TestDaemon.layer(), { excludeTestServices: true })("streaks against today", (it) => {
  it.effect("the current and longest runs of days and weeks, overall and per sport type; today not over yet", () =>
    Effect.gen(function*() {
      const today = new Date().toISOString().slice(0, 10)
      const at = (date: string, sportType: "Run" | "Ride" | "Swim", hour = "08") =>
        seedActivity({ sportType, startTime: Date.parse(`${date}T${hour}:00:00Z`), startDateLocal: `${date}T${hour}:00:00` })
      // runs yesterday and the four days before it (not today yet): a current run of 5 days
      for (let i = 1; i <= 5; i++) yield* at(addDays(today, -i), "Run")
      // rides on 7 days in a row long ago, twice on one of them
      for (let i = 0; i < 7; i++) yield* at(addDays("2023-03-06", i), "Ride")
      yield* at("2023-03-08", "Ride", "18")
      // a swim three weeks ago
      yield* at(addDays(today, -21), "Swim")
      const answer = yield* get("/stats/streaks")
      expect(answer.today).toBe(today)
      const runDays = Array.from({ length: 5 }, (_, i) => addDays(today, -5 + i))
      expect(answer.overall.days).toEqual({
        current: { length: 5, firstDay: runDays[0], lastDay: runDays[4] },
        longest: { length: 7, firstDay: "2023-03-06", lastDay: "2023-03-12" }
      })
      const run = answer.sportTypes.find((s: any) => s.sportType === "Run")
      expect(run.days.current).toEqual(run.days.longest)
      const ride = answer.sportTypes.find((s: any) => s.sportType === "Ride")
      expect(ride.days).toEqual({ current: null, longest: { length: 7, firstDay: "2023-03-06", lastDay: "2023-03-12" } })
      // 2023-03-06 was a Monday: the rides fill one ISO week
      expect(ride.weeks.longest).toEqual({ length: 1, firstDay: "2023-03-06", lastDay: "2023-03-12" })
      expect(answer.sportTypes.map((s: any) => s.sportType)).toEqual(["Ride", "Run", "Swim"])
      const swim = answer.sportTypes.find((s: any) => s.sportType === "Swim")
      expect(swim.days.current).toBeNull()
      expect(swim.weeks.current).toBeNull()
      // the weeks: the runs' weeks and the swim's, compared with the plain walk over the dates
      const dates = [...runDays, addDays(today, -21)]
      const weekRuns = runsOf(dates, 7)
      const currentWeek = weekRuns.at(-1)!
      expect(answer.overall.weeks.current).toEqual({ length: currentWeek.length, firstDay: currentWeek.firstDay, lastDay: currentWeek.lastDay })
      // today's activity continues the run
      yield* at(today, "Run")
      const later = yield* get("/stats/streaks")
      expect(later.overall.days.current).toEqual({ length: 6, firstDay: runDays[0], lastDay: today })
    }))
})

layer(TestDaemon.layer({ env: { UNIT_SYSTEM: "imperial" } }), { excludeTestServices: true })("milestones in miles", (it) => {
  it.effect("with UNIT_SYSTEM=imperial the distance marks and Eddington numbers count miles", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 3; i++) {
        yield* seedActivity({ sportType: "Ride", distanceInMeter: 60_000, startTime: Date.parse(`2024-05-0${i + 1}T08:00:00Z`), startDateLocal: `2024-05-0${i + 1}T08:00:00` })
      }
      const { milestones } = yield* get("/milestones")
      // 180 km is 111.8 miles: the third ride passes the 100-mile mark (two made 74.6)
      const mark = milestones.find((m: any) => m.kind === "distanceMark" && m.sportType === null)
      expect(mark).toMatchObject({ title: "100 mi in total", value: 160_934.4, on: "2024-05-03" })
      expect(milestones.filter((m: any) => m.kind === "eddington" && m.sportType === null).map((m: any) => m.value)).toEqual([3, 2, 1])
      expect(milestones.find((m: any) => m.kind === "longestOfSportType")).toBeUndefined()
    }))
})
