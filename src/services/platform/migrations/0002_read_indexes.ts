import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Indexes the reads of the API need at scale, each answering its query from the index alone
 * (covering) or in the order asked, so that no page sorts or reads rows it does not return:
 * - the activity list, newest first (start_time, id), filtered on the day, sport type and GPX
 *   flag read from the index, with its own index per sport type; scanned backwards, an
 *   ascending index gives `start_time DESC, id DESC`;
 * - the count of a list filtered by date, over the local day with the other filters in the
 *   index (ActivityReads names it: without statistics SQLite would pick the sport type's);
 * - the import log, newest first (imported_on, then the rowid every index entry ends with:
 *   scanned backwards, `imported_on DESC, rowid DESC`), filtered on the status and source read
 *   from the index (FileImportRepo names it), counted by status and source, and looked up by
 *   file name.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DROP INDEX activities_start_time`
  yield* sql`DROP INDEX activities_start_date_local`
  yield* sql`CREATE INDEX activities_list ON activities (start_time, id, start_date_local, sport_type, has_gpx)`
  yield* sql`CREATE INDEX activities_list_by_sport ON activities (sport_type, start_time, id, start_date_local, has_gpx)`
  yield* sql`CREATE INDEX activities_local_day ON activities (start_date_local, sport_type, has_gpx)`
  yield* sql`DROP INDEX file_imports_imported_on`
  yield* sql`CREATE INDEX file_imports_list ON file_imports (imported_on, status, source)`
  yield* sql`CREATE INDEX file_imports_status ON file_imports (status, source)`
  yield* sql`CREATE INDEX file_imports_filename ON file_imports (filename)`
})
