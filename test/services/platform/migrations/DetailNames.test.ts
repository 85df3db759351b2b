import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { SqliteClient, SqliteMigrator } from "@effect/sql-sqlite-node"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect, Layer } from "effect"
import { Lap, Length, Split } from "../../../../src/schema/ActivityDetailModels.ts"
import { NOT_SWUM } from "../../../../src/schema/ActivityDraft.ts"
import { MIGRATIONS } from "../../../../src/services/platform/Database.ts"

/** Laps, splits and lengths stored by the versions before 0011, under the draft's former names, are answered under the API's. */

/** The migrations named before `first` (every one for "9999"), whichever are added between. */
const migrateBefore = (first: string) =>
  SqliteMigrator.run({
    loader: SqliteMigrator.fromRecord(Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < first)))
  }).pipe(Effect.provide(NodeContext.layer))

const database = SqliteClient.layer({ filename: ":memory:" })

const activity = (id: string, sportType: string) => ({
  id, name: sportType, sport_type: sportType, world_type: "realWorld", import_source: "fitFile", start_time: 0,
  start_date_local: "2024-01-01T10:00:00", distance: 2000, elevation: 0, moving_time: 600, elapsed_time: 600,
  average_speed: 12, max_speed: 20, is_commute: 0, has_gpx: 0, created_at: 0
})

describe("migration 0011: laps, splits and lengths under the API's names", () => {
  it.effect("rewrites a lap's start offset, a split's unit in its column and its data, each row with the API's properties in the API's order", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrateBefore("0011")
      yield* sql`INSERT INTO activities ${sql.insert(activity("activity-1", "Ride"))}`
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

      yield* migrateBefore("9999")

      const [lap, damagedLap] = yield* sql<{ data: string }>`SELECT data FROM activity_laps ORDER BY lap_index`
      expect(damagedLap!.data).toBe("damaged")
      const { startOffsetSeconds, ...rest } = formerLap
      // a lap stored before swims were counted is not a swim's
      expect(JSON.parse(lap!.data)).toEqual({ ...rest, startOffsetInSeconds: startOffsetSeconds, ...NOT_SWUM })
      expect(Object.keys(JSON.parse(lap!.data))).toEqual(Object.keys(Lap.fields))
      const splits = yield* sql<{ unit: string; data: string }>`SELECT unit, data FROM activity_splits WHERE data != 'damaged' ORDER BY unit`
      const damagedSplit = yield* sql<{ unit: string; data: string }>`SELECT unit, data FROM activity_splits WHERE data = 'damaged'`
      // the damaged row is left as it is, but for its unit: the splits are read in order of unit
      expect(damagedSplit).toEqual([{ unit: "mile", data: "damaged" }])
      expect(splits.map((s) => [s.unit, JSON.parse(s.data)])).toEqual([["km", formerSplit("km", 1)], ["mile", formerSplit("mile", 1)]])
      for (const split of splits) expect(Object.keys(JSON.parse(split.data))).toEqual(Object.keys(Split.fields))
    }).pipe(Effect.provide(Layer.fresh(database))))

  it.effect("rewrites a pool swim's laps with their strokes, lengths, SWOLF and stroke, its lengths' start offsets, and keeps its 100 m and 100 yd splits' units", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrateBefore("0011")
      yield* sql`INSERT INTO activities ${sql.insert(activity("swim-1", "Swim"))}`
      // as the versions that counted swims stored them: the draft's properties in the draft's order
      const swimLap = {
        lapIndex: 1, name: "Lap 1", startOffsetSeconds: 0, elapsedTimeInSeconds: 120, movingTimeInSeconds: 100,
        distanceInMeter: 100, elevationInMeter: 0, averageSpeedInKmPerHour: 3.6, maxSpeedInKmPerHour: 3.8, averageHeartRate: null,
        strokes: 40, numberOfLengths: 4, swolf: 35, strokeType: "freestyle"
      }
      const formerLength = (lengthIndex: number) => ({
        lengthIndex, startOffsetSeconds: (lengthIndex - 1) * 25, elapsedTimeInSeconds: 25, distanceInMeter: 25,
        averageSpeedInKmPerHour: 3.6, strokes: 10, strokeType: "freestyle", swolf: 35, lapIndex: 1
      })
      const swimSplit = (unit: string) => ({
        unit, splitIndex: 1, distanceInMeter: unit === "100m" ? 100 : 91.44, elapsedTimeInSeconds: 100, movingTimeInSeconds: 100,
        elevationDifferenceInMeter: 0, averageSpeedInKmPerHour: 3.6, averageHeartRate: null
      })
      yield* sql`INSERT INTO activity_laps ${sql.insert({ activity_id: "swim-1", lap_index: 1, data: JSON.stringify(swimLap) })}`
      yield* sql`INSERT INTO activity_lengths ${sql.insert([1, 2].map((i) => ({ activity_id: "swim-1", length_index: i, data: JSON.stringify(formerLength(i)) })))}`
      yield* sql`INSERT INTO activity_splits ${sql.insert(["100m", "100yd"].map((unit) => ({ activity_id: "swim-1", unit, split_index: 1, data: JSON.stringify(swimSplit(unit)) })))}`

      yield* migrateBefore("9999")

      const [lap] = yield* sql<{ data: string }>`SELECT data FROM activity_laps`
      const { startOffsetSeconds, ...lapRest } = swimLap
      expect(JSON.parse(lap!.data)).toEqual({ ...lapRest, startOffsetInSeconds: startOffsetSeconds })
      expect(Object.keys(JSON.parse(lap!.data))).toEqual(Object.keys(Lap.fields))
      const lengths = yield* sql<{ data: string }>`SELECT data FROM activity_lengths ORDER BY length_index`
      expect(lengths.map((l) => JSON.parse(l.data))).toEqual([1, 2].map((i) => {
        const { startOffsetSeconds, ...rest } = formerLength(i)
        return { ...rest, startOffsetInSeconds: startOffsetSeconds }
      }))
      for (const length of lengths) expect(Object.keys(JSON.parse(length.data))).toEqual(Object.keys(Length.fields))
      const splits = yield* sql<{ unit: string; data: string }>`SELECT unit, data FROM activity_splits ORDER BY unit`
      expect(splits.map((s) => [s.unit, JSON.parse(s.data)])).toEqual([["100m", swimSplit("100m")], ["100yd", swimSplit("100yd")]])
      for (const split of splits) expect(Object.keys(JSON.parse(split.data))).toEqual(Object.keys(Split.fields))
    }).pipe(Effect.provide(Layer.fresh(database))))
})
