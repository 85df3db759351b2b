import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Records to trust: an activity the athlete keeps out of the records (`exclude_from_records`).
 * The history's walk reads it (its covering index takes it), and a change of it is logged for
 * the walk like any other change of what the walk reads.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE activities ADD COLUMN exclude_from_records INTEGER NOT NULL DEFAULT 0`
  yield* sql`DROP INDEX activities_history`
  yield* sql`CREATE INDEX activities_history ON activities (start_time, id, sport_type, start_date_local, distance, country_code,
    passed_through_countries, created_at, exclude_from_records)`
  yield* sql`DROP TRIGGER activity_history_updated`
  yield* sql`CREATE TRIGGER activity_history_updated
    AFTER UPDATE OF id, start_time, start_date_local, sport_type, name, distance, moving_time, elapsed_time, elevation, calories, is_commute,
      country_code, passed_through_countries, created_at, exclude_from_records ON activities BEGIN
    INSERT INTO activity_history_rewrites (activity_id) VALUES (OLD.id);
    INSERT INTO activity_history_rewrites (activity_id) SELECT NEW.id WHERE NEW.id <> OLD.id;
    DELETE FROM activity_history_rewrites WHERE seq <= (SELECT MAX(seq) FROM activity_history_rewrites) - 1000;
  END`
})
