import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { randomUUID } from "node:crypto"
import type { ComponentService, GearComponent } from "../../schema/GearComponentModels.ts"
import { AppConfig } from "../platform/AppConfig.ts"
import { todayIn } from "../platform/LocalTime.ts"
import { componentOf, type ComponentRow, type GearUse, useSince } from "./componentOf.ts"

/**
 * The components of gear (a chain, tyres, shoes) and their service records, in SQLite. Their use
 * is never stored: it is summed from the activities that carry the gear, from the day of the
 * last service (or of the install) on, so giving an activity other gear moves its distance.
 */

interface StoredComponent {
  readonly id: string
  readonly gear_id: string
  readonly name: string
  readonly installed_on: string
  readonly interval_distance: number | null
  readonly interval_moving_time: number | null
  readonly interval_days: number | null
}

interface StoredService {
  readonly id: string
  readonly component_id: string
  readonly on: string
  readonly note: string | null
}

/** The fields a component is created with, or changed to (null clears an interval). */
export interface ComponentFields {
  readonly name: string
  readonly installedOn: string
  readonly intervalInMeter: number | null
  readonly intervalInSeconds: number | null
  readonly intervalInDays: number | null
}

/** A component overdue, with the gear that carries it (for the daily notice). */
export interface OverdueComponent {
  readonly gearName: string
  readonly component: GearComponent
}

export const newComponentId = () => `gearComponent-${randomUUID()}`
export const newServiceId = () => `gearComponentService-${randomUUID()}`

const rowOf = (c: StoredComponent): ComponentRow => ({
  id: c.id,
  gearId: c.gear_id,
  name: c.name,
  installedOn: c.installed_on,
  intervalInMeter: c.interval_distance,
  intervalInSeconds: c.interval_moving_time,
  intervalInDays: c.interval_days
})

const COMPONENT_COLUMNS = "id, gear_id, name, installed_on, interval_distance, interval_moving_time, interval_days"

export class GearComponents extends Effect.Service<GearComponents>()("services/gear/GearComponents", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const today = todayIn(config.timeZone)

    /** The components of `stored` with their services and use, as of today. */
    const answer = (stored: ReadonlyArray<StoredComponent>) =>
      Effect.gen(function*() {
        if (stored.length === 0) return []
        const on = yield* today
        const ids = stored.map((c) => c.id)
        const services = yield* sql<StoredService>`SELECT id, component_id, "on", note FROM gear_component_services
          WHERE ${sql.in("component_id", ids)} ORDER BY "on" DESC, created_at DESC`
        const byComponent = new Map<string, Array<ComponentService>>()
        for (const s of services) byComponent.set(s.component_id, [...(byComponent.get(s.component_id) ?? []), { id: s.id, on: s.on, note: s.note }])
        const components: Array<GearComponent> = []
        for (const stored_ of stored) {
          const row = rowOf(stored_)
          const own = byComponent.get(row.id) ?? []
          // the sums of the activities since its use began as the list shows them (whole metres and seconds), from the covering
          // index: one whose date is unknown may be from before it
          const [use] = yield* sql<{ readonly activities: number; readonly distance: number; readonly moving_time: number }>`SELECT
            COUNT(*) AS activities, COALESCE(SUM(ROUND(distance)), 0) AS distance, COALESCE(SUM(ROUND(moving_time)), 0) AS moving_time
            FROM dated_activities WHERE gear_id = ${row.gearId} AND start_date_local >= ${useSince(row, own)}`
          const sums: GearUse = { activities: use!.activities, distanceInMeter: use!.distance, movingTimeInSeconds: use!.moving_time }
          components.push(componentOf(row, own, sums, on))
        }
        return components
      })

    const list = Effect.fn("GearComponents.list")(function*(gearId: string) {
      return yield* answer(yield* sql<StoredComponent>`SELECT ${sql.unsafe(COMPONENT_COLUMNS)} FROM gear_components
        WHERE gear_id = ${gearId} ORDER BY created_at, rowid`)
    }, Effect.orDie)

    /** One component of the gear, null when the gear has none of that id. */
    const find = Effect.fn("GearComponents.find")(function*(gearId: string, componentId: string) {
      const found = yield* answer(yield* sql<StoredComponent>`SELECT ${sql.unsafe(COMPONENT_COLUMNS)} FROM gear_components
        WHERE id = ${componentId} AND gear_id = ${gearId}`)
      return found[0] ?? null
    }, Effect.orDie)

    const create = Effect.fn("GearComponents.create")(function*(gearId: string, fields: ComponentFields) {
      const id = newComponentId()
      yield* sql`INSERT INTO gear_components ${sql.insert({
        id,
        gear_id: gearId,
        name: fields.name,
        installed_on: fields.installedOn,
        interval_distance: fields.intervalInMeter,
        interval_moving_time: fields.intervalInSeconds,
        interval_days: fields.intervalInDays,
        created_at: Date.now()
      })}`
      return id
    }, Effect.orDie)

    const update = Effect.fn("GearComponents.update")(function*(componentId: string, fields: ComponentFields) {
      yield* sql`UPDATE gear_components SET ${sql.update({
        name: fields.name,
        installed_on: fields.installedOn,
        interval_distance: fields.intervalInMeter,
        interval_moving_time: fields.intervalInSeconds,
        interval_days: fields.intervalInDays
      })} WHERE id = ${componentId}`
    }, Effect.orDie)

    /** Removes the component with its service records (the key's ON DELETE CASCADE). */
    const remove = Effect.fn("GearComponents.remove")(function*(componentId: string) {
      yield* sql`DELETE FROM gear_components WHERE id = ${componentId}`
    }, Effect.orDie)

    const addService = Effect.fn("GearComponents.addService")(function*(componentId: string, on: string, note: string | null) {
      yield* sql`INSERT INTO gear_component_services ${sql.insert({ id: newServiceId(), component_id: componentId, on, note, created_at: Date.now() })}`
    }, Effect.orDie)

    /** The overdue components of the gear in use (retired gear left out), by gear name, then as added. */
    const overdue = Effect.fn("GearComponents.overdue")(function*() {
      const stored = yield* sql<StoredComponent & { readonly gear_name: string }>`SELECT c.id, c.gear_id, c.name, c.installed_on,
        c.interval_distance, c.interval_moving_time, c.interval_days, g.name AS gear_name
        FROM gear_components c JOIN gear g ON g.id = c.gear_id WHERE g.is_retired = 0 ORDER BY g.name, c.created_at, c.rowid`
      const components = yield* answer(stored)
      return components.flatMap((component, i): Array<OverdueComponent> =>
        component.status === "overdue" ? [{ gearName: stored[i]!.gear_name, component }] : []
      )
    }, Effect.orDie)

    return { list, find, create, update, remove, addService, overdue, today } as const
  })
}) {}
