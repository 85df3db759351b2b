import { describe, expect, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as fs from "node:fs"
import { utcDay } from "../../src/services/platform/Logs.ts"
import { allLogText, fileForm, readChannel, send, snapshot, TestDaemon } from "../support/TestDaemon.ts"
import { expectError } from "./helpers.ts"

describe("errors outside the handlers", () => {
  layer(TestDaemon.layer(), { excludeTestServices: true })("404 and 405", (it) => {
    for (const path of ["/api/v1/nope", "/api/v1", "/api/v1/", "/api/v1/activities/a/b/c", "/api/v1/athlete", "/api/v1/status/extra"]) {
      it.effect(`GET ${path}: 404 not_found`, () =>
        Effect.gen(function*() {
          const answer = yield* send("GET", path)
          expectError(answer, 404, "not_found")
        }))
    }

    const wrongMethods: ReadonlyArray<[string, string, string]> = [
      ["POST", "/api/v1/status", "GET"],
      ["PUT", "/api/v1/activity/upload", "POST"],
      ["GET", "/api/v1/activity/upload", "POST"],
      ["POST", "/api/v1/activities", "GET"],
      ["PUT", "/api/v1/activities/activity-x", "GET, PATCH, DELETE"],
      ["POST", "/api/v1/activities/activity-x/gpx", "GET"],
      ["GET", "/api/v1/activities/activity-x/images", "POST"],
      ["GET", "/api/v1/activities/activity-x/images/activityImage-x", "DELETE"],
      ["DELETE", "/api/v1/gear", "GET, POST"],
      ["POST", "/api/v1/gear/gear-x", "GET, PATCH, DELETE"],
      ["POST", "/api/v1/activities/activity-x/streams", "GET"],
      ["GET", "/api/v1/file-imports/fileImport-x/retry", "POST"],
      ["POST", "/api/v1/stats/totals", "GET"],
      ["PATCH", "/api/v1/athlete/weights", "GET, POST"],
      ["GET", "/api/v1/athlete/weights/2024-01-01", "DELETE"]
    ]
    for (const [method, path, allow] of wrongMethods) {
      it.effect(`${method} ${path}: 405 method_not_allowed with Allow: ${allow}`, () =>
        Effect.gen(function*() {
          const before = yield* snapshot
          const answer = yield* send(method as "GET", path)
          expectError(answer, 405, "method_not_allowed")
          expect(answer.headers["allow"]!.split(/,\s*/).sort()).toEqual(allow.split(", ").sort())
          expect(yield* snapshot).toEqual(before)
        }))
    }

    it.effect("outside /api/v1 an unknown path is a plain 404", () =>
      Effect.gen(function*() {
        const answer = yield* send("GET", "/nope", { key: null })
        expect(answer.status).toBe(404)
      }))
  })

  layer(TestDaemon.layer(), { excludeTestServices: true })("500", (it) => {
    it.effect("an unexpected failure is 500 internal_error with a short reference that the errors log repeats with method, path and stack", () =>
      Effect.gen(function*() {
        const daemon = yield* TestDaemon
        const sql = yield* SqlClient.SqlClient
        yield* sql`DROP TABLE weights`.pipe(Effect.orDie)
        const answer = yield* send("GET", "/api/v1/athlete/weights?x=1")
        expectError(answer, 500, "internal_error")
        const reference = /\b([0-9a-f]{8})\b/.exec(answer.json.message)?.[1]
        expect(reference).toBeDefined()
        expect(answer.json.message).not.toContain("weights")  // no internals leak to the client

        const file = `${daemon.logsDir}/errors-${utcDay(new Date())}.log`
        expect(fs.existsSync(file)).toBe(true)
        const lines = yield* readChannel("errors")
        const line = lines.find((l) => JSON.stringify(l).includes(reference!))
        expect(line).toBeDefined()
        expect(line!.message).toContain(reference)
        expect(line!.message).toContain("GET /api/v1/athlete/weights")
        expect(JSON.stringify(line)).toMatch(/no such table: weights/)
        expect(JSON.stringify(line)).toMatch(/at .*\.(ts|js)/)  // a stack trace
        expect(yield* allLogText).not.toContain(daemon.apiKey)
      }))
  })

  layer(TestDaemon.layer(), { excludeTestServices: true })("500 on upload", (it) => {
    it.effect("a watch folder that refuses the file is 500 internal_error with a logged reference; nothing queued", () =>
      Effect.gen(function*() {
        const daemon = yield* TestDaemon
        // the name is taken by a folder 10 000 times over: deliver finds no free name
        fs.mkdirSync(`${daemon.watchDir}/taken.fit`)
        for (let i = 1; i < 10_000; i++) fs.mkdirSync(`${daemon.watchDir}/taken-${i}.fit`)
        const answer = yield* send("POST", "/api/v1/activity/upload", { body: fileForm("taken.fit", "data") })
        expectError(answer, 500, "internal_error")
        const reference = /Reference: ([0-9a-f]{8})\./.exec(answer.json.message)?.[1]
        expect(reference).toBeDefined()
        expect((yield* readChannel("errors")).some((l) => l.message.startsWith(`${reference} - POST /api/v1/activity/upload`))).toBe(true)
        expect(fs.readdirSync(daemon.uploadsDir)).toEqual([])
      }))

    it.effect("an upload that cannot be stored is 500 internal_error, logged with its reference; nothing is left behind", () =>
      Effect.gen(function*() {
        const daemon = yield* TestDaemon
        fs.rmSync(daemon.uploadsDir, { recursive: true })
        fs.writeFileSync(daemon.uploadsDir, "in the way")
        const before = yield* snapshot
        const answer = yield* send("POST", "/api/v1/activity/upload", { body: fileForm("ride.fit", "data") })
        fs.rmSync(daemon.uploadsDir)
        fs.mkdirSync(daemon.uploadsDir)
        expectError(answer, 500, "internal_error")
        expect(answer.json.message).toMatch(/^The upload could not be stored\. Reference: [0-9a-f]{8}\.$/)
        const reference = /\b([0-9a-f]{8})\b/.exec(answer.json.message)?.[1]
        expect(reference).toBeDefined()
        const lines = yield* readChannel("errors")
        const line = lines.find((l) => l.message.includes(reference!))
        expect(line?.message).toContain("POST /api/v1/activity/upload")
        const after = yield* snapshot
        expect(after.watch.filter((f) => !f.startsWith(".uploads"))).toEqual(before.watch.filter((f) => !f.startsWith(".uploads")))
        expect(after.tables).toEqual(before.tables)
      }))
  })
})
