import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * What an export says about a file is kept with the hash of the bytes it was said of (a file
 * that took the name meanwhile is not the export's), and gear keeps the brand, model and kind
 * (bike, shoes, other) its source gives it. Rows kept before have neither.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE export_metadata ADD COLUMN content_hash TEXT`
  yield* sql`ALTER TABLE gear ADD COLUMN brand TEXT`
  yield* sql`ALTER TABLE gear ADD COLUMN model TEXT`
  yield* sql`ALTER TABLE gear ADD COLUMN kind TEXT CHECK (kind IN ('bike', 'shoes', 'other'))`
})
