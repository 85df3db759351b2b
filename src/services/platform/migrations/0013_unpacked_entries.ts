import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Each activity file a zip of the watch folder let into the folder, by the zip (its name and
 * identity) and the entry's place in it, with the name it got there and its bytes' hash, kept
 * until the zip leaves the folder: an unpacking a stop cut short resumes where it stopped.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE unpacked_entries (
    zip TEXT NOT NULL,
    entry TEXT NOT NULL,
    archive TEXT NOT NULL,
    filename TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    PRIMARY KEY (zip, entry)
  )`
})
