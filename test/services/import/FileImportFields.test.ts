import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { SqliteClient, SqliteMigrator } from "@effect/sql-sqlite-node"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect } from "effect"
import { migrations } from "../../../src/services/platform/Database.ts"
import { FILE_IMPORT_COLUMNS, fileImportColumns, storedFileImportOf } from "../../../src/services/import/FileImportFields.ts"
import type { NewFileImport } from "../../../src/services/import/FileImportRepo.ts"

/** The import log's field table against the migrated `file_imports` table: what is written is what is read back. */

const newRow: NewFileImport = {
  id: "fileImport-1",
  filename: "2024/triathlon.fit",
  source: "fitFile",
  status: "success",
  errorMessage: null,
  activityId: "activity-swim",
  activityIds: ["activity-swim", "activity-bike"],
  notes: "2 impossible heart rate samples dropped",
  importedOn: Date.parse("2024-01-01T10:00:00Z"),
  contentHash: "abc",
  sourceSize: 1234,
  sourceMtime: 5678,
  originalFile: "abc.fit"
}

describe("FileImportFields", () => {
  it.effect("writes exactly the columns of the migrated table, and the page's columns read the row back", () =>
    Effect.gen(function*() {
      yield* SqliteMigrator.run({ loader: migrations }).pipe(Effect.provide(NodeContext.layer))
      const sql = yield* SqlClient.SqlClient
      const table = (yield* sql<{ name: string }>`SELECT name FROM pragma_table_info('file_imports')`).map((c) => c.name)
      expect(Object.keys(fileImportColumns(newRow)).sort()).toEqual([...table].sort())

      // the activities the row names are not there: this is about the row alone
      yield* sql`PRAGMA foreign_keys = OFF`
      yield* sql`INSERT INTO file_imports ${sql.insert(fileImportColumns(newRow))}`
      const [values] = yield* sql.unsafe<ReadonlyArray<unknown>>(`SELECT ${FILE_IMPORT_COLUMNS.join(", ")} FROM file_imports`).values
      expect(storedFileImportOf(values!)).toEqual({
        id: "fileImport-1",
        filename: "2024/triathlon.fit",
        source: "fitFile",
        status: "success",
        errorMessage: null,
        activityIds: ["activity-swim", "activity-bike"],
        notes: "2 impossible heart rate samples dropped",
        importedOn: "2024-01-01T10:00:00Z"
      })
    }).pipe(Effect.provide(SqliteClient.layer({ filename: ":memory:" }))))
})
