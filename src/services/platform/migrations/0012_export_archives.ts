import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Every file unpacked from an archive is kept with the archive it came from (the hash of the
 * archive's bytes) and the export it is of (its import row's source), whatever the export says
 * about it; a Garmin Connect export's summaries, which name its activities by their start time
 * (its files carry no activity id), are kept by archive until the last of its files is imported.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE export_metadata ADD COLUMN archive TEXT`
  yield* sql`ALTER TABLE export_metadata ADD COLUMN source TEXT`
  yield* sql`CREATE INDEX export_metadata_archive ON export_metadata (archive)`
  yield* sql`CREATE TABLE export_summaries (
    archive TEXT NOT NULL,
    start_time INTEGER NOT NULL,
    is_parent INTEGER NOT NULL,
    metadata TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX export_summaries_start ON export_summaries (archive, start_time)`
})
