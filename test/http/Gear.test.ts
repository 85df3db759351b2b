import { expect, layer } from "@effect/vitest"
import * as HttpBody from "@effect/platform/HttpBody"
import { Effect } from "effect"
import { seedActivity, seedGear, send, TestDaemon } from "../support/TestDaemon.ts"
import { GearRepo } from "../../src/services/activities/GearRepo.ts"
import { expectError } from "./helpers.ts"

/** Custom gear, and gear no export described: no brand, model or kind. */
const unknownMake = { brand: null, model: null, kind: null }

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
        { id: long, name: "Bike", type: "custom", isRetired: false, distanceInMeter: 11_000, numberOfActivities: 2, ...unknownMake },
        { id: short, name: "Shoes", type: "custom", isRetired: false, distanceInMeter: 1_000, numberOfActivities: 1, ...unknownMake },
        { id: "gear-b1", name: "Old bike", type: "imported", isRetired: true, distanceInMeter: 99_999, numberOfActivities: 1, ...unknownMake }
      ])
    }))
})

layer(TestDaemon.layer(), { excludeTestServices: true })("a gear's make and use: GET /api/v1/gear/{gearId}, filters[gearId]", (it) => {
  it.effect("imported gear shows the brand, model and kind its export gave; every documented field stays", () =>
    Effect.gen(function*() {
      const gear = yield* GearRepo
      yield* gear.upsert({ id: "gear-domane", name: "Domane", type: "imported", isRetired: false, brand: "Trek", model: "Domane SL6", kind: "bike" })
      // a later export naming it alone keeps what the first said
      yield* gear.upsert({ id: "gear-domane", name: "Domane", type: "imported", isRetired: false })
      const listed = (yield* send("GET", "/api/v1/gear")).json.gear.find((g: any) => g.id === "gear-domane")
      expect(listed).toEqual({
        id: "gear-domane", name: "Domane", type: "imported", isRetired: false, distanceInMeter: 0, numberOfActivities: 0,
        brand: "Trek", model: "Domane SL6", kind: "bike"
      })
    }))

  it.effect("GET one gear answers its totals and its distance month by month, oldest first; its activities are the list's filters[gearId]", () =>
    Effect.gen(function*() {
      const id = yield* seedGear({ name: "Pegasus" })
      const april = yield* seedActivity({ gearId: id, distanceInMeter: 5_000, startDateLocal: "2024-04-03T08:00:00", startTime: Date.parse("2024-04-03T06:00:00Z") })
      const mayFirst = yield* seedActivity({ gearId: id, distanceInMeter: 10_000, startDateLocal: "2024-05-01T08:00:00", startTime: Date.parse("2024-05-01T06:00:00Z") })
      const maySecond = yield* seedActivity({ gearId: id, distanceInMeter: 2_500.7, startDateLocal: "2024-05-20T08:00:00", startTime: Date.parse("2024-05-20T06:00:00Z") })
      yield* seedActivity({ gearId: null, distanceInMeter: 42_000, startDateLocal: "2024-05-02T08:00:00", startTime: Date.parse("2024-05-02T06:00:00Z") })
      const answer = yield* send("GET", `/api/v1/gear/${id}`)
      expect(answer.status).toBe(200)
      expect(answer.json).toEqual({
        id, name: "Pegasus", type: "custom", isRetired: false, distanceInMeter: 17_500, numberOfActivities: 3, ...unknownMake,
        months: [
          { month: "2024-04", distanceInMeter: 5_000, numberOfActivities: 1 },
          { month: "2024-05", distanceInMeter: 12_500, numberOfActivities: 2 }
        ]
      })
      const used = yield* send("GET", `/api/v1/activities?filters[gearId]=${id}`)
      expect(used.json.activities.map((a: any) => a.id)).toEqual([maySecond, mayFirst, april])
      expect(used.json.pagination.total).toBe(3)
      expect((yield* send("GET", "/api/v1/activities?filters[gearId]=gear-none")).json.activities).toEqual([])
      expectError(yield* send("GET", "/api/v1/gear/gear-none"), 404, "not_found")
      expectError(yield* send("GET", `/api/v1/gear/${id}`, { key: null }), 401, "invalid_token")
    }))
})

