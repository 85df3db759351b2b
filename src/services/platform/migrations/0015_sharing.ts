import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Sharing: the athlete's privacy zones, the privacy settings every share obeys (one row), and
 * the share links. A link's token is never stored, only its SHA-256: the database alone opens
 * no link. A link goes with its activity; revoking it deletes its row, so a revoked token and
 * one never made are looked up, and missed, the same way.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE privacy_zones (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    latitude REAL NOT NULL,
    longitude REAL NOT NULL,
    radius REAL NOT NULL,
    created_at INTEGER NOT NULL
  )`
  yield* sql`CREATE TABLE privacy_settings (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    hidden_ends REAL NOT NULL
  )`
  yield* sql`CREATE TABLE shares (
    id TEXT PRIMARY KEY,
    activity_id TEXT NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
    token_hash BLOB NOT NULL UNIQUE,
    shows TEXT NOT NULL,
    created_at INTEGER NOT NULL
  )`
  yield* sql`CREATE INDEX shares_activity ON shares (activity_id, created_at)`
})
