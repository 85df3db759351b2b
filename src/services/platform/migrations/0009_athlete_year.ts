import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Gear components (a chain, tyres, shoes) with their maintenance intervals, and their service
 * records; both go with their gear. Their use is summed from the activities that carry the gear
 * from a local day on: an index on the gear, the local day and the summed values answers it
 * alone (and replaces the index on the gear only, of which it is an extension).
 *
 * The milestones and the year in review walk every activity in the order they started (its sport
 * type, local start, distance, countries and when it was stored) and the best efforts over the
 * records' distances with their activity and time, each from an index that holds them all: never
 * the activities' rows with their routes. What the walk and the year in review read is followed
 * as it changes: activities added are counted, and those removed or changed in those columns are
 * logged (the last 1,000), so that the walk is kept across other commits, goes on over the
 * activities added, and reads again only the activities changed.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE gear_components (
    id TEXT PRIMARY KEY,
    gear_id TEXT NOT NULL REFERENCES gear(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    installed_on TEXT NOT NULL,
    interval_distance INTEGER,
    interval_moving_time INTEGER,
    interval_days INTEGER,
    created_at INTEGER NOT NULL
  )`
  yield* sql`CREATE INDEX gear_components_gear ON gear_components (gear_id, created_at)`
  yield* sql`CREATE TABLE gear_component_services (
    id TEXT PRIMARY KEY,
    component_id TEXT NOT NULL REFERENCES gear_components(id) ON DELETE CASCADE,
    "on" TEXT NOT NULL,
    note TEXT,
    created_at INTEGER NOT NULL
  )`
  yield* sql`CREATE INDEX gear_component_services_component ON gear_component_services (component_id, "on")`
  yield* sql`CREATE INDEX activities_gear_use ON activities (gear_id, start_date_local, distance, moving_time)`
  yield* sql`DROP INDEX activities_gear`
  yield* sql`CREATE INDEX activities_history ON activities (start_time, id, sport_type, start_date_local, distance, country_code, passed_through_countries, created_at)`
  yield* sql`CREATE TABLE activity_history_changes (id INTEGER PRIMARY KEY CHECK (id = 1), inserted INTEGER NOT NULL)`
  yield* sql`INSERT INTO activity_history_changes (id, inserted) VALUES (1, 0)`
  yield* sql`CREATE TABLE activity_history_rewrites (seq INTEGER PRIMARY KEY, activity_id TEXT NOT NULL)`
  yield* sql`CREATE TRIGGER activity_history_inserted AFTER INSERT ON activities
    BEGIN UPDATE activity_history_changes SET inserted = inserted + 1; END`
  // the log keeps its last 1,000 entries (History's REWRITES_KEPT); its last entry is never dropped, so seq only grows
  yield* sql`CREATE TRIGGER activity_history_deleted AFTER DELETE ON activities BEGIN
    INSERT INTO activity_history_rewrites (activity_id) VALUES (OLD.id);
    DELETE FROM activity_history_rewrites WHERE seq <= (SELECT MAX(seq) FROM activity_history_rewrites) - 1000;
  END`
  yield* sql`CREATE TRIGGER activity_history_updated
    AFTER UPDATE OF id, start_time, start_date_local, sport_type, name, distance, moving_time, elapsed_time, elevation, calories, is_commute,
      country_code, passed_through_countries, created_at ON activities BEGIN
    INSERT INTO activity_history_rewrites (activity_id) VALUES (OLD.id);
    INSERT INTO activity_history_rewrites (activity_id) SELECT NEW.id WHERE NEW.id <> OLD.id;
    DELETE FROM activity_history_rewrites WHERE seq <= (SELECT MAX(seq) FROM activity_history_rewrites) - 1000;
  END`
  yield* sql`CREATE INDEX activity_best_efforts_records ON activity_best_efforts (distance, activity_id, time_in_seconds, start_offset)`
})
