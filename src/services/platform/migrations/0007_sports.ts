import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * What each sport's numbers need: a swim's pool length, lengths, strokes and SWOLF, and its
 * lengths one by one; the race a multisport leg belongs to (every leg and transition, as JSON);
 * whether the activity's samples carried usable times. Rows stored before had times.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE activities ADD COLUMN has_times INTEGER NOT NULL DEFAULT 1`
  yield* sql`ALTER TABLE activities ADD COLUMN pool_length REAL`
  yield* sql`ALTER TABLE activities ADD COLUMN number_of_lengths INTEGER`
  yield* sql`ALTER TABLE activities ADD COLUMN strokes INTEGER`
  yield* sql`ALTER TABLE activities ADD COLUMN swolf INTEGER`
  yield* sql`ALTER TABLE activities ADD COLUMN multisport TEXT`
  yield* sql`CREATE TABLE activity_lengths (
    activity_id TEXT NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
    length_index INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (activity_id, length_index)
  )`
})
