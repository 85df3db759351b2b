import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE, readCorpusFile } from "../support/corpus.ts"
import { dayStart, dropFile, fitActivity, gpxActivity, importRows, waitFor, waitForGone, waitForRow } from "../support/ImportHarness.ts"
import { send, TestDaemon } from "../support/TestDaemon.ts"
import { expectError } from "./helpers.ts"

/** POST /file-imports/{id}/retry and DELETE /file-imports/{id} on rows of real corpus files. */

if (!CORPUS_DIR) console.log(CORPUS_MISSING_MESSAGE)

const importOf = (file: string, name = file.slice(file.lastIndexOf("/") + 1)) =>
  Effect.gen(function*() {
    const daemon = yield* TestDaemon
    dropFile(daemon.watchDir, name, readCorpusFile(file))
    return yield* waitForRow(name)
  })

layer(TestDaemon.layer(), { excludeTestServices: true })("retrying and removing file imports", (it) => {
  it.effect.skipIf(!CORPUS_DIR)("retry: a failed file is queued again from its kept original (202); the new import replaces the failed row", () =>
    Effect.gen(function*() {
      const daemon = yield* TestDaemon
      const failed = yield* importOf("bad/sigma-truncated-no-crc.fit")
      expect(failed.status).toBe("failed")
      expect(fs.existsSync(path.join(daemon.originalsDir, failed.original_file!))).toBe(true)
      const answer = yield* send("POST", `/api/v1/file-imports/${failed.id}/retry`)
      expect(answer.status).toBe(202)
      expect(answer.json).toEqual({ status: "queued", message: expect.stringContaining('"sigma-truncated-no-crc.fit"') })
      // the same bytes fail again, in a row of their own
      const again = yield* waitFor("the new import row", Effect.map(importRows("sigma-truncated-no-crc.fit"), (rows) => rows.find((r) => r.id !== failed.id)))
      expect(again.status).toBe("failed")
      expect((yield* importRows("sigma-truncated-no-crc.fit")).map((r) => r.id)).toEqual([again.id])
      expect(fs.existsSync(path.join(daemon.originalsDir, failed.original_file!))).toBe(false)
      expectError(yield* send("POST", `/api/v1/file-imports/${failed.id}/retry`), 404, "not_found")
    }))

  it.effect.skipIf(!CORPUS_DIR)("retry of a successful or skipped import is 409 file_import_status_conflict; of an unknown one 404", () =>
    Effect.gen(function*() {
      const success = yield* importOf("fit/garmin-fenix5-run.fit")
      expect(success.status).toBe("success")
      const skipped = yield* importOf("fit/garmin-fenix5-run.fit", "again.fit")
      expect(skipped.status).toBe("skipped")
      expectError(yield* send("POST", `/api/v1/file-imports/${success.id}/retry`), 409, "file_import_status_conflict")
      expectError(yield* send("POST", `/api/v1/file-imports/${skipped.id}/retry`), 409, "file_import_status_conflict")
      expectError(yield* send("POST", "/api/v1/file-imports/fileImport-nope/retry"), 404, "not_found")

      // delete: the skipped row goes (204); the successful one stays with its activity (409)
      const removed = yield* send("DELETE", `/api/v1/file-imports/${skipped.id}`)
      expect(removed.status).toBe(204)
      expect(yield* importRows("again.fit")).toEqual([])
      expectError(yield* send("DELETE", `/api/v1/file-imports/${success.id}`), 409, "file_import_status_conflict")
      expect((yield* send("GET", `/api/v1/activities/${success.activity_id}`)).status).toBe(200)
      expectError(yield* send("DELETE", "/api/v1/file-imports/fileImport-nope"), 404, "not_found")
    }))

  it.effect("delete: a skipped recording of an existing activity (a GPX of a ride imported as FIT) keeps its original until its row is removed (204)", () =>
    Effect.gen(function*() {
      const daemon = yield* TestDaemon
      dropFile(daemon.watchDir, "ride.fit", fitActivity({ start: dayStart(40), seconds: 3600, sport: "cycling" }))
      expect((yield* waitForRow("ride.fit")).status).toBe("success")
      const gpx = gpxActivity({ start: new Date(dayStart(40).getTime() + 20_000), seconds: 3500, type: "cycling" })
      dropFile(daemon.watchDir, "ride-phone.gpx", gpx)
      const skipped = yield* waitForRow("ride-phone.gpx")
      expect(skipped.status).toBe("skipped")
      const original = path.join(daemon.originalsDir, skipped.original_file!)
      expect(fs.readFileSync(original, "utf8")).toBe(gpx)
      yield* waitForGone(path.join(daemon.watchDir, "ride-phone.gpx"))
      expect((yield* send("DELETE", `/api/v1/file-imports/${skipped.id}`)).status).toBe(204)
      expect(yield* importRows("ride-phone.gpx")).toEqual([])
      expect(fs.existsSync(original)).toBe(false)
    }))

  it.effect.skipIf(!CORPUS_DIR)("delete: a failed row and its kept original are removed (204)", () =>
    Effect.gen(function*() {
      const daemon = yield* TestDaemon
      const failed = yield* importOf("bad/gpsbabel-error-text-not-xml.gpx")
      expect(failed.status).toBe("failed")
      const original = path.join(daemon.originalsDir, failed.original_file!)
      expect(fs.existsSync(original)).toBe(true)
      const answer = yield* send("DELETE", `/api/v1/file-imports/${failed.id}`)
      expect(answer.status).toBe(204)
      expect(yield* importRows("gpsbabel-error-text-not-xml.gpx")).toEqual([])
      expect(fs.existsSync(original)).toBe(false)
      const list = (yield* send("GET", "/api/v1/file-imports?filters[status]=failed")).json.fileImports
      expect(list.find((f: any) => f.id === failed.id)).toBeUndefined()
    }))
})

layer(TestDaemon.layer({ env: { IMPORT_MODE: "externalApi" } }), { excludeTestServices: true })("retry with IMPORT_MODE=externalApi", (it) => {
  it.effect("is refused with 409 import_mode_not_files, like an upload", () =>
    Effect.gen(function*() {
      expectError(yield* send("POST", "/api/v1/file-imports/fileImport-any/retry"), 409, "import_mode_not_files")
    }))
})
