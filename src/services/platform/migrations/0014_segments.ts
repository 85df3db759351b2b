import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Segments and their efforts; each activity's track in the form the segments read, and the
 * bounding boxes of its runs of samples in an R*Tree (SQLite's, compiled into better-sqlite3),
 * so that the tracks that may pass a segment are found without reading any; the segments'
 * corridors in another, for the segments a new track may pass. The tracks of the activities
 * stored before are made at start, in the background (SegmentUpkeep).
 *
 * A segment's matching against the history walks the activities stored when it was made
 * (rowid up to matching_until) from matching_cursor, null once done; an activity stored since is
 * matched by its own import. A track's boxes have the ids rowid × 1024 + n (a track has at most
 * 100,000 samples, 834 boxes of 120).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE segments (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    sport_group TEXT NOT NULL,
    distance REAL NOT NULL,
    average_grade REAL,
    elevation_gain REAL,
    points TEXT NOT NULL,
    altitudes TEXT,
    created_at INTEGER NOT NULL,
    matching_cursor INTEGER,
    matching_until INTEGER NOT NULL,
    matching_total INTEGER NOT NULL DEFAULT 0,
    matching_checked INTEGER NOT NULL DEFAULT 0
  )`
  yield* sql`CREATE TABLE segment_efforts (
    id TEXT PRIMARY KEY,
    segment_id TEXT NOT NULL REFERENCES segments (id) ON DELETE CASCADE,
    activity_id TEXT NOT NULL REFERENCES activities (id) ON DELETE CASCADE,
    start_time INTEGER NOT NULL,
    start_offset INTEGER NOT NULL,
    elapsed_time INTEGER NOT NULL,
    moving_time INTEGER NOT NULL,
    start_distance REAL NOT NULL,
    end_distance REAL NOT NULL,
    average_speed REAL NOT NULL,
    average_heartrate REAL,
    average_power REAL,
    average_cadence REAL
  )`
  yield* sql`CREATE INDEX segment_efforts_segment ON segment_efforts (segment_id, elapsed_time)`
  yield* sql`CREATE INDEX segment_efforts_activity ON segment_efforts (activity_id)`
  yield* sql`CREATE TABLE segment_tracks (
    activity_id TEXT PRIMARY KEY REFERENCES activities (id) ON DELETE CASCADE,
    data BLOB,
    boxes INTEGER NOT NULL DEFAULT 0
  )`
  yield* sql`CREATE VIRTUAL TABLE track_boxes USING rtree (id, min_lat, max_lat, min_lon, max_lon, +activity_id TEXT)`
  yield* sql`CREATE VIRTUAL TABLE segment_boxes USING rtree (id, min_lat, max_lat, min_lon, max_lon, +segment_id TEXT)`
})
