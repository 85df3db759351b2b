import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * What a Strava export's activities.csv said about each file unpacked from it (ExportMetadata),
 * kept until that file's import is done: a restart between the unpacking and the import of
 * a large export keeps the names, descriptions and gear of the files not yet imported.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE export_metadata (filename TEXT PRIMARY KEY, metadata TEXT NOT NULL)`
})
