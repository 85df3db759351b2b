import { describe, expect, it } from "@effect/vitest"
import { type FileImportRow, toFileImport } from "../../../src/services/import/FileImportReads.ts"

const row = (ids: ReadonlyArray<string>): FileImportRow => ({
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

describe("a file import as served", () => {
  it("names only the activities that still exist, activityId being the first of them", () => {
    const gone = new Set(["swim"])
    const served = toFileImport(row(["swim", "bike", "run"]), (id) => !gone.has(id))
    expect([served.activityId, served.activityIds]).toEqual(["bike", ["bike", "run"]])
  })

  it("names none, activityId null, once every activity of the file is deleted", () => {
    const served = toFileImport(row(["swim", "bike"]), () => false)
    expect([served.activityId, served.activityIds]).toEqual([null, []])
  })

  it("reads a row stored with its first activity only", () => {
    const served = toFileImport({ ...row(["ride"]), activity_ids: null }, (id) => id === "ride")
    expect([served.activityId, served.activityIds]).toEqual(["ride", ["ride"]])
  })
})
