import { expect, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { RECORD_DISTANCES } from "../../src/schema/EffortDistances.ts"
import { generatedActivity, seedGenerated } from "../support/generatedActivities.ts"
import { ActivityRepo } from "../../src/services/activities/ActivityRepo.ts"
import { encodeDraft } from "../../src/services/activities/StreamsCodec.ts"
import { makeDraft, seedActivity, send, TestDaemon } from "../support/TestDaemon.ts"
import {
  addDays,
  expectCalendar,
  expectMilestones,
  expectStreaks,
  expectYearInReview,
  getJson,
  listedActivities,
  runsOf
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
      if (effort.elapsedTimeInSeconds >= (best.get(key) ?? Infinity)) continue
      best.set(key, effort.elapsedTimeInSeconds)
      if (activity.startDateLocal.startsWith(year)) ofYear.set(key, [activity.id, effort.elapsedTimeInSeconds])
    }
  }
  return ofYear
}


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
      for (const month of ["2024-10", "2024-11", "2024-12", "2025-01", "2025-02"]) yield* expectCalendar(all, month)
      // ISO weeks: 30 December 2024 is the Monday of 2025's first week
      const december = yield* expectCalendar(all, "2024-12", ["Run", "TrailRun"])
      expect(december.weeks.map((w: any) => w.week)).toEqual(["2024-W48", "2024-W49", "2024-W50", "2024-W51", "2024-W52", "2025-W01"])
      expect(december.days).toHaveLength(31)
      expect(december.totals.count).toBeGreaterThan(10)
      expect((yield* getJson("/stats/calendar?filters[month]=2024-02")).days).toHaveLength(29)
    }))

  it.effect("asked for no period, the calendar and the year in review open on the latest activity's month and year, not on an empty present", () =>
    Effect.gen(function*() {
      const latest = (yield* listedActivities).map((a: any) => a.startDateLocal as string).sort().at(-1)!
      expect(latest.slice(0, 7)).toBe("2025-01")
      expect((yield* getJson("/stats/calendar")).month).toBe("2025-01")
      expect((yield* getJson("/stats/year-in-review")).year).toBe(2025)
      // a period asked for is the one answered, activities or not
      expect((yield* getJson("/stats/calendar?filters[month]=2026-03")).month).toBe("2026-03")
    }))

  it.effect("year in review: totals, per sport, months, weekdays, hours, highlights, countries, streak, commutes, records and the year before", () =>
    Effect.gen(function*() {
      const all = yield* listedActivities
      const review = yield* expectYearInReview(all, 2024)
      expect(review.totals.count).toBeGreaterThan(200)
      expect(review.commutes.count).toBeGreaterThan(5)
      const next = yield* expectYearInReview(all, 2025)
      expect(next.previousYear.totals).toEqual(review.totals)
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
      const empty = yield* expectYearInReview(all, 1990)
      expect(empty).toMatchObject({ longestActivity: null, biggestClimb: null, busiestMonth: null, usualStartHour: null, countries: [], records: [] })
    }))

  it.effect("streaks: the longest runs of days and weeks, overall and per sport type", () =>
    Effect.gen(function*() {
      const streaks = yield* expectStreaks(yield* listedActivities)
      expect(streaks.overall.days.longest.length).toBeGreaterThan(20)
    }))

  it.effect("milestones: firsts, distance marks, records, Eddington numbers and countries as the history makes them, newest first", () =>
    Effect.gen(function*() {
      const milestones = yield* expectMilestones(yield* listedActivities)
      expect(milestones.find((m: any) => m.kind === "distanceMark" && m.value === 1_000_000 && m.sportType === null).title).toBe("1,000 km in total")
      expect(milestones.find((m: any) => m.kind === "firstInCountry" && m.value === "nz").title).toBe("First activity in New Zealand")
      expect(milestones.filter((m: any) => m.kind === "record").length).toBeGreaterThan(10)
      // a kind, or a sport type's, at a time
      const records = (yield* getJson("/milestones?filters[kind]=record,firstInCountry")).milestones
      expect(records).toEqual(milestones.filter((m: any) => m.kind === "record" || m.kind === "firstInCountry"))
      const swims = (yield* getJson("/milestones?filters[sportType]=Swim")).milestones
      expect(swims).toEqual(milestones.filter((m: any) => m.sportType === "Swim"))
      expect(swims.length).toBeGreaterThan(3)
    }))

  it.effect("milestones are derived: deleting an activity removes what it made, and the next one makes it", () =>
    Effect.gen(function*() {
      const all = yield* listedActivities
      const firstSwim = all.find((a) => a.sportType === "Swim")!
      const secondSwim = all.filter((a) => a.sportType === "Swim")[1]!
      const before = (yield* getJson("/milestones")).milestones
      expect(before.some((m: any) => m.activityId === firstSwim.id && m.kind === "firstOfSportType")).toBe(true)
      const deleted = yield* send("DELETE", `/api/v1/activities/${firstSwim.id}`)
      expect(deleted.status).toBe(204)
      const after = (yield* getJson("/milestones")).milestones
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
      for (const query of ["filters[kind]=birthday", "filters[sportType]=Flying", "filters[year]=2024"]) {
        expectError(yield* send("GET", `/api/v1/milestones?${query}`), 400, "bad_request")
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
      const answer = yield* getJson("/stats/streaks")
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
      const later = yield* getJson("/stats/streaks")
      expect(later.overall.days.current).toEqual({ length: 6, firstDay: runDays[0], lastDay: today })
    }))
})

