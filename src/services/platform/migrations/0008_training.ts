import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * The training analysis:
 * - `athlete_thresholds`: the dated sets of FTPs and heart rates, each in force from its date
 *   until the next set's;
 * - `activity_training`: what each activity's analysis is derived from that no threshold
 *   changes (normalized power, work, the grade-adjusted distance; TrainingBasis), and its
 *   training load under the thresholds in
 *   force on its local `day`; `stale` marks a row whose load must be computed again because one
 *   of its inputs changed on the activity (a random mark within JavaScript's safe integers, so
 *   that a recompute clears only a row still marked as it read it); `(day, training_load)`
 *   answers the daily loads from the index alone. Its rows stay small: a recompute rewrites
 *   thousands of them;
 * - `activity_histograms`: the seconds at each watt and each heart rate, read for one
 *   activity's zones;
 * - `training_pending`: the ranges of days whose loads a change of thresholds left to
 *   recompute, one row per change, written in the change's transaction whatever the number of
 *   activities it governs, so that the change answers at once;
 * - `activity_power_curve`: each activity's best mean power over the standard durations, with
 *   its sport, read best first per duration (and sport) for the history's power curve;
 * - a trigger that marks an activity's load stale whenever what it is computed from changes on
 *   the activity itself (its sport chooses the FTP; its day the thresholds; its moving time and
 *   average heart rate make the TRIMP; its power curve carries its sport), whoever changes it
 *   (an edit, a reprocess, Strava).
 * Activities stored before are analysed from their stored streams by the daemon after the upgrade.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE athlete_thresholds (
    "on" TEXT PRIMARY KEY,
    cycling_ftp INTEGER,
    running_ftp INTEGER,
    max_heart_rate INTEGER,
    resting_heart_rate INTEGER,
    lactate_threshold_heart_rate INTEGER
  )`
  yield* sql`CREATE TABLE activity_training (
    activity_id TEXT PRIMARY KEY REFERENCES activities(id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    day TEXT NOT NULL,
    power_seconds INTEGER,
    normalized_power REAL,
    work REAL,
    heart_rate_seconds INTEGER,
    grade_adjusted_distance REAL,
    training_load REAL,
    training_load_source TEXT,
    stale INTEGER
  )`
  yield* sql`CREATE INDEX activity_training_daily ON activity_training (day, training_load)`
  yield* sql`CREATE INDEX activity_training_stale ON activity_training (stale) WHERE stale IS NOT NULL`
  yield* sql`CREATE TABLE activity_histograms (
    activity_id TEXT PRIMARY KEY REFERENCES activities(id) ON DELETE CASCADE,
    power TEXT,
    heart_rate TEXT
  )`
  yield* sql`CREATE TABLE training_pending (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    from_day TEXT NOT NULL,
    to_day TEXT
  )`
  yield* sql`CREATE TABLE activity_power_curve (
    activity_id TEXT NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
    duration INTEGER NOT NULL,
    watts REAL NOT NULL,
    sport_type TEXT NOT NULL,
    PRIMARY KEY (activity_id, duration)
  ) WITHOUT ROWID`
  yield* sql`CREATE INDEX activity_power_curve_best ON activity_power_curve (duration, watts)`
  yield* sql`CREATE INDEX activity_power_curve_best_by_sport ON activity_power_curve (duration, sport_type, watts)`
  yield* sql`CREATE TRIGGER activity_training_inputs
    AFTER UPDATE OF sport_type, start_date_local, moving_time, average_heart_rate ON activities
    WHEN OLD.sport_type IS NOT NEW.sport_type OR OLD.start_date_local IS NOT NEW.start_date_local
      OR OLD.moving_time IS NOT NEW.moving_time OR OLD.average_heart_rate IS NOT NEW.average_heart_rate
    BEGIN
      UPDATE activity_training SET stale = random() >> 11 WHERE activity_id = NEW.id;
      UPDATE activity_power_curve SET sport_type = NEW.sport_type WHERE activity_id = NEW.id AND OLD.sport_type IS NOT NEW.sport_type;
    END`
})
