import * as SqlClient from "@effect/sql/SqlClient"
import { SqliteClient, SqliteMigrator } from "@effect/sql-sqlite-node"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import initial from "./migrations/0001_initial.ts"
import readIndexes from "./migrations/0002_read_indexes.ts"
import exportMetadata from "./migrations/0003_export_metadata.ts"
import fileImportActivities from "./migrations/0004_file_import_activities.ts"
import statsIndexes from "./migrations/0005_stats_indexes.ts"
import sortIndexes from "./migrations/0006_sort_indexes.ts"
import sports from "./migrations/0007_sports.ts"
import training from "./migrations/0008_training.ts"
import athleteYear from "./migrations/0009_athlete_year.ts"
import importShapes from "./migrations/0010_import_shapes.ts"
import detailNames from "./migrations/0011_detail_names.ts"
import exportArchives from "./migrations/0012_export_archives.ts"
import unpackedEntries from "./migrations/0013_unpacked_entries.ts"
import segments from "./migrations/0014_segments.ts"
import sharing from "./migrations/0015_sharing.ts"
import trustedRecords from "./migrations/0016_trusted_records.ts"
import athleteEdits from "./migrations/0017_athlete_edits.ts"
import dateUnknown from "./migrations/0018_date_unknown.ts"
import segmentEffortsByDate from "./migrations/0019_segment_efforts_by_date.ts"
import { StoragePaths } from "./StoragePaths.ts"

/** Migrations by name, statically imported (a file-system loader breaks when bundled). */
export const MIGRATIONS = {
  "0001_initial": initial,
  "0002_read_indexes": readIndexes,
  "0003_export_metadata": exportMetadata,
  "0004_file_import_activities": fileImportActivities,
  "0005_stats_indexes": statsIndexes,
  "0006_sort_indexes": sortIndexes,
  "0007_sports": sports,
  "0008_training": training,
  "0009_athlete_year": athleteYear,
  "0010_import_shapes": importShapes,
  "0011_detail_names": detailNames,
  "0012_export_archives": exportArchives,
  "0013_unpacked_entries": unpackedEntries,
  "0014_segments": segments,
  "0015_sharing": sharing,
  "0016_trusted_records": trustedRecords,
  "0017_athlete_edits": athleteEdits,
  "0018_date_unknown": dateUnknown,
  "0019_segment_efforts_by_date": segmentEffortsByDate
}

export const migrations = SqliteMigrator.fromRecord(MIGRATIONS)

const pragmas = Layer.effectDiscard(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`PRAGMA foreign_keys = ON`
  yield* sql`PRAGMA busy_timeout = 5000`
  yield* sql`PRAGMA synchronous = NORMAL`
}))

const withMigrations = <E, R>(client: Layer.Layer<SqliteClient.SqliteClient | SqlClient.SqlClient, E, R>) =>
  Layer.provideMerge(
    Layer.merge(SqliteMigrator.layer({ loader: migrations }).pipe(Layer.provide(NodeContext.layer)), pragmas),
    client
  )

/** The embedded SQLite database at `<STORAGE_DIR>/database/waymark.sqlite` (WAL), migrated at start. */
export const DatabaseLive = withMigrations(
  Layer.unwrapEffect(Effect.map(StoragePaths, (paths) => SqliteClient.layer({ filename: paths.databaseFile })))
)
