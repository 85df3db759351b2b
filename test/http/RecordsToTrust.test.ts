import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { dropFile, waitForRow } from "../support/ImportHarness.ts"
import { seedActivity, send, TestDaemon } from "../support/TestDaemon.ts"
import { expectError } from "./helpers.ts"

const at = (local: string, overrides: Parameters<typeof seedActivity>[0] = {}) =>
  seedActivity({ startTime: Date.parse(`${local}Z`), startDateLocal: local, ...overrides })

const fiveK = (seconds: number) => [{ distanceInMeter: 5000, elapsedTimeInSeconds: seconds, startOffsetInSeconds: 0 }]

layer(TestDaemon.layer(), { excludeTestServices: true })("records to trust", (it) => {
  it.effect("an activity excluded from records (PATCH excludeFromRecords) leaves the records, the milestones and the year in review at once, and comes back", () =>
    Effect.gen(function*() {
      const honest = yield* at("2023-04-01T08:00:00", { sportType: "Run", name: "Park run", bestEfforts: fiveK(1500) })
      const jumped = yield* at("2023-06-01T08:00:00", { sportType: "TrailRun", name: "Mountain run with a GPS jump", bestEfforts: fiveK(700) })
      const record = () => send("GET", "/api/v1/stats/records").pipe(Effect.map((a) => a.json.records.find((r: any) => r.discipline === "run" && r.name === "5 km")))
      const recordMilestones = () =>
        send("GET", "/api/v1/milestones").pipe(Effect.map((a) => a.json.milestones.filter((m: any) => m.kind === "record").map((m: any) => m.activityId)))
      const reviewed = () =>
        send("GET", "/api/v1/stats/year-in-review?filters[year]=2023").pipe(Effect.map((a) => a.json.records.map((r: any) => r.activityId)))

      expect(yield* record()).toMatchObject({ activityId: jumped, activityName: "Mountain run with a GPS jump", elapsedTimeInSeconds: 700 })
      expect(yield* recordMilestones()).toContain(jumped)
      expect(yield* reviewed()).toContain(jumped)

      const answer = yield* send("PATCH", `/api/v1/activities/${jumped}`, { json: { excludeFromRecords: true } })
      expect(answer.status).toBe(200)
      expect(answer.json).toMatchObject({ id: jumped, excludeFromRecords: true })
      expect(yield* record()).toMatchObject({ activityId: honest, activityName: "Park run", elapsedTimeInSeconds: 1500 })
      expect(yield* recordMilestones()).not.toContain(jumped)
      expect(yield* recordMilestones()).toContain(honest)
      expect(yield* reviewed()).not.toContain(jumped)
      // its own best efforts are still its own
      expect((yield* send("GET", `/api/v1/activities/${jumped}/best-efforts`)).json.bestEfforts).toHaveLength(1)

      yield* send("PATCH", `/api/v1/activities/${jumped}`, { json: { excludeFromRecords: false } })
      expect(yield* record()).toMatchObject({ activityId: jumped })
      expect(yield* recordMilestones()).toContain(jumped)

      expectError(yield* send("PATCH", `/api/v1/activities/${jumped}`, { json: { excludeFromRecords: "yes" } }), 400, "bad_request")
    }))

  it.effect("treadmill and virtual runs and rides keep records of their own, apart from the outdoor ones", () =>
    Effect.gen(function*() {
      yield* at("2024-03-01T08:00:00", { sportType: "Run", bestEfforts: fiveK(1400) })
      const treadmill = yield* at("2024-03-02T08:00:00", { sportType: "VirtualRun", bestEfforts: fiveK(1100) })
      const road = yield* at("2024-03-03T08:00:00", { sportType: "Ride", bestEfforts: [{ distanceInMeter: 10_000, elapsedTimeInSeconds: 1000, startOffsetInSeconds: 0 }] })
      const zwift = yield* at("2024-03-04T08:00:00", { sportType: "VirtualRide", bestEfforts: [{ distanceInMeter: 10_000, elapsedTimeInSeconds: 800, startOffsetInSeconds: 0 }] })
      const records = (yield* send("GET", "/api/v1/stats/records")).json.records
      const of = (discipline: string, name: string) => records.find((r: any) => r.discipline === discipline && r.name === name)?.activityId
      expect(of("run", "5 km")).not.toBe(treadmill)
      expect(of("virtualRun", "5 km")).toBe(treadmill)
      expect(of("ride", "10 km")).toBe(road)
      expect(of("virtualRide", "10 km")).toBe(zwift)
      const milestones = (yield* send("GET", "/api/v1/milestones")).json.milestones
      expect(milestones.find((m: any) => m.kind === "record" && m.activityId === treadmill).title).toBe("New 5 km virtual run record: 18:20")
    }))

  it.effect("a GPX without a type is imported as what it holds (power and cadence at 20 km/h: a ride); a change of sport computes its figures again in the answer", () =>
    Effect.gen(function*() {
      const daemon = yield* TestDaemon
      const start = Date.parse("2022-05-03T16:00:00Z")
      const points = Array.from({ length: 3600 }, (_, i) =>
        `<trkpt lat="46.05" lon="${(14.5 + (i * 20 / 3.6) / 77_300).toFixed(7)}"><time>${new Date(start + i * 1000).toISOString()}</time>` +
        `<extensions><power>200</power><cadence>88</cadence></extensions></trkpt>`
      ).join("")
      dropFile(daemon.watchDir, "untyped.gpx", `<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>${points}</trkseg></trk></gpx>`)
      const row = yield* waitForRow("untyped.gpx")
      expect(row.status).toBe("success")
      const id = row.activity_id as string
      expect((yield* send("GET", `/api/v1/activities/${id}`)).json.sportType).toBe("Ride")
      const names = () => send("GET", `/api/v1/activities/${id}/best-efforts`).pipe(Effect.map((a) => a.json.bestEfforts.map((e: any) => e.name)))
      expect(yield* names()).toContain("5 miles")
      const started = Date.now()
      const changed = yield* send("PATCH", `/api/v1/activities/${id}`, { json: { sportType: "Run" } })
      console.info(`[records to trust] PATCH sportType Ride -> Run of a 1-hour GPX answered in ${Date.now() - started} ms (figures computed again)`)
      expect(changed.json.sportType).toBe("Run")
      // a run's distances, from the kept original, in the PATCH's answer already
      expect(yield* names()).toContain("400 m")
      expect(yield* names()).not.toContain("5 miles")
    }))
})
