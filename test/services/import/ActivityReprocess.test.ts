import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { ActivityReprocess } from "../../../src/services/import/ActivityReprocess.ts"
import { daemonLayer, dayStart, dropFile, fitActivity, scopedRoot, servicesLayer, waitForRow } from "../../support/ImportHarness.ts"

describe("app:activities:reprocess", () => {
  it.scopedLive("computes an activity again from its kept original, keeping the user's edits, its import row and images", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      const id = yield* Effect.gen(function*() {
        dropFile(root.watchDir, "ride.fit", fitActivity({ start: dayStart(3), seconds: 1800 }))
        const row = yield* waitForRow("ride.fit")
        expect(row.status).toBe("success")
        return row.activity_id!
      }).pipe(Effect.provide(daemonLayer(root)), Effect.scoped)

      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const reprocess = yield* ActivityReprocess
        // the user's edits, and a computed value an older version got wrong
        yield* sql`INSERT INTO gear (id, name, type, created_at) VALUES ('gear-bike', 'Bike', 'custom', 0)`
        yield* sql`UPDATE activities SET name = 'My ride', description = 'hills', sport_type = 'GravelRide', gear_id = 'gear-bike', is_commute = 1,
          distance = 1, max_speed = 999, edited = '["name","sportType"]' WHERE id = ${id}`
        const before = (yield* sql<{ id: string }>`SELECT id FROM file_imports WHERE activity_id = ${id}`).map((r) => r.id)

        expect(yield* reprocess.allWithOriginals).toEqual([id])
        yield* reprocess.one(id)

        const [after] = yield* sql<{ distance: number; max_speed: number }>`
          SELECT name, description, sport_type, gear_id, is_commute, distance, max_speed, edited FROM activities WHERE id = ${id}`
        // which of them the athlete set by hand stays known (what a duplicate brings later never replaces them)
        expect(after).toMatchObject({ name: "My ride", description: "hills", sport_type: "GravelRide", gear_id: "gear-bike", is_commute: 1, edited: '["name","sportType"]' })
        expect(after!.distance).not.toBe(1)
        expect(after!.max_speed).toBeLessThan(999)
        expect((yield* sql<{ id: string }>`SELECT id FROM file_imports WHERE activity_id = ${id}`).map((r) => r.id)).toEqual(before)

        const missing = yield* Effect.flip(reprocess.one("activity-nope"))
        expect(missing.message).toMatch(/not found/)
      }).pipe(Effect.provide(ActivityReprocess.Default.pipe(Layer.provideMerge(servicesLayer(root)))))
    }), 60_000)
})