layer(TestDaemon.layer({ env: { UNIT_SYSTEM: "imperial" } }), { excludeTestServices: true })("milestones in miles", (it) => {
  it.effect("with UNIT_SYSTEM=imperial the distance marks and Eddington numbers count miles", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 3; i++) {
        yield* seedActivity({ sportType: "Ride", distanceInMeter: 60_000, startTime: Date.parse(`2024-05-0${i + 1}T08:00:00Z`), startDateLocal: `2024-05-0${i + 1}T08:00:00` })
      }
      const { milestones } = yield* getJson("/milestones")
      // 180 km is 111.8 miles: the third ride passes the 100-mile mark (two made 74.6)
      const mark = milestones.find((m: any) => m.kind === "distanceMark" && m.sportType === null)
      expect(mark).toMatchObject({ title: "100 mi in total", value: 160_934.4, on: "2024-05-03" })
      expect(milestones.filter((m: any) => m.kind === "eddington" && m.sportType === null).map((m: any) => m.value)).toEqual([3, 2, 1])
      expect(milestones.find((m: any) => m.kind === "longestOfSportType")).toBeUndefined()
    }))
})

layer(TestDaemon.layer(), { excludeTestServices: true })("records of activities computed again", (it) => {
  it.effect("an activity stored anew with other best efforts, or a new one, changes the records the milestones and the review name", () =>
    Effect.gen(function*() {
      const repo = yield* ActivityRepo
      const run = (date: string, fiveKm: number) =>
        makeDraft({ sportType: "Run", distanceInMeter: 6000, startTime: Date.parse(`${date}T08:00:00Z`), startDateLocal: `${date}T08:00:00`, bestEfforts: [{ distanceInMeter: 5000, elapsedTimeInSeconds: fiveKm, startOffsetInSeconds: 0 }] })
      const fiveKmRecords = Effect.map(getJson("/milestones"), ({ milestones }) =>
        milestones.filter((m: any) => m.title.startsWith("New 5 km run record")).map((m: any) => [m.activityId, m.value]).reverse())
      yield* repo.insert("activity-first", encodeDraft(run("2024-03-01", 1500)))
      yield* repo.insert("activity-second", encodeDraft(run("2024-04-01", 1450)))
      expect(yield* fiveKmRecords).toEqual([["activity-first", 1500], ["activity-second", 1450]])
      // the first computed again (as app:activities:reprocess does): faster than the second now
      yield* repo.replace("activity-first", encodeDraft(run("2024-03-01", 1400)), null)
      expect(yield* fiveKmRecords).toEqual([["activity-first", 1400]])
      expect((yield* getJson("/stats/year-in-review?filters[year]=2024")).records.map((r: any) => [r.activityId, r.elapsedTimeInSeconds])).toEqual([["activity-first", 1400]])
      // a new activity, and one deleted
      yield* repo.insert("activity-third", encodeDraft(run("2024-05-01", 1300)))
      expect(yield* fiveKmRecords).toEqual([["activity-first", 1400], ["activity-third", 1300]])
      expect((yield* send("DELETE", "/api/v1/activities/activity-first")).status).toBe(204)
      expect(yield* fiveKmRecords).toEqual([["activity-second", 1450], ["activity-third", 1300]])
      expect((yield* getJson("/stats/records")).records.map((r: any) => [r.activityId, r.elapsedTimeInSeconds])).toEqual([["activity-third", 1300]])
    }))
})

