import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { seedActivity, seedGear, send, TestDaemon } from "../support/TestDaemon.ts"
import { addDays } from "../support/yearReference.ts"
import { expectError } from "./helpers.ts"

/**
 * Gear maintenance over a real socket: components with their intervals, their use summed from
 * the activities that carry the gear since the install or the last service, what is due
 * (negative when overdue), service records, and every refusal in the error shape.
 */

const today = () => new Date().toISOString().slice(0, 10)

/** An activity on `date` (local, UTC in these tests) carrying `gearId`. */
const ride = (date: string, gearId: string | null, distanceInMeter: number, movingTimeInSeconds = 3600) =>
  seedActivity({ sportType: "Ride", gearId, distanceInMeter, movingTimeInSeconds, startTime: Date.parse(`${date}T08:00:00Z`), startDateLocal: `${date}T08:00:00` })

const componentsOf = (gearId: string) => `/api/v1/gear/${gearId}/components`

const create = (gearId: string, body: unknown) => send("POST", componentsOf(gearId), { json: body })

layer(TestDaemon.layer(), { excludeTestServices: true })("gear components", (it) => {
  it.effect("a component counts the use of the activities carrying its gear from its install date, and says what is due", () =>
    Effect.gen(function*() {
      const bike = yield* seedGear({ name: "Road bike" })
      const installedOn = addDays(today(), -40)
      yield* ride(addDays(today(), -60), bike, 50_000)   // before the install
      const a = yield* ride(addDays(today(), -30), bike, 1_200_000, 40 * 3600)
      yield* ride(addDays(today(), -20), bike, 900_000, 30 * 3600)
      yield* ride(addDays(today(), -10), null, 70_000)     // no gear
      const answer = yield* create(bike, { name: " Chain ", installedOn, intervalInMeter: 3_000_000, intervalInSeconds: 60 * 3600, intervalInDays: 30 })
      expect(answer.status).toBe(201)
      const chain = answer.json
      expect(chain).toEqual({
        id: expect.stringMatching(/^gearComponent-/),
        gearId: bike,
        name: "Chain",
        installedOn,
        intervalInMeter: 3_000_000,
        intervalInSeconds: 216_000,
        intervalInDays: 30,
        lastServiceOn: null,
        services: [],
        use: { since: installedOn, activities: 2, distanceInMeter: 2_100_000, movingTimeInSeconds: 70 * 3600, days: 40 },
        dueInMeter: 900_000,
        dueInSeconds: -10 * 3600,
        dueInDays: -10,
        dueOn: addDays(installedOn, 30),
        status: "overdue"
      })
      expect((yield* send("GET", `${componentsOf(bike)}/${chain.id}`)).json).toEqual(chain)
      expect((yield* send("GET", componentsOf(bike))).json).toEqual({ components: [chain] })

      // giving an activity other gear moves its distance
      const other = yield* seedGear({ name: "Gravel bike" })
      const tyres = (yield* create(other, { name: "Tyres", installedOn, intervalInMeter: 4_000_000 })).json
      expect(tyres.use.distanceInMeter).toBe(0)
      expect(tyres.status).toBe("ok")
      expect((yield* send("PATCH", `/api/v1/activities/${a}`, { json: { gearId: other } })).status).toBe(200)
      expect((yield* send("GET", `${componentsOf(bike)}/${chain.id}`)).json.use).toMatchObject({ activities: 1, distanceInMeter: 900_000 })
      const moved = (yield* send("GET", `${componentsOf(other)}/${tyres.id}`)).json
      expect(moved).toMatchObject({ use: { activities: 1, distanceInMeter: 1_200_000 }, dueInMeter: 2_800_000, status: "ok" })
      // within a tenth of its interval: due soon
      yield* ride(addDays(today(), -5), other, 2_500_000)
      expect((yield* send("GET", `${componentsOf(other)}/${tyres.id}`)).json).toMatchObject({ dueInMeter: 300_000, status: "dueSoon" })
      // an activity deleted no longer counts
      expect((yield* send("DELETE", `/api/v1/activities/${a}`)).status).toBe(204)
      expect((yield* send("GET", `${componentsOf(other)}/${tyres.id}`)).json.use.distanceInMeter).toBe(2_500_000)
    }))

  it.effect("a service today or on a date counts the use again from that day; services are listed newest first", () =>
    Effect.gen(function*() {
      const bike = yield* seedGear({ name: "Commuter" })
      yield* ride(addDays(today(), -50), bike, 100_000)
      yield* ride(addDays(today(), -15), bike, 30_000)
      yield* ride(today(), bike, 10_000)
      const chain = (yield* create(bike, { name: "Chain", installedOn: addDays(today(), -60), intervalInMeter: 100_000, intervalInDays: 90 })).json
      expect(chain).toMatchObject({ use: { distanceInMeter: 140_000, activities: 3 }, dueInMeter: -40_000, dueInDays: 30, status: "overdue" })

      const onDate = yield* send("POST", `${componentsOf(bike)}/${chain.id}/service`, { json: { on: addDays(today(), -20), note: " new chain " } })
      expect(onDate.status).toBe(201)
      expect(onDate.json).toMatchObject({
        lastServiceOn: addDays(today(), -20),
        services: [{ id: expect.stringMatching(/^gearComponentService-/), on: addDays(today(), -20), note: "new chain" }],
        use: { since: addDays(today(), -20), activities: 2, distanceInMeter: 40_000, days: 20 },
        dueInMeter: 60_000,
        dueInDays: 70,
        dueOn: addDays(today(), 70),
        status: "ok"
      })
      // no body at all: done today (today's ride counts from today on)
      const done = yield* send("POST", `${componentsOf(bike)}/${chain.id}/service`)
      expect(done.status).toBe(201)
      expect(done.json.services.map((s: any) => [s.on, s.note])).toEqual([[today(), null], [addDays(today(), -20), "new chain"]])
      expect(done.json).toMatchObject({ lastServiceOn: today(), use: { since: today(), activities: 1, distanceInMeter: 10_000, days: 0 }, dueInDays: 90 })
      // an empty JSON object too
      expect((yield* send("POST", `${componentsOf(bike)}/${chain.id}/service`, { json: {} })).status).toBe(201)

      expectError(yield* send("POST", `${componentsOf(bike)}/${chain.id}/service`, { json: { on: addDays(today(), 1) } }), 400, "bad_request")
      expectError(yield* send("POST", `${componentsOf(bike)}/${chain.id}/service`, { json: { on: addDays(today(), -61) } }), 400, "bad_request")
      expectError(yield* send("POST", `${componentsOf(bike)}/${chain.id}/service`, { json: { on: "2024-02-30" } }), 400, "bad_request")
      expectError(yield* send("POST", `${componentsOf(bike)}/${chain.id}/service`, { json: { when: "today" } }), 400, "bad_request")
      expectError(
        yield* send("POST", `${componentsOf(bike)}/${chain.id}/service`, { headers: { "content-type": "text/plain" } }),
        415,
        "unsupported_media_type"
      )
    }))

  it.effect("changes, clears an interval but never the last one, and deletes a component with its services", () =>
    Effect.gen(function*() {
      const shoes = yield* seedGear({ name: "Trail shoes", type: "imported" })
      const pair = (yield* create(shoes, { name: "Soles", intervalInMeter: 800_000, intervalInDays: 365 })).json
      expect(pair.installedOn).toBe(today())
      const path = `${componentsOf(shoes)}/${pair.id}`
      const changed = yield* send("PATCH", path, { json: { name: "Outsoles", intervalInDays: null, installedOn: addDays(today(), -3) } })
      expect(changed.status).toBe(200)
      expect(changed.json).toMatchObject({ name: "Outsoles", intervalInMeter: 800_000, intervalInDays: null, dueInDays: null, dueOn: null, installedOn: addDays(today(), -3) })
      expectError(yield* send("PATCH", path, { json: { intervalInMeter: null } }), 400, "bad_request")
      expect((yield* send("PATCH", path, { json: { intervalInMeter: null } })).json.message).toContain("at least one maintenance interval")
      expectError(yield* send("PATCH", path, { json: { installedOn: addDays(today(), 2) } }), 400, "bad_request")
      expectError(yield* send("PATCH", path, { json: {} }), 400, "bad_request")
      expectError(yield* send("PATCH", path, { json: { intervalInMeter: 0 } }), 400, "bad_request")
      expectError(yield* send("PATCH", path, { json: { intervalInMeter: 1.5 } }), 400, "bad_request")
      expectError(yield* send("PATCH", path, { json: { name: "" } }), 400, "bad_request")
      expect((yield* send("POST", `${path}/service`)).status).toBe(201)

      expect((yield* send("DELETE", path)).status).toBe(204)
      expectError(yield* send("GET", path), 404, "not_found")
      expectError(yield* send("DELETE", path), 404, "not_found")
      expect((yield* send("GET", componentsOf(shoes))).json).toEqual({ components: [] })
    }))

  it.effect("refuses what is not a component: no interval, bad values, unknown gear or component, another gear's component", () =>
    Effect.gen(function*() {
      const bike = yield* seedGear({ name: "Bike" })
      const other = yield* seedGear({ name: "Other" })
      const part = (yield* create(bike, { name: "Cassette", intervalInSeconds: 100 * 3600 })).json
      for (const body of [
        { name: "Chain" },
        { intervalInMeter: 1000 },
        { name: "Chain", intervalInMeter: -1 },
        { name: "Chain", intervalInDays: 36_501 },
        { name: "Chain", intervalInMeter: "1000" },
        { name: "Chain", intervalInMeter: 1000, installedOn: addDays(today(), 1) },
        { name: "Chain", intervalInMeter: 1000, installedOn: "yesterday" },
        { name: "Chain", intervalInMeter: 1000, colour: "black" }
      ]) {
        expectError(yield* create(bike, body), 400, "bad_request")
      }
      expectError(yield* send("POST", componentsOf(bike), { headers: { "content-type": "text/plain" } }), 415, "unsupported_media_type")
      expectError(yield* create("gear-missing", { name: "Chain", intervalInMeter: 1000 }), 404, "not_found")
      expectError(yield* send("GET", componentsOf("gear-missing")), 404, "not_found")
      expectError(yield* send("GET", `${componentsOf(other)}/${part.id}`), 404, "not_found")
      expectError(yield* send("PATCH", `${componentsOf(other)}/${part.id}`, { json: { name: "x" } }), 404, "not_found")
      expectError(yield* send("POST", `${componentsOf(other)}/${part.id}/service`), 404, "not_found")
      expectError(yield* send("GET", `${componentsOf(bike)}/gearComponent-missing`), 404, "not_found")
      for (const [method, path] of [
        ["GET", componentsOf(bike)],
        ["POST", componentsOf(bike)],
        ["GET", `${componentsOf(bike)}/${part.id}`],
        ["PATCH", `${componentsOf(bike)}/${part.id}`],
        ["DELETE", `${componentsOf(bike)}/${part.id}`],
        ["POST", `${componentsOf(bike)}/${part.id}/service`]
      ] as const) {
        expectError(yield* send(method, path, { key: null }), 401, "invalid_token")
      }
      // custom gear deleted: its components go with it
      expect((yield* send("DELETE", `/api/v1/gear/${bike}`)).status).toBe(204)
      expectError(yield* send("GET", componentsOf(bike)), 404, "not_found")
    }))
})
