import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * True dates: an activity whose file tells nothing of when it was recorded (a route without any
 * time, nor a date of the file's own) is kept with `date_unknown` set; its start columns hold a
 * stand-in (when it was imported), not its date. Every read that counts activities by their date
 * (totals, calendars, streaks, the history's walk, training load, leaderboards) reads
 * `dated_activities`, the activities whose date is known, so none of them can count it. The
 * covering indexes of those reads take the flag, so that they stay covering; a change of the
 * flag is logged for the history's walk like any other change of what it reads.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE activities ADD COLUMN date_unknown INTEGER NOT NULL DEFAULT 0`
  // a view has no rowid of its own: the history's walk reads the activities' one
  yield* sql`CREATE VIEW dated_activities AS SELECT rowid AS rowid, * FROM activities WHERE date_unknown = 0`
  yield* sql`DROP INDEX activities_history`
  yield* sql`CREATE INDEX activities_history ON activities (start_time, id, sport_type, start_date_local, distance, country_code,
    passed_through_countries, created_at, exclude_from_records, date_unknown)`
  yield* sql`DROP INDEX activities_totals`
  yield* sql`CREATE INDEX activities_totals ON activities (start_date_local, sport_type, has_gpx, distance, moving_time, elapsed_time, elevation,
    date_unknown)`
  yield* sql`DROP INDEX activities_local_day`
  yield* sql`CREATE INDEX activities_local_day ON activities (start_date_local, sport_type, has_gpx, date_unknown)`
  yield* sql`DROP INDEX activities_gear_use`
  yield* sql`CREATE INDEX activities_gear_use ON activities (gear_id, start_date_local, distance, moving_time, date_unknown)`
  yield* sql`DROP TRIGGER activity_history_updated`
  yield* sql`CREATE TRIGGER activity_history_updated
    AFTER UPDATE OF id, start_time, start_date_local, sport_type, name, distance, moving_time, elapsed_time, elevation, calories, is_commute,
      country_code, passed_through_countries, created_at, exclude_from_records, date_unknown ON activities BEGIN
    INSERT INTO activity_history_rewrites (activity_id) VALUES (OLD.id);
    INSERT INTO activity_history_rewrites (activity_id) SELECT NEW.id WHERE NEW.id <> OLD.id;
    DELETE FROM activity_history_rewrites WHERE seq <= (SELECT MAX(seq) FROM activity_history_rewrites) - 1000;
  END`
})
