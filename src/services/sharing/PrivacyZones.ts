import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { randomUUID } from "node:crypto"
import { DEFAULT_HIDDEN_ENDS, type PrivacySettings, type PrivacyZone, type PrivacyZoneInput } from "../../schema/SharingPrivacyZoneModels.ts"
import { inChannel } from "../platform/Logs.ts"

/**
 * The athlete's privacy zones and privacy settings, in SQLite. They are read afresh for every
 * share request: a zone added or a setting changed applies at once to every link made before.
 */

type ZoneRow = readonly [string, string, number, number, number, number]

const zoneOf = ([id, name, latitude, longitude, radius, createdAt]: ZoneRow): PrivacyZone => ({
  id,
  name,
  latitude,
  longitude,
  radiusInMeter: radius,
  createdOn: new Date(createdAt).toISOString()
})

export class PrivacyZones extends Effect.Service<PrivacyZones>()("services/sharing/PrivacyZones", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const list = Effect.fn("PrivacyZones.list")(function*() {
      const rows = yield* sql`SELECT id, name, latitude, longitude, radius, created_at FROM privacy_zones ORDER BY created_at, id`.values
      return rows.map((r) => zoneOf(r as unknown as ZoneRow))
    }, Effect.orDie)

    const find = Effect.fn("PrivacyZones.find")(function*(id: string) {
      const rows = yield* sql`SELECT id, name, latitude, longitude, radius, created_at FROM privacy_zones WHERE id = ${id}`.values
      return rows.length === 0 ? null : zoneOf(rows[0] as unknown as ZoneRow)
    }, Effect.orDie)

    const create = Effect.fn("PrivacyZones.create")(function*(input: PrivacyZoneInput) {
      const zone: PrivacyZone = { id: `privacyZone-${randomUUID()}`, ...input, createdOn: new Date().toISOString() }
      yield* sql`INSERT INTO privacy_zones ${sql.insert({
        id: zone.id,
        name: zone.name,
        latitude: zone.latitude,
        longitude: zone.longitude,
        radius: zone.radiusInMeter,
        created_at: Date.parse(zone.createdOn)
      })}`
      yield* Effect.logInfo(`privacy zone "${zone.name}" (${zone.id}, ${zone.radiusInMeter} m) added: every share link hides it`).pipe(inChannel("daemon"))
      return zone
    }, Effect.orDie)

    /** false when there was no such zone. */
    const remove = Effect.fn("PrivacyZones.remove")(function*(id: string) {
      const deleted = yield* sql`DELETE FROM privacy_zones WHERE id = ${id} RETURNING name`.values
      if (deleted.length === 0) return false
      yield* Effect.logInfo(`privacy zone "${String(deleted[0]![0])}" (${id}) removed`).pipe(inChannel("daemon"))
      return true
    }, Effect.orDie)

    const settings = Effect.fn("PrivacyZones.settings")(function*() {
      const rows = yield* sql`SELECT hidden_ends FROM privacy_settings WHERE id = 1`.values
      return { hiddenEndsInMeter: rows.length === 0 ? DEFAULT_HIDDEN_ENDS : Number(rows[0]![0]) } satisfies PrivacySettings
    }, Effect.orDie)

    const saveSettings = Effect.fn("PrivacyZones.saveSettings")(function*(settings: PrivacySettings) {
      yield* sql`INSERT INTO privacy_settings (id, hidden_ends) VALUES (1, ${settings.hiddenEndsInMeter})
        ON CONFLICT(id) DO UPDATE SET hidden_ends = excluded.hidden_ends`
      yield* Effect.logInfo(`privacy settings saved: every share link hides the first and last ${settings.hiddenEndsInMeter} m`).pipe(inChannel("daemon"))
      return settings
    }, Effect.orDie)

    return { list, find, create, remove, settings, saveSettings } as const
  })
}) {}
