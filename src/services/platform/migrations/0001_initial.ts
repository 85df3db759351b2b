import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE gear (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    type TEXT NOT NULL CHECK (type IN ('imported', 'custom')),
    is_retired INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
  )`
  yield* sql`CREATE TABLE activities (
    id TEXT PRIMARY KEY,
    external_id TEXT UNIQUE,
    start_time INTEGER NOT NULL,
    start_date_local TEXT NOT NULL,
    sport_type TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    workout_type TEXT,
    world_type TEXT NOT NULL,
    import_source TEXT NOT NULL,
    distance INTEGER NOT NULL,
    elevation INTEGER NOT NULL,
    moving_time INTEGER NOT NULL,
    elapsed_time INTEGER NOT NULL,
    average_speed REAL NOT NULL,
    max_speed REAL NOT NULL,
    calories INTEGER,
    kilojoules INTEGER,
    average_heart_rate INTEGER,
    max_heart_rate INTEGER,
    average_power INTEGER,
    max_power INTEGER,
    average_cadence INTEGER,
    is_commute INTEGER NOT NULL DEFAULT 0,
    device_name TEXT,
    gear_id TEXT REFERENCES gear(id) ON DELETE SET NULL,
    country_code TEXT,
    state TEXT,
    city TEXT,
    passed_through_countries TEXT NOT NULL DEFAULT '[]',
    start_lat REAL,
    start_lng REAL,
    encoded_polyline TEXT,
    has_gpx INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
  )`
  yield* sql`CREATE INDEX activities_start_time ON activities (start_time DESC)`
  yield* sql`CREATE INDEX activities_start_date_local ON activities (start_date_local)`
  yield* sql`CREATE INDEX activities_gear ON activities (gear_id)`
  yield* sql`CREATE TABLE activity_streams (
    activity_id TEXT PRIMARY KEY REFERENCES activities(id) ON DELETE CASCADE,
    data BLOB NOT NULL
  )`
  yield* sql`CREATE TABLE activity_laps (
    activity_id TEXT NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
    lap_index INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (activity_id, lap_index)
  )`
  yield* sql`CREATE TABLE activity_splits (
    activity_id TEXT NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
    unit TEXT NOT NULL,
    split_index INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (activity_id, unit, split_index)
  )`
  yield* sql`CREATE TABLE activity_best_efforts (
    activity_id TEXT NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
    distance REAL NOT NULL,
    time_in_seconds INTEGER NOT NULL,
    start_offset INTEGER NOT NULL,
    PRIMARY KEY (activity_id, distance)
  )`
  yield* sql`CREATE TABLE activity_images (
    id TEXT PRIMARY KEY,
    activity_id TEXT NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
    file_name TEXT NOT NULL,
    external_id TEXT,
    created_at INTEGER NOT NULL
  )`
  yield* sql`CREATE INDEX activity_images_activity ON activity_images (activity_id, created_at)`
  yield* sql`CREATE TABLE file_imports (
    id TEXT PRIMARY KEY,
    filename TEXT NOT NULL,
    source TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('success', 'skipped', 'failed')),
    error_message TEXT,
    activity_id TEXT REFERENCES activities(id) ON DELETE CASCADE,
    imported_on INTEGER NOT NULL,
    content_hash TEXT NOT NULL,
    source_size INTEGER NOT NULL,
    source_mtime INTEGER NOT NULL,
    original_file TEXT
  )`
  yield* sql`CREATE INDEX file_imports_imported_on ON file_imports (imported_on DESC)`
  yield* sql`CREATE INDEX file_imports_hash ON file_imports (content_hash)`
  yield* sql`CREATE INDEX file_imports_activity ON file_imports (activity_id)`
  yield* sql`CREATE TABLE weights (
    "on" TEXT PRIMARY KEY,
    weight REAL NOT NULL
  )`
  yield* sql`CREATE TABLE webhook_events (
    object_id TEXT PRIMARY KEY,
    object_type TEXT NOT NULL,
    aspect_type TEXT NOT NULL,
    payload TEXT NOT NULL,
    received_at INTEGER NOT NULL
  )`
})
