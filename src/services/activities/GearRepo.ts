import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { createHash, randomUUID } from "node:crypto"
import type { Gear } from "../../schema/ApiModels.ts"

interface GearRow {
  readonly id: string
  readonly name: string
  readonly type: string
  readonly is_retired: number
  readonly distance: number
  readonly activities: number
  readonly brand: string | null
  readonly model: string | null
  readonly kind: string | null
}

/**
 * Every gear id is minted here, `gear-` and a key telling where the gear came from: custom gear
 * gets a fresh one; gear an export names (Strava's activities.csv, a peer's export) is keyed by
 * its name, so that every file and every export naming it finds the same gear; the external
 * platform's gear keeps the platform's own id.
 */
export const newGearId = () => `gear-${randomUUID()}`
export const exportedGearId = (name: string) => `gear-${createHash("sha256").update(name).digest("hex").slice(0, 16)}`
export const platformGearId = (platformId: string) => `gear-${platformId}`

/** Gear, with distance and activity count derived from the linked activities. */
export class GearRepo extends Effect.Service<GearRepo>()("services/activities/GearRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const toGear = (r: GearRow): Gear => ({
      id: r.id,
      name: r.name,
      type: r.type as Gear["type"],
      isRetired: r.is_retired === 1,
      distanceInMeter: Math.trunc(r.distance),
      numberOfActivities: r.activities,
      brand: r.brand,
      model: r.model,
      kind: r.kind === "bike" || r.kind === "shoes" || r.kind === "other" ? r.kind : null
    })

    const list = Effect.fn("GearRepo.list")(function*() {
      const rows = yield* sql<GearRow>`
        SELECT g.id, g.name, g.type, g.is_retired, g.brand, g.model, g.kind, COALESCE(SUM(a.distance), 0) AS distance, COUNT(a.id) AS activities
        FROM gear g LEFT JOIN activities a ON a.gear_id = g.id
        GROUP BY g.id ORDER BY g.is_retired ASC, distance DESC, g.name ASC`
      return rows.map(toGear)
    }, Effect.orDie)

    /** One gear with its distance and count, null when there is none of that id. */
    const findById = Effect.fn("GearRepo.findById")(function*(id: string) {
      const rows = yield* sql<GearRow>`
        SELECT g.id, g.name, g.type, g.is_retired, g.brand, g.model, g.kind, COALESCE(SUM(a.distance), 0) AS distance, COUNT(a.id) AS activities
        FROM gear g LEFT JOIN activities a ON a.gear_id = g.id WHERE g.id = ${id} GROUP BY g.id`
      return rows.length === 0 ? null : toGear(rows[0]!)
    }, Effect.orDie)

    /** The months gear `id` was used in, oldest first, with the distance and count of its activities each (by their local start). */
    const months = Effect.fn("GearRepo.months")(function*(id: string) {
      const rows = yield* sql<{ month: string; distance: number; activities: number }>`
        SELECT substr(start_date_local, 1, 7) AS month, SUM(distance) AS distance, COUNT(*) AS activities
        FROM activities WHERE gear_id = ${id} GROUP BY month ORDER BY month`
      return rows.map((r) => ({ month: r.month, distanceInMeter: Math.trunc(r.distance), numberOfActivities: r.activities }))
    }, Effect.orDie)

    /** Changes the name and retirement given; the rest stays. */
    const update = Effect.fn("GearRepo.update")(function*(id: string, patch: { readonly name?: string; readonly isRetired?: boolean }) {
      if (patch.name !== undefined) yield* sql`UPDATE gear SET name = ${patch.name} WHERE id = ${id}`
      if (patch.isRetired !== undefined) yield* sql`UPDATE gear SET is_retired = ${patch.isRetired ? 1 : 0} WHERE id = ${id}`
    }, (effect) => sql.withTransaction(effect), Effect.orDie)

    /** Removes the gear; the activities that used it keep no gear (the key's ON DELETE SET NULL). */
    const remove = Effect.fn("GearRepo.remove")(function*(id: string) {
      yield* sql`DELETE FROM gear WHERE id = ${id}`
    }, Effect.orDie)

    const exists = Effect.fn("GearRepo.exists")(function*(id: string) {
      return (yield* sql`SELECT 1 FROM gear WHERE id = ${id}`).length > 0
    }, Effect.orDie)

    /**
     * Gear as an import names it: new, or renamed as its source names it now; its brand, model
     * and kind (bike, shoes, other) as the source gives them, kept when it gives none. Retirement
     * only grows: gear retired here stays retired when its source still lists it in use (the
     * athlete's choice here wins), and gear retired at its source is retired here too.
     */
    const upsert = Effect.fn("GearRepo.upsert")(function*(gear: {
      readonly id: string
      readonly name: string
      readonly type: Gear["type"]
      readonly isRetired: boolean
      readonly brand?: string | null
      readonly model?: string | null
      readonly kind?: Gear["kind"]
    }) {
      yield* sql`INSERT INTO gear (id, name, type, is_retired, brand, model, kind, created_at)
        VALUES (${gear.id}, ${gear.name}, ${gear.type}, ${gear.isRetired ? 1 : 0}, ${gear.brand ?? null}, ${gear.model ?? null}, ${gear.kind ?? null}, ${Date.now()})
        ON CONFLICT(id) DO UPDATE SET name = excluded.name, is_retired = MAX(gear.is_retired, excluded.is_retired),
          brand = COALESCE(excluded.brand, gear.brand), model = COALESCE(excluded.model, gear.model), kind = COALESCE(excluded.kind, gear.kind)`
    }, Effect.orDie)

    return { list, findById, months, exists, upsert, update, remove } as const
  })
}) {}