layer(TestDaemon.layer(), { excludeTestServices: true })("the history walked on as activities are added", (it) => {
  it.effect("milestones, streaks and records follow each new activity, an older one added, a sport type changed and a deletion", () =>
    Effect.gen(function*() {
      const repo = yield* ActivityRepo
      // the generated activities, oldest first (as new files arrive), each followed by a look at the history
      for (let i = 59; i >= 0; i--) {
        yield* repo.insert(`activity-added-${i}`, encodeDraft(generatedActivity(i, { end: END })))
        if (i % 6 === 0) {
          const all = yield* listedActivities
          yield* expectMilestones(all)
          yield* expectStreaks(all)
        }
      }
      // one older than all of them: the walk starts again from the first
      yield* repo.insert("activity-older", encodeDraft(generatedActivity(400, { end: END })))
      yield* expectMilestones(yield* listedActivities)
      expect((yield* getJson("/milestones")).milestones.some((m: any) => m.activityId === "activity-older" && m.kind === "firstOfSportType")).toBe(true)
      // changes to what the walk reads, and a deletion
      expect((yield* send("PATCH", "/api/v1/activities/activity-added-3", { json: { sportType: "Walk" } })).status).toBe(200)
      yield* expectMilestones(yield* listedActivities)
      expect((yield* send("DELETE", "/api/v1/activities/activity-added-59")).status).toBe(204)
      const all = yield* listedActivities
      yield* expectMilestones(all)
      yield* expectStreaks(all)
      yield* expectYearInReview(all, 2025)
      // a change elsewhere keeps the walk: the same answer
      const before = (yield* getJson("/milestones")).milestones
      expect((yield* send("POST", "/api/v1/athlete/weights", { json: { on: "2025-01-01", weight: 70 } })).status).toBe(200)
      expect((yield* getJson("/milestones")).milestones).toEqual(before)
      // the last activity removed and another added (it takes the removed one's rowid), one added
      // then changed before the next look, several changed at once
      yield* repo.remove("activity-added-0")
      yield* repo.insert("activity-added-again", encodeDraft(generatedActivity(0, { end: END + 3_600_000 })))
      yield* repo.insert("activity-newest", encodeDraft(generatedActivity(1, { end: END + 7_200_000 })))
      yield* repo.update("activity-newest", { distanceInMeter: 250_000 })
      for (const id of ["activity-added-10", "activity-added-20", "activity-added-30"]) yield* repo.update(id, { sportType: "Hike", distanceInMeter: 1234 })
      yield* expectMilestones(yield* listedActivities)
      // a renamed activity: the review names it so
      const longest = (yield* getJson("/stats/year-in-review?filters[year]=2025")).longestActivity
      expect((yield* send("PATCH", `/api/v1/activities/${longest.id}`, { json: { name: "The long one" } })).status).toBe(200)
      expect((yield* getJson("/stats/year-in-review?filters[year]=2025")).longestActivity).toEqual({ ...longest, name: "The long one" })
      // more changes than the log keeps: everything read again
      const sql = yield* SqlClient.SqlClient
      for (let i = 0; i < 1100; i++) yield* sql`UPDATE activities SET distance = distance + 1 WHERE id = 'activity-added-40'`
      const last = yield* listedActivities
      yield* expectMilestones(last)
      yield* expectStreaks(last)
    }))
})
