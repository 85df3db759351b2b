import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Indexes of the statistics, each answering from the index alone:
 * - totals per period and the Eddington number read the local day, sport type, GPX flag and
 *   the summed values of every activity from one covering index, not from the rows with
 *   their polylines;
 * - records walk each distance's best efforts fastest first and stop at the first of the sport
 *   asked for.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX activities_totals ON activities (start_date_local, sport_type, has_gpx, distance, moving_time, elapsed_time, elevation)`
  yield* sql`CREATE INDEX activity_best_efforts_fastest ON activity_best_efforts (distance, time_in_seconds)`
})
