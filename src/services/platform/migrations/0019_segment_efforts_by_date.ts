import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * A segment's efforts by date, with their times: its last effort, and an effort's count and
 * place as they stood at its start (the efforts up to then, the faster of them), read from this
 * index alone rather than from every effort of the segment.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX segment_efforts_date ON segment_efforts (segment_id, start_time, elapsed_time)`
})
