import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Gear } from "../../schema/ApiModels.ts"

/** Gear, with distance and activity count derived from the linked activities. */
export class GearRepo extends Effect.Service<GearRepo>()("services/activities/GearRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const list = Effect.fn("GearRepo.list")(function*() {
      const rows = yield* sql<{ id: string; name: string; type: string; is_retired: number; distance: number; activities: number }>`
        SELECT g.id, g.name, g.type, g.is_retired, COALESCE(SUM(a.distance), 0) AS distance, COUNT(a.id) AS activities
        FROM gear g LEFT JOIN activities a ON a.gear_id = g.id
        GROUP BY g.id ORDER BY g.is_retired ASC, distance DESC, g.name ASC`
      return rows.map((r): Gear => ({
        id: r.id,
        name: r.name,
        type: r.type as Gear["type"],
        isRetired: r.is_retired === 1,
        distanceInMeter: Math.trunc(r.distance),
        numberOfActivities: r.activities
      }))
    }, Effect.orDie)

    const exists = Effect.fn("GearRepo.exists")(function*(id: string) {
      return (yield* sql`SELECT 1 FROM gear WHERE id = ${id}`).length > 0
    }, Effect.orDie)

    const upsert = Effect.fn("GearRepo.upsert")(function*(gear: { readonly id: string; readonly name: string; readonly type: Gear["type"]; readonly isRetired: boolean }) {
      yield* sql`INSERT INTO gear (id, name, type, is_retired, created_at)
        VALUES (${gear.id}, ${gear.name}, ${gear.type}, ${gear.isRetired ? 1 : 0}, ${Date.now()})
        ON CONFLICT(id) DO UPDATE SET name = excluded.name, is_retired = excluded.is_retired`
    }, Effect.orDie)

    return { list, exists, upsert } as const
  })
}) {}
