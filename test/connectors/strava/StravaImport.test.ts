import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import { ActivityRepo } from "../../../src/services/activities/ActivityRepo.ts"
import { GearRepo } from "../../../src/services/activities/GearRepo.ts"
import { StravaImport } from "../../../src/connectors/strava/StravaImport.ts"
import { wallTime, workoutTypeOf } from "../../../src/connectors/strava/StravaMapping.ts"
import { DEFAULT_GEAR_ID } from "../../fakes/FakeStrava.ts"
import { channel, withHarness } from "./harness.ts"
import { middayClock } from "../../support/middayClock.ts"

const count = (table: string, activityId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql.unsafe<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE activity_id = ?`, [activityId])
    return rows[0]!.n
  }).pipe(Effect.orDie)

describe("StravaMapping", () => {
  it("maps workout types and local wall time", () => {
    assert.strictEqual(workoutTypeOf(1), "race")
    assert.strictEqual(workoutTypeOf(11), "race")
    assert.strictEqual(workoutTypeOf(3), "workout")
    assert.strictEqual(workoutTypeOf(12), "workout")
    assert.strictEqual(workoutTypeOf(2), "longRun")
    assert.strictEqual(workoutTypeOf(10), null)
    assert.strictEqual(workoutTypeOf(undefined), null)
    assert.strictEqual(wallTime("2024-06-01T10:11:12Z"), "2024-06-01T10:11:12")
  })
})

describe("StravaImport", () => {
  it.live("a first full import stores activities, streams, laps, splits, best efforts, gear and photos", () =>
    withHarness((h) =>
      Effect.gen(function*() {
        const ride = h.fake.addActivity({}, { photos: 2 })
        const zwift = h.fake.addActivity({
          sport_type: "VirtualRide",
          type: "VirtualRide",
          device_name: "Zwift",
          workout_type: 11,
          start_date: "2024-05-01T18:00:00Z",
          gear_id: null,
          total_photo_count: 0
        }, { photos: 0 })
        const strava = yield* StravaImport
        const report = yield* strava.run({ full: true })
        assert.strictEqual(report.outcome, "completed")
        assert.strictEqual(report.imported, 2)
        assert.strictEqual(report.photos, 2)

        const repo = yield* ActivityRepo
        const stored = yield* repo.findById(`activity-${ride.id}`)
        assert.isNotNull(stored)
        assert.strictEqual(stored!.importSource, "stravaApi")
        assert.strictEqual(stored!.sportType, "Ride")
        assert.strictEqual(stored!.startDateLocal, ride.start_date_local.slice(0, 19))
        assert.strictEqual(stored!.gearId, `gear-${DEFAULT_GEAR_ID}`)
        assert.strictEqual(stored!.distanceInMeter, Math.trunc(ride.distance))
        assert.strictEqual(stored!.location.countryCode, "be")
        assert.deepStrictEqual(stored!.passedThroughCountries, ["be"])
        assert.strictEqual(stored!.workoutType, null)
        assert.strictEqual(stored!.worldType, "realWorld")
        assert.isTrue(stored!.hasGpx)
        assert.strictEqual(stored!.images.length, 2)
        assert.strictEqual(fs.readdirSync(h.imagesDir).filter((f) => f.endsWith(".jpg")).length, 2)

        const track = yield* repo.track(`activity-${ride.id}`)
        assert.strictEqual(track!.streams!.time!.length, 1801)
        for (const key of ["latlng", "distance", "altitude", "velocity_smooth", "heartrate", "cadence", "watts", "temp", "moving"]) {
          assert.isDefined((track!.streams as any)[key], key)
        }
        assert.strictEqual(yield* count("activity_laps", `activity-${ride.id}`), 1)
        const sql = yield* SqlClient.SqlClient
        const splits = yield* sql<{ unit: string; n: number }>`SELECT unit, COUNT(*) AS n FROM activity_splits
          WHERE activity_id = ${`activity-${ride.id}`} GROUP BY unit ORDER BY unit`.pipe(Effect.orDie)
        assert.deepStrictEqual(splits.map((s) => s.unit), ["imperial", "metric"])
        assert.isAbove(yield* count("activity_best_efforts", `activity-${ride.id}`), 0)

        const virtual = yield* repo.findById(`activity-${zwift.id}`)
        assert.strictEqual(virtual!.worldType, "zwift")
        assert.strictEqual(virtual!.workoutType, "race")
        assert.strictEqual(virtual!.gearId, null)
        assert.strictEqual(virtual!.location.countryCode, null)

        const gear = yield* (yield* GearRepo).list()
        assert.deepStrictEqual(gear.map((g) => [g.id, g.type, g.name]), [[`gear-${DEFAULT_GEAR_ID}`, "imported", "Canyon Endurace"]])

        const daemon = channel(h.logs, "daemon").map((l) => l.message)
        assert.isTrue(daemon.some((m) => m.startsWith("Strava full import finished: 2 imported")), daemon.join("\n"))

        // a second run fetches no detail again and downloads no photo twice
        const detailCalls = h.fake.apiRequests.filter((r) => /^\/api\/v3\/activities\/\d+$/.test(r.path)).length
        const again = yield* strava.run({ full: true })
        assert.strictEqual(again.outcome, "completed")
        assert.strictEqual(again.imported, 0)
        assert.strictEqual(h.fake.apiRequests.filter((r) => /^\/api\/v3\/activities\/\d+$/.test(r.path)).length, detailCalls)
        // a partial re-import replaces the activity and keeps its images without downloading them again
        h.fake.updateActivity(ride.id, { name: "Renamed ride" })
        const partial = yield* strava.run({ full: false, ids: [ride.id] })
        assert.strictEqual(partial.updated, 1)
        assert.strictEqual(partial.photos, 0)
        const renamed = yield* repo.findById(`activity-${ride.id}`)
        assert.strictEqual(renamed!.name, "Renamed ride")
        assert.strictEqual(renamed!.images.length, 2)
      })
    ))

  it.live("a full run deletes activities no longer listed, but never all of them", () =>
    withHarness((h) =>
      Effect.gen(function*() {
        const [a, b, c] = [h.fake.addActivity({}, { photos: 1 }), h.fake.addActivity({}, { photos: 0 }), h.fake.addActivity({}, { photos: 0 })]
        const strava = yield* StravaImport
        const repo = yield* ActivityRepo
        yield* strava.run({ full: true })
        h.fake.removeActivity(a!.id)
        const report = yield* strava.run({ full: true })
        assert.strictEqual(report.deleted, 1)
        assert.isNull(yield* repo.findById(`activity-${a!.id}`))
        assert.strictEqual(fs.readdirSync(h.imagesDir).filter((f) => f.endsWith(".jpg")).length, 0)

        h.fake.removeActivity(b!.id)
        h.fake.removeActivity(c!.id)
        const none = yield* strava.run({ full: true })
        assert.strictEqual(none.outcome, "completed")
        assert.strictEqual(none.deleted, 0)
        assert.isNotNull(yield* repo.findById(`activity-${b!.id}`))
        assert.isNotNull(yield* repo.findById(`activity-${c!.id}`))
        assert.isTrue(channel(h.logs, "daemon").some((l) => l.level === "WARN" && l.message.includes("deleting nothing")))
      })
    ))

  it.live("a 429 ends the run cleanly with a logged reason; the next run waits for the window", () =>
    withHarness((h) =>
      Effect.gen(function*() {
        h.fake.addActivity({}, { photos: 0 })
        h.fake.rateLimitNext(1)
        const strava = yield* StravaImport
        const report = yield* strava.run({ full: true })
        assert.strictEqual(report.outcome, "rateLimited")
        assert.include(report.message, "rate limit")
        const line = channel(h.logs, "daemon").find((l) => l.level === "WARN" && l.message.includes("stopped"))
        assert.isDefined(line)
        assert.include(line!.message, "15-minute rate limit reached")
        assert.strictEqual((yield* strava.status)._tag, "Ready")
        // the 429 showed the 15-minute window spent: the next run waits for the next window
        const next = yield* strava.run({ full: true }).pipe(Effect.timeout("1 second"), Effect.either)
        assert.strictEqual(next._tag, "Left")
        assert.isTrue(channel(h.logs, "strava-api").some((l) => l.message.startsWith("Strava 15-minute rate limit reached: waiting")))
      })
    ))

  it.live("a spent daily read budget stops the run before the next call", () =>
    withHarness((h) =>
      Effect.gen(function*() {
        h.fake.addActivity({}, { photos: 0 })
        h.fake.setUsage({ readDaily: 998 })
        const strava = yield* StravaImport
        const report = yield* strava.run({ full: true })
        assert.strictEqual(report.outcome, "rateLimited")
        assert.include(report.message, "daily rate limit")
      })
    ).pipe(Effect.withClock(middayClock())))

  it.live("401 and 403 Inactive become a logged Blocked state, cleared by a successful run", () =>
    withHarness((h) =>
      Effect.gen(function*() {
        h.fake.addActivity({}, { photos: 0 })
        const strava = yield* StravaImport
        h.fake.setFailure("unauthorized")
        const refused = yield* strava.run({ full: true })
        assert.strictEqual(refused.outcome, "blocked")
        const status = yield* strava.status
        assert.strictEqual(status._tag === "Blocked" ? status.reason : null, "Unauthorized")
        assert.isTrue(channel(h.logs, "daemon").some((l) => l.level === "ERROR" && l.message.includes("401")))

        h.fake.setFailure("inactive")
        const inactive = yield* strava.run({ full: true })
        assert.strictEqual(inactive.outcome, "blocked")
        const status2 = yield* strava.status
        assert.strictEqual(status2._tag === "Blocked" ? status2.reason : null, "Inactive")
        assert.isTrue(channel(h.logs, "daemon").some((l) => l.level === "ERROR" && l.message.includes("Inactive")))

        h.fake.setFailure("none")
        const ok = yield* strava.run({ full: true })
        assert.strictEqual(ok.outcome, "completed")
        assert.strictEqual((yield* strava.status)._tag, "Ready")
      })
    ))

  it.live("runs never overlap: the lock is held during a run", () =>
    withHarness(() =>
      Effect.gen(function*() {
        const strava = yield* StravaImport
        const inner = yield* strava.withLock(strava.tryWithLock(Effect.succeed(1)))
        assert.strictEqual(inner._tag, "None")
        const free = yield* strava.tryWithLock(Effect.succeed(1))
        assert.strictEqual(free._tag, "Some")
      })
    ))
})

