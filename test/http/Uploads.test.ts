import { describe, expect, layer } from "@effect/vitest"
import * as HttpBody from "@effect/platform/HttpBody"
import { SqlClient } from "@effect/sql"
import { Effect, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileForm, rawMultipart, send, snapshot, TestDaemon } from "../support/TestDaemon.ts"

/** Upload limits of this block: 1 KiB per file, 4 KiB per request, 8 KiB per archive. */
const LIMITS = { UPLOAD_MAX_FILESIZE: "1K", POST_MAX_SIZE: "4K", ARCHIVE_MAX_SIZE: "8K" }

const expectError = (answer: { status: number; json: any }, status: number, code: string) => {
  expect({ status: answer.status, error: answer.json?.error }).toEqual({ status, error: code })
  expect(Object.keys(answer.json).sort()).toEqual(["error", "message"])
  expect(answer.json.message.length).toBeGreaterThan(0)
}

const upload = (body: HttpBody.HttpBody) => send("POST", "/api/v1/activity/upload", { body })

/**
 * Runs `effect` while the import worker cannot finish a file: the test holds the database's
 * only connection in a transaction, and the worker removes a file from the watch folder only
 * after writing its row. An upload is imported at once; without this its file could be gone
 * before the test looks at the watch folder. The upload path itself never touches the database.
 */
const importsHeld = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(effect))

const watchFiles = Effect.map(TestDaemon, (d) => fs.readdirSync(d.watchDir).filter((n) => !n.startsWith(".")).sort())

