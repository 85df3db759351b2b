import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * The activity list in the orders it can be asked for (by name, distance, moving time,
 * elevation or average speed; the start and the sport type have theirs): each index holds the
 * activities in that order, ties by their start, with the day, sport type and GPX flag the
 * filters test before any row is read, so that a page walks the index to its end and sorts
 * nothing.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const filtered = "start_time, id, start_date_local, sport_type, has_gpx"
  yield* sql.unsafe(`CREATE INDEX activities_by_name ON activities (name COLLATE NOCASE, ${filtered})`)
  yield* sql.unsafe(`CREATE INDEX activities_by_distance ON activities (distance, ${filtered})`)
  yield* sql.unsafe(`CREATE INDEX activities_by_moving_time ON activities (moving_time, ${filtered})`)
  yield* sql.unsafe(`CREATE INDEX activities_by_elevation ON activities (elevation, ${filtered})`)
  yield* sql.unsafe(`CREATE INDEX activities_by_average_speed ON activities (average_speed, ${filtered})`)
})
