import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { FileImportRepo, newFileImportId } from "../../src/services/import/FileImportRepo.ts"
import { seedActivity, send, TestDaemon } from "../support/TestDaemon.ts"
import { expectError } from "./helpers.ts"

const row = (filename: string, status: "success" | "skipped" | "failed", importedOn: number, activityId: string | null = null) => ({
  id: newFileImportId(),
  filename,
  source: filename.endsWith(".gpx") ? "gpxFile" as const : filename.endsWith(".tcx") ? "tcxFile" as const : "fitFile" as const,
  status,
  errorMessage: status === "failed" ? "The file could not be parsed." : status === "skipped" ? "Duplicate of activity-x" : null,
  activityId,
  importedOn,
  contentHash: filename,
  sourceSize: 1,
  sourceMtime: importedOn,
  originalFile: null
})

layer(TestDaemon.layer(), { excludeTestServices: true })("GET /api/v1/file-imports", (it) => {
  it.effect("queued files of the watch folder come first (id null), then stored imports newest first", () =>
    Effect.gen(function*() {
      const daemon = yield* TestDaemon
      const repo = yield* FileImportRepo
      const activity = yield* seedActivity()
      yield* repo.insert(row("old.fit", "success", Date.parse("2024-01-01T10:00:00Z"), activity))
      yield* repo.insert(row("new.tcx", "failed", Date.parse("2024-02-01T10:00:00Z")))
      yield* repo.insert(row("mid.gpx", "skipped", Date.parse("2024-01-15T10:00:00Z")))
      fs.writeFileSync(path.join(daemon.watchDir, "waiting.fit"), "x")
      // not imports: dot-files, partial downloads, other types, folders, the uploads folder
      for (const name of [".hidden.fit", "partial.fit.part", "connector.tmp", "notes.txt"]) fs.writeFileSync(path.join(daemon.watchDir, name), "x")
      fs.mkdirSync(path.join(daemon.watchDir, "sub.fit"))
      fs.writeFileSync(path.join(daemon.uploadsDir, "inflight.fit"), "x")

      const answer = yield* send("GET", "/api/v1/file-imports")
      expect(answer.status).toBe(200)
      expect(answer.json.fileImports.map((f: any) => [f.filename, f.status])).toEqual([
        ["waiting.fit", "queued"], ["new.tcx", "failed"], ["mid.gpx", "skipped"], ["old.fit", "success"]
      ])
      expect(answer.json.fileImports[0]).toEqual({
        id: null, filename: "waiting.fit", source: "fitFile", status: "queued", errorMessage: null, activityId: null, activityIds: [], activities: [], notes: null,
        importedOn: null
      })
      const success = answer.json.fileImports[3]
      expect(success.id).toMatch(/^fileImport-/)
      expect(success.activityId).toBe(activity)
      expect([success.activityIds, success.notes]).toEqual([[activity], null])
      expect(success.importedOn).toBe("2024-01-01T10:00:00Z")
      expect(answer.json.fileImports[1].errorMessage).toBe("The file could not be parsed.")
      expect(answer.json.pagination).toEqual({ page: 1, size: 25, total: 4, totalPages: 1 })
    }))

  it.effect("filters: status (queued always listed), source, exact filename", () =>
    Effect.gen(function*() {
      const names = (q: string) => Effect.map(send("GET", `/api/v1/file-imports?${q}`), (a) => {
        expect(a.status).toBe(200)
        return a.json.fileImports.map((f: any) => f.filename)
      })
      expect(yield* names("filters[status]=failed")).toEqual(["waiting.fit", "new.tcx"])
      expect(yield* names("filters[status]=success,skipped")).toEqual(["waiting.fit", "mid.gpx", "old.fit"])
      expect(yield* names("filters[status]=queued")).toEqual(["waiting.fit"])
      expect(yield* names("filters[source]=gpxFile,tcxFile")).toEqual(["new.tcx", "mid.gpx"])
      expect(yield* names("filters[filename]=old.fit")).toEqual(["old.fit"])
      expect(yield* names("filters[filename]=old")).toEqual([])
    }))

  it.effect("pages across queued and stored imports", () =>
    Effect.gen(function*() {
      const p1 = yield* send("GET", "/api/v1/file-imports?pagination[size]=3")
      const p2 = yield* send("GET", "/api/v1/file-imports?pagination[size]=3&pagination[page]=2")
      expect(p1.json.fileImports.map((f: any) => f.filename)).toEqual(["waiting.fit", "new.tcx", "mid.gpx"])
      expect(p2.json.fileImports.map((f: any) => f.filename)).toEqual(["old.fit"])
      expect(p2.json.pagination).toEqual({ page: 2, size: 3, total: 4, totalPages: 2 })
    }))

  for (const query of [
    "filters[status]=done", "filters[status]=success,nope", "filters[source]=stravaApi", "filters[source]=fit",
    "pagination[size]=101", "pagination[size]=0", "pagination[page]=0", "pagination[page]=x"
  ]) {
    it.effect(`400 bad_request for ${query}`, () =>
      Effect.gen(function*() {
        expectError(yield* send("GET", `/api/v1/file-imports?${query}`), 400, "bad_request")
      }))
  }
})