describe("POST /api/v1/activity/upload", () => {
  layer(TestDaemon.layer({ env: LIMITS }), { excludeTestServices: true })("accepted uploads", (it) => {
    it.effect("202 queued: the file lands in the watch folder under its name, nothing is left in .uploads", () =>
      importsHeld(Effect.gen(function*() {
        const daemon = yield* TestDaemon
        const answer = yield* upload(fileForm("morning.fit", "FIT bytes"))
        expect(answer.status).toBe(202)
        expect(answer.json).toEqual({ status: "queued", message: expect.any(String) })
        expect(fs.readFileSync(path.join(daemon.watchDir, "morning.fit"), "utf8")).toBe("FIT bytes")
        expect(fs.readdirSync(daemon.uploadsDir)).toEqual([])
      })))

    it.effect("a name clash gets -1, -2 before the extension; nothing is overwritten", () =>
      importsHeld(Effect.gen(function*() {
        const daemon = yield* TestDaemon
        expect((yield* upload(fileForm("clash.gpx", "one"))).status).toBe(202)
        expect((yield* upload(fileForm("clash.gpx", "two"))).status).toBe(202)
        expect((yield* upload(fileForm("clash.gpx", "three"))).status).toBe(202)
        expect(fs.readFileSync(path.join(daemon.watchDir, "clash.gpx"), "utf8")).toBe("one")
        expect(fs.readFileSync(path.join(daemon.watchDir, "clash-1.gpx"), "utf8")).toBe("two")
        expect(fs.readFileSync(path.join(daemon.watchDir, "clash-2.gpx"), "utf8")).toBe("three")
      })))

    it.effect("the extension is matched in any case; tcx and gpx are accepted; UTF-8 names are kept", () =>
      importsHeld(Effect.gen(function*() {
        for (const name of ["UPPER.TCX", "route.Gpx", "Rit naar Gent – été.fit", "骑行 🚴.fit"]) {
          expect((yield* upload(fileForm(name, "x"))).status).toBe(202)
        }
        const files = yield* watchFiles
        expect(files).toContain("UPPER.tcx")
        expect(files).toContain("route.gpx")
        expect(files).toContain("Rit naar Gent – été.fit")
        expect(files).toContain("骑行 🚴.fit")
      })))

    it.effect("gzipped activity files are accepted under their name, a second one of the same name numbered before .fit.gz", () =>
      Effect.gen(function*() {
        for (const name of ["export.fit.gz", "export.fit.gz", "Track.GPX.GZ", "run.tcx.gz"]) {
          expect((yield* upload(fileForm(name, "x"))).status).toBe(202)
        }
        const files = yield* watchFiles
        expect(files).toContain("export.fit.gz")
        expect(files).toContain("export-1.fit.gz")
        expect(files).toContain("Track.gpx.gz")
        expect(files).toContain("run.tcx.gz")
      }))

    it.effect("a zip (a Strava bulk export) is accepted: it is unpacked in the watch folder", () =>
      Effect.gen(function*() {
        expect((yield* upload(fileForm("export_12345.ZIP", "PK"))).status).toBe(202)
      }))

    it.effect("an archive is held to ARCHIVE_MAX_SIZE, not to a single file's or a request's limit", () =>
      Effect.gen(function*() {
        // 6 KB: over UPLOAD_MAX_FILESIZE and POST_MAX_SIZE, within ARCHIVE_MAX_SIZE
        expect((yield* upload(fileForm("whole-history.zip", Buffer.alloc(6 * 1024, 1)))).status).toBe(202)
        expect((yield* upload(fileForm("whole-history.zip", Buffer.alloc(8 * 1024, 1)))).status).toBe(202)
      }))

    it.effect("a file of exactly the size limit and a 200-byte name are accepted", () =>
      importsHeld(Effect.gen(function*() {
        const name = "a".repeat(196) + ".fit"
        expect(Buffer.byteLength(name)).toBe(200)
        expect((yield* upload(fileForm(name, Buffer.alloc(1024, 1)))).status).toBe(202)
        expect(yield* watchFiles).toContain(name)
      })))

    it.effect("other parts beside `file` are ignored", () =>
      importsHeld(Effect.gen(function*() {
        const answer = yield* upload(rawMultipart([
          { name: "note", content: "hello", contentType: "text/plain" },
          { name: "file", filename: "with-note.fit", content: "data" }
        ]))
        expect(answer.status).toBe(202)
        expect(yield* watchFiles).toContain("with-note.fit")
      })))

    it.effect("an upload is listed by GET /file-imports: queued, then with the outcome of its import", () =>
      Effect.gen(function*() {
        expect((yield* upload(fileForm("listed.fit", "not a FIT file"))).status).toBe(202)
        // the worker takes the file at once: whichever the listing shows, it is this upload
        const answer = yield* send("GET", "/api/v1/file-imports?filters[filename]=listed.fit")
        const entries = answer.json.fileImports as Array<Record<string, unknown>>
        expect(entries.length).toBeGreaterThan(0)
        for (const entry of entries) {
          expect(entry).toEqual(
            entry.status === "queued"
              ? { id: null, filename: "listed.fit", source: "fitFile", status: "queued", errorMessage: null, activityId: null, activityIds: [], activities: [], notes: null, importedOn: null }
              : { id: expect.stringMatching(/^fileImport-/), filename: "listed.fit", source: "fitFile", status: "failed", errorMessage: expect.any(String), activityId: null, activityIds: [], activities: [], notes: null, importedOn: expect.any(String) }
          )
        }
      }))
  })

  layer(TestDaemon.layer({ env: LIMITS }), { excludeTestServices: true })("refused uploads write nothing", (it) => {
    const refused = (what: string, status: number, code: string, body: () => HttpBody.HttpBody, headers?: Record<string, string>) =>
      it.effect(`${status} ${code}: ${what}`, () =>
        Effect.gen(function*() {
          const before = yield* snapshot
          const answer = yield* send("POST", "/api/v1/activity/upload", { body: body(), ...(headers ? { headers } : {}) })
          expectError(answer, status, code)
          expect(yield* snapshot).toEqual(before)
        }))

    // 415: not multipart/form-data
    refused("a JSON body", 415, "unsupported_media_type", () => HttpBody.text('{"file":"x"}', "application/json"))
    refused("a raw octet-stream body", 415, "unsupported_media_type", () => HttpBody.uint8Array(Buffer.from("FIT"), "application/octet-stream"))
    refused("a urlencoded form", 415, "unsupported_media_type", () => HttpBody.text("file=x", "application/x-www-form-urlencoded"))
    refused("multipart/mixed", 415, "unsupported_media_type", () => HttpBody.text("--b\r\n\r\nx\r\n--b--", "multipart/mixed; boundary=b"))
    refused("no body and no content type", 415, "unsupported_media_type", () => HttpBody.empty)

    // 400: no usable file part
    refused("no file part at all", 400, "missing_file", () => rawMultipart([{ name: "note", content: "x", contentType: "text/plain" }]))
    refused("the file under another field name", 400, "missing_file", () => fileForm("ride.fit", "data", "upload"))
    refused("a `file` field that is not a file", 400, "missing_file", () => {
      const form = new FormData()
      form.append("file", "ride.fit")
      return HttpBody.formData(form)
    })
    refused("an empty file", 400, "missing_file", () => fileForm("ride.fit", ""))
    refused("an empty multipart body", 400, "missing_file", () => HttpBody.text("", "multipart/form-data; boundary=xyz"))
    refused("a multipart body without a boundary", 400, "missing_file", () => HttpBody.text("garbage", "multipart/form-data"))
    refused("a truncated multipart body", 400, "missing_file", () =>
      HttpBody.text('--xyz\r\nContent-Disposition: form-data; name="file"; filename="r.fit"\r\n\r\nabc', "multipart/form-data; boundary=xyz"))

    // 413: over the limits
    refused("a file one byte over UPLOAD_MAX_FILESIZE", 413, "file_too_large", () => fileForm("big.fit", Buffer.alloc(1025, 1)))
    refused("an archive one byte over ARCHIVE_MAX_SIZE", 413, "file_too_large", () => fileForm("big.zip", Buffer.alloc(8 * 1024 + 1, 1)))
    refused("an activity file as large as an archive may be", 413, "file_too_large", () => fileForm("big.gpx", Buffer.alloc(6 * 1024, 1)))
    refused("a request over POST_MAX_SIZE", 413, "file_too_large", () => fileForm("huge.fit", Buffer.alloc(5000, 1)))
    refused("a too large file after a small one", 413, "file_too_large", () =>
      rawMultipart([
        { name: "other", filename: "small.fit", content: "x" },
        { name: "file", filename: "big.fit", content: Buffer.alloc(2000, 1) }
      ]))

    it.effect("a 413 names the limit, the setting that raises it and the watch folder for big files", () =>
      Effect.gen(function*() {
        const watch = "or copy the file into the watch folder (WATCH_DIR), which imports activity files up to 64 MB."
        const archives = "An export archive (.zip) may have up to 8 KB (ARCHIVE_MAX_SIZE)."
        const file = yield* upload(fileForm("big.fit", Buffer.alloc(1025, 1)))
        expect(file.json.message).toBe(
          `The uploaded file is too large: at most 1 KB is accepted (UPLOAD_MAX_FILESIZE). ${archives} Raise UPLOAD_MAX_FILESIZE in the service's settings, ${watch}`
        )
        const request = yield* upload(fileForm("huge.fit", Buffer.alloc(5000, 1)))
        expect(request.json.message).toBe(
          `The upload is too large: at most 4 KB is accepted per request (POST_MAX_SIZE), 1 KB per file (UPLOAD_MAX_FILESIZE). ${archives} Raise POST_MAX_SIZE in the service's settings, ${watch}`
        )
        const archive = yield* upload(fileForm("big.zip", Buffer.alloc(8 * 1024 + 1, 1)))
        expect(archive.json.message).toBe(
          "The uploaded archive is too large: at most 8 KB is accepted (ARCHIVE_MAX_SIZE). Raise ARCHIVE_MAX_SIZE in the service's settings."
        )
      }))

    // 422: unusable names
    const badNames: ReadonlyArray<[string, string | Uint8Array]> = [
      ["an unsupported extension", "notes.txt"],
      ["a double extension ending wrong", "ride.fit.txt"],
      ["a .gz of no activity type", "notes.txt.gz"],
      ["only .gz", "ride.gz"],
      ["no extension", "ride"],
      ["only an extension", ".fit"],
      ["an empty stem before the dot", " .fit"],
      ["a control character", "ri\x01de.fit"],
      ["a DEL character", "ride\x7f.fit"],
      ["a tab", "ride\t1.fit"],
      ["a NUL byte", "ride\x00.fit"],
      ["invalid UTF-8 bytes", Buffer.concat([Buffer.from("ride"), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(".fit")])],
      ["a lone continuation byte", Buffer.concat([Buffer.from("r"), Buffer.from([0x80]), Buffer.from(".gpx")])],
      ["a forward slash path", "../../etc/ride.fit"],
      ["a directory prefix", "sub/ride.fit"],
      ["a Windows path", "C:\\Users\\me\\ride.fit"],
      ["a 201-byte name", "a".repeat(197) + ".fit"],
      ["a name over 200 bytes in multibyte characters", "é".repeat(99) + ".fit"]
    ]
    for (const [what, name] of badNames) {
      refused(`a file name with ${what}`, 422, "unsupported_file_type", () => rawMultipart([{ name: "file", filename: name, content: "data" }]))
    }

    it.effect("the 422 messages say what is wrong with the name", () =>
      Effect.gen(function*() {
        const one = (name: string | Uint8Array) => Effect.map(upload(rawMultipart([{ name: "file", filename: name, content: "d" }])), (a) => a.json.message as string)
        expect(yield* one("notes.txt")).toMatch(/not supported/)
        expect(yield* one("a".repeat(197) + ".fit")).toContain("200 bytes")
        expect(yield* one("ri\x01de.fit")).toMatch(/not valid/)
      }))

    for (const [what, chunks] of [
      ["empty", []],
      ["without any boundary", [Buffer.from("just some bytes")]],
      ["cut off inside the part headers", [Buffer.from('--xyz\r\nContent-Disposition: form-data; name="file"; filen')]]
    ] as const) {
      it.effect(`a chunked multipart body ${what} answers 400 at once, writing nothing`, () =>
        Effect.gen(function*() {
          const before = yield* snapshot
          const answer = yield* send("POST", "/api/v1/activity/upload", {
            body: HttpBody.stream(Stream.fromIterable(chunks), "multipart/form-data; boundary=xyz")
          }).pipe(Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("no answer within 5 s") }))
          expectError(answer, 400, "missing_file")
          expect(yield* snapshot).toEqual(before)
        }))
    }

    it.effect("a chunked body (no Content-Length) over the limits is cut off while reading", () =>
      Effect.gen(function*() {
        const before = yield* snapshot
        const bytes = Buffer.concat([
          Buffer.from('--xyz\r\nContent-Disposition: form-data; name="file"; filename="chunked.fit"\r\n\r\n'),
          Buffer.alloc(6000, 1),
          Buffer.from("\r\n--xyz--\r\n")
        ])
        const answer = yield* send("POST", "/api/v1/activity/upload", {
          body: HttpBody.stream(Stream.make(bytes.subarray(0, 3000), bytes.subarray(3000)), "multipart/form-data; boundary=xyz")
        })
        expectError(answer, 413, "file_too_large")
        expect(yield* snapshot).toEqual(before)
      }))
  })
})
