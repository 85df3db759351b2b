import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { seedActivity, seedGear, send, TestDaemon } from "../support/TestDaemon.ts"

layer(TestDaemon.layer(), { excludeTestServices: true })("GET /api/v1/gear", (it) => {
  it.effect("an empty list before any gear exists", () =>
    Effect.gen(function*() {
      const answer = yield* send("GET", "/api/v1/gear")
      expect(answer.status).toBe(200)
      expect(answer.json).toEqual({ gear: [] })
    }))

  it.effect("active gear first, then by distance; distance and count come from the linked activities", () =>
    Effect.gen(function*() {
      const retired = yield* seedGear({ id: "gear-b1", name: "Old bike", type: "imported", isRetired: true })
      const short = yield* seedGear({ name: "Shoes" })
      const long = yield* seedGear({ name: "Bike" })
      yield* seedActivity({ gearId: retired, distanceInMeter: 99_999 })
      yield* seedActivity({ gearId: short, distanceInMeter: 1_000.9 })
      yield* seedActivity({ gearId: long, distanceInMeter: 5_000 })
      yield* seedActivity({ gearId: long, distanceInMeter: 6_000 })
      yield* seedActivity({ gearId: null })
      const answer = yield* send("GET", "/api/v1/gear")
      expect(answer.json.gear).toEqual([
        { id: long, name: "Bike", type: "custom", isRetired: false, distanceInMeter: 11_000, numberOfActivities: 2 },
        { id: short, name: "Shoes", type: "custom", isRetired: false, distanceInMeter: 1_000, numberOfActivities: 1 },
        { id: "gear-b1", name: "Old bike", type: "imported", isRetired: true, distanceInMeter: 99_999, numberOfActivities: 1 }
      ])
    }))
})
