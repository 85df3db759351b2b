import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * An import row names every activity its file made (a triathlon's three, a GPX of several
 * outings), as a JSON array beside `activity_id` (the first), and says in `notes` what was
 * repaired in the file (impossible samples dropped). Rows stored before name their one activity.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE file_imports ADD COLUMN activity_ids TEXT`
  yield* sql`ALTER TABLE file_imports ADD COLUMN notes TEXT`
  yield* sql`UPDATE file_imports SET activity_ids = json_array(activity_id) WHERE activity_id IS NOT NULL`
})
