import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import { fileForm, PNG_1x1, readChannel, seedActivity, send, snapshot, TestDaemon } from "../support/TestDaemon.ts"
import { withFullDisk } from "./fullDisk.ts"
import { expectError } from "./helpers.ts"

/**
 * API writes on a full disk answer 507 insufficient_storage saying so, store nothing (no
 * partial file, no row), and work again once space returns. The disk is filled by fault
 * injection: file writes fail with ENOSPC, SQLite writes with SQLITE_FULL.
 */

const expectDiskFull = (answer: { status: number; json: any }) => {
  expectError(answer, 507, "insufficient_storage")
  expect(answer.json.message).toMatch(/disk is full/i)
}

const files = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => fs.statSync(`${dir}/${n}`).isFile()) : [])

describe("a full disk", () => {
  layer(TestDaemon.layer(), { excludeTestServices: true })("API writes", (it) => {
    it.effect("an upload whose bytes cannot be written answers 507; nothing is left in the watch folder or .uploads", () =>
      Effect.gen(function*() {
        const daemon = yield* TestDaemon
        const before = yield* snapshot
        expectDiskFull(yield* withFullDisk(send("POST", "/api/v1/activity/upload", { body: fileForm("full.fit", "FIT bytes") }), { database: false }))
        expect(yield* snapshot).toEqual(before)
        expect(files(daemon.uploadsDir)).toEqual([])
        // space is back: the same upload is taken
        expect((yield* send("POST", "/api/v1/activity/upload", { body: fileForm("full.fit", "FIT bytes") })).status).toBe(202)
      }))

    it.effect("an image that cannot be written, or whose row cannot be stored, answers 507; no file, no row", () =>
      Effect.gen(function*() {
        const daemon = yield* TestDaemon
        const id = yield* seedActivity()
        const before = yield* snapshot
        const post = send("POST", `/api/v1/activities/${id}/images`, { body: fileForm("photo.png", PNG_1x1) })
        expectDiskFull(yield* withFullDisk(post, { database: false }))
        expect(yield* snapshot).toEqual(before)
        // the file fits, the database is full: the kept file is removed again
        expectDiskFull(yield* withFullDisk(post, { files: false }))
        expect(yield* snapshot).toEqual(before)
        expect(files(daemon.imagesDir)).toEqual([])
        expect((yield* post).status).toBe(201)
      }))

    it.effect("PATCH of an activity answers 507 and leaves it as it was", () =>
      Effect.gen(function*() {
        const id = yield* seedActivity({ name: "Before" })
        const patch = send("PATCH", `/api/v1/activities/${id}`, { json: { name: "After", description: "x".repeat(5_000) } })
        expectDiskFull(yield* withFullDisk(patch))
        expect((yield* send("GET", `/api/v1/activities/${id}`)).json.name).toBe("Before")
        expect((yield* patch).json.name).toBe("After")
      }))

    it.effect("POST and DELETE of a weight answer 507 and change nothing", () =>
      Effect.gen(function*() {
        const post = send("POST", "/api/v1/athlete/weights", { json: { on: "2024-05-01", weight: 70 } })
        expectDiskFull(yield* withFullDisk(post))
        expect((yield* send("GET", "/api/v1/athlete/weights")).json.weights).toEqual([])
        expect((yield* post).status).toBe(200)
        expectDiskFull(yield* withFullDisk(send("DELETE", "/api/v1/athlete/weights/2024-05-01")))
        expect((yield* send("GET", "/api/v1/athlete/weights")).json.weights).toEqual([{ on: "2024-05-01", weight: 70 }])
      }))

    it.effect("DELETE of an activity answers 507 and keeps it", () =>
      Effect.gen(function*() {
        const id = yield* seedActivity()
        expectDiskFull(yield* withFullDisk(send("DELETE", `/api/v1/activities/${id}`)))
        expect((yield* send("GET", `/api/v1/activities/${id}`)).status).toBe(200)
      }))

    it.effect("a 507 is logged in the errors channel (when the log file can still be written); reads keep working on a full disk", () =>
      Effect.gen(function*() {
        expectDiskFull(yield* withFullDisk(send("POST", "/api/v1/athlete/weights", { json: { on: "2024-06-01", weight: 71 } }), { files: false }))
        const lines = yield* readChannel("errors")
        expect(lines.some((l) => l.level === "ERROR" && l.message === "POST /api/v1/athlete/weights: the disk is full, nothing was stored")).toBe(true)
        expect(lines.some((l) => /Reference/.test(l.message))).toBe(false)
        const status = yield* withFullDisk(send("GET", "/api/v1/status"))
        expect(status.status).toBe(200)
      }))
  })
})