layer(TestDaemon.layer(), { excludeTestServices: true })("custom gear: POST, PATCH, DELETE /api/v1/gear", (it) => {
  it.effect("POST creates custom gear (201), trimmed, active unless said otherwise; the list shows it", () =>
    Effect.gen(function*() {
      const created = yield* send("POST", "/api/v1/gear", { json: { name: "  Trail shoes " } })
      expect(created.status).toBe(201)
      expect(created.json).toEqual({ id: expect.stringMatching(/^gear-/), name: "Trail shoes", type: "custom", isRetired: false, distanceInMeter: 0, numberOfActivities: 0, ...unknownMake })
      const retired = yield* send("POST", "/api/v1/gear", { json: { name: "Old shoes", isRetired: true } })
      expect(retired.json.isRetired).toBe(true)
      const list = (yield* send("GET", "/api/v1/gear")).json.gear
      expect(list.map((g: any) => g.id)).toEqual(expect.arrayContaining([created.json.id, retired.json.id]))
    }))

  it.effect("POST refuses a missing, empty or too long name, an unknown field and a body that is not JSON", () =>
    Effect.gen(function*() {
      for (const json of [{}, { name: "   " }, { name: "x".repeat(256) }, { name: 5 }, { name: "Bike", colour: "red" }, { name: "Bike", isRetired: "yes" }]) {
        expectError(yield* send("POST", "/api/v1/gear", { json }), 400, "bad_request")
      }
      expectError(yield* send("POST", "/api/v1/gear", { body: HttpBody.text("name=Bike", "text/plain") }), 415, "unsupported_media_type")
      expectError(yield* send("POST", "/api/v1/gear", { key: null, json: { name: "Bike" } }), 401, "invalid_token")
    }))

  it.effect("PATCH renames and retires custom gear; its distance and count follow the activities that use it", () =>
    Effect.gen(function*() {
      const id = (yield* send("POST", "/api/v1/gear", { json: { name: "Bike" } })).json.id
      const ride = yield* seedActivity({ distanceInMeter: 12_000 })
      expect((yield* send("PATCH", `/api/v1/activities/${ride}`, { json: { gearId: id } })).status).toBe(200)
      const renamed = yield* send("PATCH", `/api/v1/gear/${id}`, { json: { name: "Road bike" } })
      expect(renamed.json).toEqual({ id, name: "Road bike", type: "custom", isRetired: false, distanceInMeter: 12_000, numberOfActivities: 1, ...unknownMake })
      const retired = yield* send("PATCH", `/api/v1/gear/${id}`, { json: { isRetired: true } })
      expect(retired.json).toMatchObject({ name: "Road bike", isRetired: true })
      expectError(yield* send("PATCH", `/api/v1/gear/${id}`, { json: {} }), 400, "bad_request")
      expectError(yield* send("PATCH", "/api/v1/gear/gear-nope", { json: { name: "X" } }), 404, "not_found")
    }))

  it.effect("imported gear can be retired, not renamed nor deleted (409 gear_is_imported)", () =>
    Effect.gen(function*() {
      const id = yield* seedGear({ id: "gear-b123", name: "Strava bike", type: "imported" })
      expectError(yield* send("PATCH", `/api/v1/gear/${id}`, { json: { name: "Mine" } }), 409, "gear_is_imported")
      expectError(yield* send("DELETE", `/api/v1/gear/${id}`), 409, "gear_is_imported")
      const retired = yield* send("PATCH", `/api/v1/gear/${id}`, { json: { name: "Strava bike", isRetired: true } })
      expect(retired.json).toMatchObject({ id, name: "Strava bike", type: "imported", isRetired: true })
    }))

  it.effect("imported gear retired here stays retired when the next import lists it in use, and takes its new name", () =>
    Effect.gen(function*() {
      const id = yield* seedGear({ id: "gear-b456", name: "Gravel bike", type: "imported" })
      expect((yield* send("PATCH", `/api/v1/gear/${id}`, { json: { isRetired: true } })).status).toBe(200)
      // what an import does with the gear it names (Strava's athlete gear, an export's activities.csv)
      yield* seedGear({ id, name: "Gravel bike 2", type: "imported", isRetired: false })
      expect((yield* send("GET", "/api/v1/gear")).json.gear.find((g: any) => g.id === id)).toMatchObject({ name: "Gravel bike 2", isRetired: true })
      // gear retired at its source is retired here too
      const other = yield* seedGear({ id: "gear-b789", name: "Road bike", type: "imported" })
      yield* seedGear({ id: other, name: "Road bike", type: "imported", isRetired: true })
      expect((yield* send("GET", "/api/v1/gear")).json.gear.find((g: any) => g.id === other)).toMatchObject({ isRetired: true })
    }))

  it.effect("DELETE removes custom gear (204); the activities that used it keep no gear", () =>
    Effect.gen(function*() {
      const id = (yield* send("POST", "/api/v1/gear", { json: { name: "Shoes" } })).json.id
      const run = yield* seedActivity({ sportType: "Run", gearId: id })
      const deleted = yield* send("DELETE", `/api/v1/gear/${id}`)
      expect(deleted.status).toBe(204)
      expect(deleted.text).toBe("")
      expect((yield* send("GET", `/api/v1/activities/${run}`)).json.gearId ?? null).toBeNull()
      expect((yield* send("GET", "/api/v1/gear")).json.gear.find((g: any) => g.id === id)).toBeUndefined()
      expectError(yield* send("DELETE", `/api/v1/gear/${id}`), 404, "not_found")
    }))
})

layer(TestDaemon.layer({ env: { IMPORT_MODE: "externalApi" } }), { excludeTestServices: true })("custom gear with IMPORT_MODE=externalApi", (it) => {
  it.effect("is created, changed and deleted as in file mode: gear is not an activity write", () =>
    Effect.gen(function*() {
      const created = yield* send("POST", "/api/v1/gear", { json: { name: "Shoes" } })
      expect(created.status).toBe(201)
      expect((yield* send("PATCH", `/api/v1/gear/${created.json.id}`, { json: { isRetired: true } })).status).toBe(200)
      expect((yield* send("DELETE", `/api/v1/gear/${created.json.id}`)).status).toBe(204)
    }))
})
