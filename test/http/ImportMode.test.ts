import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { fileForm, PNG_1x1, seedActivity, send, snapshot, TestDaemon } from "../support/TestDaemon.ts"
import { expectError } from "./helpers.ts"

layer(TestDaemon.layer({ env: { IMPORT_MODE: "externalApi" } }), { excludeTestServices: true })("IMPORT_MODE=externalApi", (it) => {
  it.effect("status says canUpload: false", () =>
    Effect.gen(function*() {
      const answer = yield* send("GET", "/api/v1/status")
      expect(answer.json).toMatchObject({ app: "waymark", version: expect.stringMatching(/^v\d+\.\d+\.\d+/), canUpload: false })
    }))

  it.effect("upload, update, delete, add image and remove image answer 409 import_mode_not_files and write nothing", () =>
    Effect.gen(function*() {
      const id = yield* seedActivity()
      const before = yield* snapshot
      const writes = [
        send("POST", "/api/v1/activity/upload", { body: fileForm("ride.fit", "data") }),
        send("PATCH", `/api/v1/activities/${id}`, { json: { name: "x" } }),
        send("DELETE", `/api/v1/activities/${id}`),
        send("POST", `/api/v1/activities/${id}/images`, { body: fileForm("p.png", PNG_1x1) }),
        send("DELETE", `/api/v1/activities/${id}/images/activityImage-x`),
        // the mode is checked before the activity: an unknown one is 409 too
        send("PATCH", "/api/v1/activities/activity-nope", { json: { name: "x" } }),
        send("DELETE", "/api/v1/activities/activity-nope"),
        send("POST", "/api/v1/activities/activity-nope/images", { body: fileForm("p.png", PNG_1x1) }),
        send("DELETE", "/api/v1/activities/activity-nope/images/activityImage-x")
      ]
      for (const write of writes) expectError(yield* write, 409, "import_mode_not_files")
      expect(yield* snapshot).toEqual(before)
    }))

  it.effect("reads still work", () =>
    Effect.gen(function*() {
      expect((yield* send("GET", "/api/v1/activities")).status).toBe(200)
      expect((yield* send("GET", "/api/v1/file-imports")).status).toBe(200)
      expect((yield* send("POST", "/api/v1/athlete/weights", { json: { on: "2024-01-01", weight: 70 } })).status).toBe(200)
    }))
})

layer(TestDaemon.layer(), { excludeTestServices: true })("IMPORT_MODE=files (default)", (it) => {
  it.effect("status says canUpload: true", () =>
    Effect.gen(function*() {
      expect((yield* send("GET", "/api/v1/status")).json.canUpload).toBe(true)
    }))
})
