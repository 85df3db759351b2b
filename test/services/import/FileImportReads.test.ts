import { describe, expect, it } from "@effect/vitest"
import { MAX_IMPORT_MESSAGE_LENGTH } from "../../../src/schema/ActivityLimits.ts"
import { FILE_IMPORT_COLUMNS, storedFileImportOf } from "../../../src/services/import/FileImportFields.ts"
import { type NamedActivity, toFileImport } from "../../../src/services/import/FileImportReads.ts"

/** A row's stored values, by column. */
const row = (ids: ReadonlyArray<string>): Record<string, unknown> => ({
  id: "fileImport-1",
  filename: "triathlon.fit",
  source: "fitFile",
  status: "success",
  error_message: null,
  activity_id: ids[0] ?? null,
  activity_ids: ids.length === 0 ? null : JSON.stringify(ids),
  notes: null,
  imported_on: Date.parse("2024-01-01T10:00:00Z")
})

/** The row as the import log's page reads it: its columns' values in the order of FILE_IMPORT_COLUMNS. */
const read = (columns: Record<string, unknown>) => storedFileImportOf(FILE_IMPORT_COLUMNS.map((column) => columns[column]))

/** The activities of a triathlon as the database names them. */
const LEGS: Readonly<Record<string, NamedActivity>> = {
  swim: { name: "Ironman swim", sportType: "Swim" },
  bike: { name: "Ironman bike", sportType: "Ride" },
  run: { name: "Ironman run", sportType: "Run" },
  ride: { name: "Morning ride", sportType: "Ride" }
}
const named = (exists: (id: string) => boolean) => (id: string): NamedActivity | undefined => (exists(id) ? LEGS[id] : undefined)

describe("a file import as served", () => {
  it("names only the activities that still exist, activityId being the first of them", () => {
    const gone = new Set(["swim"])
    const served = toFileImport(read(row(["swim", "bike", "run"])), named((id) => !gone.has(id)))
    expect([served.activityId, served.activityIds]).toEqual(["bike", ["bike", "run"]])
    // each leg with its name and sport, for the log to link every one
    expect(served.activities).toEqual([{ id: "bike", name: "Ironman bike", sportType: "Ride" }, { id: "run", name: "Ironman run", sportType: "Run" }])
  })

  it("names none, activityId null, once every activity of the file is deleted", () => {
    const served = toFileImport(read(row(["swim", "bike"])), named(() => false))
    expect([served.activityId, served.activityIds]).toEqual([null, []])
  })

  it("reads a row stored with its first activity only", () => {
    const served = toFileImport(read({ ...row(["ride"]), activity_ids: null }), named((id) => id === "ride"))
    expect([served.activityId, served.activityIds]).toEqual(["ride", ["ride"]])
  })

  it("serves the stored values read back through the field table: capped messages, the import's time to the second", () => {
    const served = toFileImport(read({ ...row([]), status: "failed", error_message: "x".repeat(100_000), imported_on: Date.parse("2024-01-01T10:00:00.750Z") }), named(() => true))
    expect(served.errorMessage!.length).toBeLessThanOrEqual(MAX_IMPORT_MESSAGE_LENGTH)
    expect(served).toMatchObject({ id: "fileImport-1", filename: "triathlon.fit", source: "fitFile", status: "failed", importedOn: "2024-01-01T10:00:00Z" })
  })
})
