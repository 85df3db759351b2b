import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { SqliteClient, SqliteMigrator } from "@effect/sql-sqlite-node"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect, Layer } from "effect"
import { Lap, Split } from "../../../../src/schema/ActivityDetailModels.ts"
import { MIGRATIONS } from "../../../../src/services/platform/Database.ts"

/** Laps and splits stored by the versions before 0011, under the draft's former names, are answered under the API's. */

const migrateUpTo = (last: string) =>
  SqliteMigrator.run({
    loader: SqliteMigrator.fromRecord(Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name <= last)))
  }).pipe(Effect.provide(NodeContext.layer))

const database = SqliteClient.layer({ filename: ":memory:" })

describe("migration 0011: laps and splits under the API's names", () => {
  it.effect("rewrites a lap's start offset, a split's unit in its column and its data, each row with the API's properties in the API's order", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrateUpTo("0010")
      yield* sql`INSERT INTO activities ${sql.insert({
        id: "activity-1", name: "Ride", sport_type: "Ride", world_type: "realWorld", import_source: "fitFile", start_time: 0,
        start_date_local: "2024-01-01T10:00:00", distance: 2000, elevation: 0, moving_time: 600, elapsed_time: 600,
        average_speed: 12, max_speed: 20, is_commute: 0, has_gpx: 0, created_at: 0
      })}`
      const formerLap = {
        lapIndex: 1, name: "Lap 1", startOffsetSeconds: 30, elapsedTimeInSeconds: 600, movingTimeInSeconds: 590,
        distanceInMeter: 2000.5, elevationInMeter: 12.3, averageSpeedInKmPerHour: 12.2, maxSpeedInKmPerHour: 20, averageHeartRate: null
      }
      const formerSplit = (unit: string, splitIndex: number) => ({
        unit, splitIndex, distanceInMeter: 1000, elapsedTimeInSeconds: 300, movingTimeInSeconds: 295,
        elevationDifferenceInMeter: -1.5, averageSpeedInKmPerHour: 12, averageHeartRate: 140
      })
      yield* sql`INSERT INTO activity_laps ${sql.insert({ activity_id: "activity-1", lap_index: 1, data: JSON.stringify(formerLap) })}`
      yield* sql`INSERT INTO activity_splits ${sql.insert([
        { activity_id: "activity-1", unit: "metric", split_index: 1, data: JSON.stringify(formerSplit("metric", 1)) },
        { activity_id: "activity-1", unit: "imperial", split_index: 1, data: JSON.stringify(formerSplit("imperial", 1)) },
        { activity_id: "activity-1", unit: "imperial", split_index: 2, data: "damaged" }
      ])}`
      yield* sql`INSERT INTO activity_laps ${sql.insert({ activity_id: "activity-1", lap_index: 2, data: "damaged" })}`

      yield* migrateUpTo("9999")

      const [lap, damagedLap] = yield* sql<{ data: string }>`SELECT data FROM activity_laps ORDER BY lap_index`
      expect(damagedLap!.data).toBe("damaged")
      const { startOffsetSeconds, ...rest } = formerLap
      expect(JSON.parse(lap!.data)).toEqual({ ...rest, startOffsetInSeconds: startOffsetSeconds })
      expect(Object.keys(JSON.parse(lap!.data))).toEqual(Object.keys(Lap.fields))
      const splits = yield* sql<{ unit: string; data: string }>`SELECT unit, data FROM activity_splits WHERE data != 'damaged' ORDER BY unit`
      const damagedSplit = yield* sql<{ unit: string; data: string }>`SELECT unit, data FROM activity_splits WHERE data = 'damaged'`
      // the damaged row is left as it is, but for its unit: the splits are read in order of unit
      expect(damagedSplit).toEqual([{ unit: "mile", data: "damaged" }])
      expect(splits.map((s) => [s.unit, JSON.parse(s.data)])).toEqual([["km", formerSplit("km", 1)], ["mile", formerSplit("mile", 1)]])
      for (const split of splits) expect(Object.keys(JSON.parse(split.data))).toEqual(Object.keys(Split.fields))
    }).pipe(Effect.provide(Layer.fresh(database))))
})
