import { describe, expect, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { NOT_SWUM, type Split } from "../../../src/schema/ActivityDraft.ts"
import { Activity } from "../../../src/schema/ApiModels.ts"
import { ActivityRepo, SQLITE_MAX_VARIABLES } from "../../../src/services/activities/ActivityRepo.ts"
import { activityColumns } from "../../../src/services/activities/ActivityRow.ts"
import { makeDraft, seedActivity, seedRawActivityRow, send, TestDaemon } from "../../support/TestDaemon.ts"

/**
 * ActivityRepo: inserts of any size, and reads that never fail on a stored row, whatever an
 * older version wrote into it.
 */

const split = (unit: Split["unit"], i: number): Split => ({
  unit, splitIndex: i, distanceInMeter: 1000, elapsedTimeInSeconds: 200, movingTimeInSeconds: 190,
  elevationDifferenceInMeter: 0, averageSpeedInKmPerHour: 18, averageHeartRate: null
})


describe("ActivityRepo", () => {
  layer(TestDaemon.layer(), { excludeTestServices: true })((it) => {
    it.effect("the declared fields are stored in exactly the columns of the migrated activities table, beside its external id, creation time and the fields the athlete set by hand", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const table = (yield* sql<{ name: string }>`SELECT name FROM pragma_table_info('activities')`).map((c) => c.name)
        const written = Object.keys(activityColumns("activity-1", makeDraft()))
        expect([...written, "external_id", "created_at", "edited"].sort()).toEqual(table.sort())
      }))

    it.effect("reads every field of a stored activity back as it was computed, in the order of the Activity schema", () =>
      Effect.gen(function*() {
        const draft = makeDraft({
          name: "Every field", description: "All of them", sportType: "GravelRide", workoutType: "race", worldType: "zwift",
          importSource: "tcxFile", distanceInMeter: 12_345, elevationInMeter: 678, movingTimeInSeconds: 3_601, elapsedTimeInSeconds: 3_702,
          averageSpeedInKmPerHour: 12.34, maxSpeedInKmPerHour: 56.78, calories: 901, kilojoules: 902, averageHeartRate: 141, maxHeartRate: 171,
          averagePower: 201, maxPower: 501, averageCadence: 86, isCommute: true, deviceName: "Edge 1040",
          location: { countryCode: "nl", state: "Utrecht", city: "Utrecht" }, passedThroughCountries: ["nl", "be"],
          startLatLng: [52.09, 5.12], encodedPolyline: "abc", hasGpx: false
        })
        const id = yield* seedActivity(draft)
        const found = yield* (yield* ActivityRepo).findById(id)
        const expected = Object.fromEntries(Object.keys(Activity.fields).map((name) =>
          [name, name === "id" ? id : name === "images" ? [] : draft[name as keyof typeof draft]]
        ))
        expect(JSON.stringify(found)).toBe(JSON.stringify(expected))
      }))

    it.effect("stores activities with more splits, laps and best efforts than one SQLite statement can bind", () =>
      Effect.gen(function*() {
        // 4 values per split: 10,000 kilometre + 6,214 mile splits need several statements
        const metric = Array.from({ length: 10_000 }, (_, i) => split("km", i + 1))
        const imperial = Array.from({ length: 6_214 }, (_, i) => split("mile", i + 1))
        expect((metric.length + imperial.length) * 4).toBeGreaterThan(SQLITE_MAX_VARIABLES)
        const laps = Array.from({ length: 10_000 }, (_, i) => ({
          lapIndex: i + 1, name: `Lap ${i + 1}`, startOffsetInSeconds: i * 60, elapsedTimeInSeconds: 60, movingTimeInSeconds: 60,
          distanceInMeter: 600, elevationInMeter: 0, averageSpeedInKmPerHour: 36, maxSpeedInKmPerHour: 40, averageHeartRate: null, ...NOT_SWUM
        }))
        const id = yield* seedActivity({ splits: [...metric, ...imperial], laps, distanceInMeter: 10_000_000, elapsedTimeInSeconds: 600_000, movingTimeInSeconds: 600_000 })
        const sql = yield* SqlClient.SqlClient
        const counts = yield* sql<{ splits: number; laps: number }>`SELECT
          (SELECT COUNT(*) FROM activity_splits WHERE activity_id = ${id}) AS splits,
          (SELECT COUNT(*) FROM activity_laps WHERE activity_id = ${id}) AS laps`
        expect(counts[0]).toEqual({ splits: 16_214, laps: 10_000 })
      }))

    it.effect("GET /activities answers 200 over rows holding Infinity, 1e308, starts in the years 1000 and 2126, durations of millennia, huge texts and unknown words, each value brought within its type", () =>
      Effect.gen(function*() {
        const good = yield* seedActivity(makeDraft({ startTime: Date.parse("2022-05-02T08:00:00Z"), startDateLocal: "2022-05-02T10:00:00" }))
        yield* seedRawActivityRow("activity-huge", {
          distance: 1.7976931348623157e308, elevation: Infinity, moving_time: -Infinity, elapsed_time: 1e300,
          average_speed: Infinity, max_speed: -Infinity, calories: 1e308, kilojoules: Infinity, average_heart_rate: 140.6,
          max_power: -1e300, start_lat: Infinity, start_lng: 3
        })
        yield* seedRawActivityRow("activity-texts", {
          start_time: Date.parse("2022-05-01T09:00:00Z"), name: "n".repeat(100_000), description: "d".repeat(50_000),
          device_name: "x".repeat(100_000), sport_type: "Hovercraft", world_type: "mars", import_source: "floppy",
          workout_type: "nap", passed_through_countries: "not json", start_lat: 95, start_lng: 3
        })
        // starts in the year 1000, in 2126 and beyond what a date can hold; durations of millennia
        yield* seedRawActivityRow("activity-year-1000", { start_time: Date.UTC(1000, 0, 1, 8), start_date_local: "1000-01-01T09:00:00", elapsed_time: 1e11, moving_time: 1e11 })
        yield* seedRawActivityRow("activity-year-2126", { start_time: Date.UTC(2126, 0, 1, 8), start_date_local: "2126-01-01T09:00:00" })
        yield* seedRawActivityRow("activity-no-date", { start_time: 1e300, start_date_local: "+275760-09-13T00:00:00".repeat(100), elapsed_time: 3.2e16 })
        const answer = yield* send("GET", "/api/v1/activities?pagination[size]=100")
        expect(answer.status).toBe(200)
        const byId = new Map<string, any>(answer.json.activities.map((a: any) => [a.id, a]))
        expect(byId.has(good)).toBe(true)
        const huge = byId.get("activity-huge")
        expect({
          distance: huge.distanceInMeter, elevation: huge.elevationInMeter, moving: huge.movingTimeInSeconds, elapsed: huge.elapsedTimeInSeconds,
          avg: huge.averageSpeedInKmPerHour, max: huge.maxSpeedInKmPerHour, calories: huge.calories, kj: huge.kilojoules,
          hr: huge.averageHeartRate, power: huge.maxPower, start: huge.startLatLng
        }).toEqual({
          distance: Number.MAX_SAFE_INTEGER, elevation: 0, moving: 0, elapsed: Number.MAX_SAFE_INTEGER, avg: 0, max: 0,
          calories: Number.MAX_SAFE_INTEGER, kj: null, hr: 141, power: Number.MIN_SAFE_INTEGER, start: null
        })
        const texts = byId.get("activity-texts")
        expect(texts.name).toHaveLength(255)
        expect(texts.description).toHaveLength(10_000)
        expect(texts.deviceName).toHaveLength(100)
        expect([texts.sportType, texts.worldType, texts.importSource, texts.workoutType]).toEqual(["Workout", "realWorld", "fitFile", "workout"])
        expect(texts.passedThroughCountries).toEqual([])
        expect(texts.startLatLng).toBeNull()
        expect(byId.get("activity-year-1000").startDateLocal).toBe("1000-01-01T09:00:00")
        expect(byId.get("activity-year-1000").elapsedTimeInSeconds).toBe(1e11)
        expect(byId.get("activity-year-2126").startDateLocal).toBe("2126-01-01T09:00:00")
        expect(byId.get("activity-no-date").startDateLocal.length).toBeLessThanOrEqual(32)
        for (const query of ["pagination[page]=2", "filters[from]=1000-01-01&filters[to]=2200-01-01"]) {
          expect((yield* send("GET", `/api/v1/activities?pagination[size]=2&${query}`)).status).toBe(200)
        }
        // one by one too
        expect((yield* send("GET", "/api/v1/activities/activity-huge")).status).toBe(200)
        expect((yield* send("GET", "/api/v1/activities/activity-texts")).status).toBe(200)
        for (const id of ["activity-year-1000", "activity-year-2126", "activity-no-date"]) {
          expect((yield* send("GET", `/api/v1/activities/${id}`)).status, id).toBe(200)
        }
      }))
  })
})
