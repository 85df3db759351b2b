import polyline from "@mapbox/polyline"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE, readCorpusFile } from "../support/corpus.ts"
import { dropFile, waitForRow } from "../support/ImportHarness.ts"
import { seedActivity, send, TestDaemon } from "../support/TestDaemon.ts"
import { expectError } from "./helpers.ts"

if (!CORPUS_DIR) console.log(CORPUS_MISSING_MESSAGE)

/** A seeded activity starting at the local time `local` (the same instant in UTC). */
const at = (local: string, overrides: Parameters<typeof seedActivity>[0] = {}) =>
  seedActivity({ startTime: Date.parse(`${local}Z`), startDateLocal: local, ...overrides })

layer(TestDaemon.layer(), { excludeTestServices: true })("GET /api/v1/stats/totals", (it) => {
  it.effect("sums per ISO week, month and year and sport type, newest first, exact to the metre and second", () =>
    Effect.gen(function*() {
      yield* at("2024-01-29T07:00:00", { sportType: "Run", distanceInMeter: 1000.4, movingTimeInSeconds: 300, elapsedTimeInSeconds: 310, elevationInMeter: 10.4 })
      yield* at("2024-02-04T23:30:00", { sportType: "Run", distanceInMeter: 1000.6, movingTimeInSeconds: 301, elapsedTimeInSeconds: 320, elevationInMeter: 0.6 })
      yield* at("2024-02-05T06:00:00", { sportType: "Run", distanceInMeter: 5000, movingTimeInSeconds: 1500, elapsedTimeInSeconds: 1600, elevationInMeter: 20 })
      yield* at("2024-02-04T10:00:00", { sportType: "Ride", distanceInMeter: 40_000, movingTimeInSeconds: 4000, elapsedTimeInSeconds: 4100, elevationInMeter: 300 })
      yield* at("2024-12-30T10:00:00", { sportType: "Ride", distanceInMeter: 20_000, movingTimeInSeconds: 2000, elapsedTimeInSeconds: 2100, elevationInMeter: 100 })
      yield* at("2023-12-31T10:00:00", { sportType: "Ride", distanceInMeter: 10_000, movingTimeInSeconds: 1000, elapsedTimeInSeconds: 1100, elevationInMeter: 50 })

      const weeks = yield* send("GET", "/api/v1/stats/totals?filters[period]=week")
      expect(weeks.status).toBe(200)
      expect(weeks.json.totals).toEqual([
        // 2024-12-30 is a Monday of ISO week 1 of 2025
        { period: "2025-W01", sportType: "Ride", count: 1, distanceInMeter: 20_000, movingTimeInSeconds: 2000, elapsedTimeInSeconds: 2100, elevationInMeter: 100 },
        { period: "2024-W06", sportType: "Run", count: 1, distanceInMeter: 5000, movingTimeInSeconds: 1500, elapsedTimeInSeconds: 1600, elevationInMeter: 20 },
        { period: "2024-W05", sportType: "Ride", count: 1, distanceInMeter: 40_000, movingTimeInSeconds: 4000, elapsedTimeInSeconds: 4100, elevationInMeter: 300 },
        // each activity counts as the list shows it: 1000 + 1000 m, 10 + 0 m
        { period: "2024-W05", sportType: "Run", count: 2, distanceInMeter: 2000, movingTimeInSeconds: 601, elapsedTimeInSeconds: 630, elevationInMeter: 10 },
        { period: "2023-W52", sportType: "Ride", count: 1, distanceInMeter: 10_000, movingTimeInSeconds: 1000, elapsedTimeInSeconds: 1100, elevationInMeter: 50 }
      ])

      const months = (yield* send("GET", "/api/v1/stats/totals?filters[period]=month&filters[sportType]=Run")).json.totals
      expect(months.map((t: any) => [t.period, t.count, t.distanceInMeter])).toEqual([["2024-02", 2, 6000], ["2024-01", 1, 1000]])

      const years = (yield* send("GET", "/api/v1/stats/totals?filters[period]=year&filters[from]=2024-01-01&filters[to]=2024-12-31")).json.totals
      expect(years.map((t: any) => [t.period, t.sportType, t.count, t.distanceInMeter])).toEqual([["2024", "Ride", 2, 60_000], ["2024", "Run", 3, 7000]])

      // the sums are those of the activities the list shows for the same filters
      const list = (yield* send("GET", "/api/v1/activities?filters[sportType]=Run&pagination[size]=100")).json.activities
      expect(list.reduce((sum: number, a: any) => sum + a.distanceInMeter, 0)).toBe(7000)
    }))

  it.effect("a missing or unknown period, a bad date, a range that ends before it starts, an unknown filter: 400", () =>
    Effect.gen(function*() {
      for (const query of [
        "", "filters[period]=day", "filters[period]=week&filters[from]=2024-02-30", "filters[period]=week&filters[from]=2024-03-01&filters[to]=2024-02-01",
        "filters[period]=week&filters[sportType]=Flying", "filters[period]=week&filters[perod]=x"
      ]) {
        expectError(yield* send("GET", `/api/v1/stats/totals?${query}`), 400, "bad_request")
      }
      // an unknown period is answered with every period there is, as a missing one is
      for (const query of ["", "filters[period]=fortnight"]) {
        expect((yield* send("GET", `/api/v1/stats/totals?${query}`)).json.message, query).toContain("one of week, month, year")
      }
      expect((yield* send("GET", "/api/v1/stats/totals?filters[period]=week")).status).toBe(200)
      expectError(yield* send("GET", "/api/v1/stats/totals?filters[period]=week", { key: null }), 401, "invalid_token")
    }))
})

