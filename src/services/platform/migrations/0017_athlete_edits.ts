import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Duplicates that merge: the fields of an activity the athlete set by hand (`edited`, a JSON
 * array of the Activity's field names, null when none), which what a second copy of the same
 * activity brings never replaces.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE activities ADD COLUMN edited TEXT`
})
