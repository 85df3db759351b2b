import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { seedActivity, send, TestDaemon } from "../support/TestDaemon.ts"
import { expectError } from "./helpers.ts"

/** `sort` of the activity list: each field in both directions, ties by their start, with filters and pages. */

layer(TestDaemon.layer(), { excludeTestServices: true })("GET /api/v1/activities?sort=…", (it) => {
  it.effect("orders by each field, smallest first or after a - largest first, ties by their start in the same direction", () =>
    Effect.gen(function*() {
      const at = (day: number) => ({ startTime: Date.parse(`2024-03-0${day}T08:00:00Z`), startDateLocal: `2024-03-0${day}T09:00:00` })
      const a = yield* seedActivity({ ...at(1), name: "alpe", sportType: "Ride", distanceInMeter: 50_000, movingTimeInSeconds: 7200, elevationInMeter: 900, averageSpeedInKmPerHour: 25 })
      const b = yield* seedActivity({ ...at(2), name: "Bruges", sportType: "Run", distanceInMeter: 10_000, movingTimeInSeconds: 3000, elevationInMeter: 20, averageSpeedInKmPerHour: 12 })
      const c = yield* seedActivity({ ...at(3), name: "col", sportType: "Ride", distanceInMeter: 80_000, movingTimeInSeconds: 10_800, elevationInMeter: 900, averageSpeedInKmPerHour: 26.7 })
      const d = yield* seedActivity({ ...at(4), name: "Dunes", sportType: "Walk", distanceInMeter: 4_000, movingTimeInSeconds: 3600, elevationInMeter: 5, averageSpeedInKmPerHour: 4 })
      const ids = (query: string) =>
        Effect.map(send("GET", `/api/v1/activities?${query}`), (answer) => {
          expect(answer.status, JSON.stringify(answer.json)).toBe(200)
          return answer.json.activities.map((x: { id: string }) => x.id)
        })
      expect(yield* ids("")).toEqual([d, c, b, a])
      expect(yield* ids("sort=-startDateLocal")).toEqual([d, c, b, a])
      expect(yield* ids("sort=startDateLocal")).toEqual([a, b, c, d])
      // names whatever their case
      expect(yield* ids("sort=name")).toEqual([a, b, c, d])
      expect(yield* ids("sort=-name")).toEqual([d, c, b, a])
      expect(yield* ids("sort=-distanceInMeter")).toEqual([c, a, b, d])
      expect(yield* ids("sort=distanceInMeter")).toEqual([d, b, a, c])
      expect(yield* ids("sort=-movingTimeInSeconds")).toEqual([c, a, d, b])
      // a tie (900 m each): the later start first when descending, the earlier when ascending
      expect(yield* ids("sort=-elevationInMeter")).toEqual([c, a, b, d])
      expect(yield* ids("sort=elevationInMeter")).toEqual([d, b, a, c])
      expect(yield* ids("sort=-averageSpeedInKmPerHour")).toEqual([c, a, b, d])
      expect(yield* ids("sort=sportType")).toEqual([a, c, b, d])
      expect(yield* ids("sort=-sportType")).toEqual([d, b, c, a])
      // with filters and pages
      expect(yield* ids("sort=-distanceInMeter&filters[sportType]=Ride,Walk")).toEqual([c, a, d])
      expect(yield* ids("sort=-distanceInMeter&filters[from]=2024-03-02&pagination[size]=1&pagination[page]=2")).toEqual([b])
    }))

  it.effect("an unknown order is a 400 naming the parameter and the orders", () =>
    Effect.gen(function*() {
      for (const sort of ["distance", "--name", "-", "images"]) {
        const answer = yield* send("GET", `/api/v1/activities?sort=${encodeURIComponent(sort)}`)
        expectError(answer, 400, "bad_request")
        expect(answer.json.message).toContain('"sort"')
        expect(answer.json.message).toContain("distanceInMeter")
      }
    }))
})