layer(TestDaemon.layer(), { excludeTestServices: true })("records, Eddington number and heatmap", (it) => {
  it.effect("records: the fastest effort over each standard distance, per discipline, with its activity and date", () =>
    Effect.gen(function*() {
      const slow = yield* at("2024-03-01T08:00:00", { sportType: "Run", bestEfforts: [{ distanceInMeter: 5000, elapsedTimeInSeconds: 1500, startOffsetInSeconds: 0 }] })
      const fast = yield* at("2024-04-01T08:00:00", {
        sportType: "TrailRun",
        bestEfforts: [
          { distanceInMeter: 400, elapsedTimeInSeconds: 80, startOffsetInSeconds: 30 },
          { distanceInMeter: 1609.344, elapsedTimeInSeconds: 380, startOffsetInSeconds: 10 },
          { distanceInMeter: 5000, elapsedTimeInSeconds: 1400, startOffsetInSeconds: 60 },
          // not a standard distance of the records
          { distanceInMeter: 15_000, elapsedTimeInSeconds: 4800, startOffsetInSeconds: 0 }
        ]
      })
      const ride = yield* at("2024-05-01T08:00:00", { sportType: "Ride", bestEfforts: [{ distanceInMeter: 10_000, elapsedTimeInSeconds: 900, startOffsetInSeconds: 120 }] })
      const all = (yield* send("GET", "/api/v1/stats/records")).json.records
      expect(all).toEqual([
        { discipline: "run", name: "400 m", distanceInMeter: 400, elapsedTimeInSeconds: 80, activityId: fast, sportType: "TrailRun", startDateLocal: "2024-04-01T08:00:00", startOffsetInSeconds: 30, activityName: expect.any(String) },
        { discipline: "run", name: "1 mile", distanceInMeter: 1609.344, elapsedTimeInSeconds: 380, activityId: fast, sportType: "TrailRun", startDateLocal: "2024-04-01T08:00:00", startOffsetInSeconds: 10, activityName: expect.any(String) },
        { discipline: "run", name: "5 km", distanceInMeter: 5000, elapsedTimeInSeconds: 1400, activityId: fast, sportType: "TrailRun", startDateLocal: "2024-04-01T08:00:00", startOffsetInSeconds: 60, activityName: expect.any(String) },
        { discipline: "ride", name: "10 km", distanceInMeter: 10_000, elapsedTimeInSeconds: 900, activityId: ride, sportType: "Ride", startDateLocal: "2024-05-01T08:00:00", startOffsetInSeconds: 120, activityName: expect.any(String) }
      ])
      const runOnly = (yield* send("GET", "/api/v1/stats/records?filters[sportType]=Run")).json.records
      expect(runOnly).toEqual([expect.objectContaining({ name: "5 km", activityId: slow, elapsedTimeInSeconds: 1500 })])
      expect((yield* send("GET", "/api/v1/stats/records?filters[sportType]=Swim")).json.records).toEqual([])
      expectError(yield* send("GET", "/api/v1/stats/records?filters[sportType]=Flying"), 400, "bad_request")
    }))

  it.effect.skipIf(!CORPUS_DIR)("records of a real 10 km race imported from its FIT file", () =>
    Effect.gen(function*() {
      const daemon = yield* TestDaemon
      dropFile(daemon.watchDir, "garmin-fr15-10k-run.fit", readCorpusFile("fit/garmin-fr15-10k-run.fit"))
      const row = yield* waitForRow("garmin-fr15-10k-run.fit")
      expect(row.status).toBe("success")
      const records = (yield* send("GET", "/api/v1/stats/records?filters[sportType]=Run")).json.records
      const tenK = records.find((r: any) => r.name === "10 km")
      expect(tenK).toMatchObject({ discipline: "run", activityId: row.activity_id, startDateLocal: expect.stringMatching(/^2014-10-11T/) })
      // the whole race took 2,224 s for 10,011 m
      expect(tenK.elapsedTimeInSeconds).toBeGreaterThan(2100)
      expect(tenK.elapsedTimeInSeconds).toBeLessThanOrEqual(2224)
      const efforts = (yield* send("GET", `/api/v1/activities/${row.activity_id}/best-efforts`)).json.bestEfforts
      expect(efforts.find((e: any) => e.name === "5 km").elapsedTimeInSeconds).toBe(records.find((r: any) => r.name === "5 km").elapsedTimeInSeconds)
    }))

  it.effect("Eddington: the largest n of n days of at least n km (and miles), activities of a day added up", () =>
    Effect.gen(function*() {
      for (const day of ["2024-06-01", "2024-06-02", "2024-06-03"]) yield* at(`${day}T08:00:00`, { sportType: "Walk", distanceInMeter: 3000 })
      yield* at("2024-06-04T08:00:00", { sportType: "Walk", distanceInMeter: 1500 })
      yield* at("2024-06-04T18:00:00", { sportType: "Walk", distanceInMeter: 1500 })
      yield* at("2024-06-05T08:00:00", { sportType: "Walk", distanceInMeter: 2000 })
      const answer = yield* send("GET", "/api/v1/stats/eddington?filters[sportType]=Walk")
      expect(answer.status).toBe(200)
      // km: four days of 3 km or more give 3 (4 needs four days of 4 km); miles: 3 km is 1.86 mi
      expect(answer.json).toEqual({ eddington: { km: 3, mi: 1, daysNeededForNextKm: 4, daysNeededForNextMi: 2 } })
      expect((yield* send("GET", "/api/v1/stats/eddington?filters[sportType]=Swim")).json.eddington).toEqual({ km: 0, mi: 0, daysNeededForNextKm: 1, daysNeededForNextMi: 1 })
    }))

  it.effect.skipIf(!CORPUS_DIR)("heatmap: each route simplified, newest first, filtered as the list; activities without one left out", () =>
    Effect.gen(function*() {
      const daemon = yield* TestDaemon
      dropFile(daemon.watchDir, "garmin-edge1000-ride.fit", readCorpusFile("fit/garmin-edge1000-ride.fit"))
      const row = yield* waitForRow("garmin-edge1000-ride.fit")
      expect(row.status).toBe("success")
      yield* at("2024-07-01T08:00:00", { sportType: "Hike", encodedPolyline: null, hasGpx: false })
      const answer = yield* send("GET", "/api/v1/stats/heatmap?filters[sportType]=Ride,Hike")
      expect(answer.status).toBe(200)
      const route = answer.json.routes.find((r: any) => r.activityId === row.activity_id)
      expect(route.sportType).toBe("Ride")
      const activity = (yield* send("GET", `/api/v1/activities/${row.activity_id}`)).json
      const full = polyline.decode(activity.encodedPolyline)
      const simplified = polyline.decode(route.encodedPolyline)
      expect(simplified.length).toBeLessThan(full.length)
      expect(simplified.length).toBeGreaterThan(10)
      expect(simplified[0]).toEqual(full[0])
      expect(simplified.at(-1)).toEqual(full.at(-1))
      expect(answer.json.routes.every((r: any) => r.sportType === "Ride")).toBe(true)
      const dates = answer.json.routes.length
      expect(dates).toBeGreaterThanOrEqual(1)
      expect((yield* send("GET", "/api/v1/stats/heatmap?filters[sportType]=Hike")).json).toEqual({ routes: [] })
      expectError(yield* send("GET", "/api/v1/stats/heatmap?filters[to]=2024-13-01"), 400, "bad_request")
    }))
})
