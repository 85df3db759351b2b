import { describe, expect, layer } from "@effect/vitest"
import * as HttpBody from "@effect/platform/HttpBody"
import { Effect } from "effect"
import { send, snapshot, TestDaemon } from "../support/TestDaemon.ts"
import { expectError } from "./helpers.ts"

describe("athlete weights", () => {
  layer(TestDaemon.layer(), { excludeTestServices: true })("/api/v1/athlete/weights", (it) => {
    it.effect("POST creates (200 {on, weight}), a second POST for the date replaces it; GET lists newest first", () =>
      Effect.gen(function*() {
        expect((yield* send("GET", "/api/v1/athlete/weights")).json).toEqual({ weights: [] })
        const created = yield* send("POST", "/api/v1/athlete/weights", { json: { on: "2024-03-01", weight: 72.5 } })
        expect(created.status).toBe(200)
        expect(created.json).toEqual({ on: "2024-03-01", weight: 72.5 })
        yield* send("POST", "/api/v1/athlete/weights", { json: { on: "2024-01-01", weight: 75 } })
        const replaced = yield* send("POST", "/api/v1/athlete/weights", { json: { weight: 71, on: "2024-03-01" } })
        expect(replaced.json).toEqual({ on: "2024-03-01", weight: 71 })
        const list = yield* send("GET", "/api/v1/athlete/weights")
        expect(list.json).toEqual({ weights: [{ on: "2024-03-01", weight: 71 }, { on: "2024-01-01", weight: 75 }] })
      }))

    it.effect("DELETE /{on} answers 204, whether or not a measurement existed", () =>
      Effect.gen(function*() {
        const gone = yield* send("DELETE", "/api/v1/athlete/weights/2024-01-01")
        expect(gone.status).toBe(204)
        expect(gone.text).toBe("")
        expect((yield* send("DELETE", "/api/v1/athlete/weights/1999-01-01")).status).toBe(204)
        expect((yield* send("GET", "/api/v1/athlete/weights")).json.weights).toEqual([{ on: "2024-03-01", weight: 71 }])
      }))

    for (const on of ["2026-02-29", "2024-13-01", "yesterday", "20240101", "2024-1-1"]) {
      it.effect(`DELETE /${on}: 400 bad_request, nothing removed`, () =>
        Effect.gen(function*() {
          const before = yield* snapshot
          expectError(yield* send("DELETE", `/api/v1/athlete/weights/${on}`), 400, "bad_request")
          expect(yield* snapshot).toEqual(before)
        }))
    }

    const badBodies: ReadonlyArray<[string, number, string, HttpBody.HttpBody]> = [
      ["a text/plain body", 415, "unsupported_media_type", HttpBody.text('{"on":"2024-05-01","weight":70}', "text/plain")],
      ["a form body", 415, "unsupported_media_type", HttpBody.text("on=2024-05-01&weight=70", "application/x-www-form-urlencoded")],
      ["no content type", 415, "unsupported_media_type", HttpBody.uint8Array(Buffer.from('{"on":"2024-05-01","weight":70}'))],
      ["broken JSON", 400, "bad_request", HttpBody.text('{"on":"2024-05-01",', "application/json")],
      ["an empty body", 400, "bad_request", HttpBody.text("", "application/json")],
      ["a JSON array", 400, "bad_request", HttpBody.text('[{"on":"2024-05-01","weight":70}]', "application/json")],
      ["a JSON number", 400, "bad_request", HttpBody.text("70", "application/json")],
      ["JSON null", 400, "bad_request", HttpBody.text("null", "application/json")],
      ["invalid UTF-8", 400, "bad_request", HttpBody.uint8Array(Buffer.concat([Buffer.from('{"on":"2024-05-01","weight":70,"x":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]), "application/json")],
      ["an unknown field", 400, "bad_request", HttpBody.text('{"on":"2024-05-01","weight":70,"unit":"kg"}', "application/json")],
      ["a missing date", 400, "bad_request", HttpBody.text('{"weight":70}', "application/json")],
      ["a missing weight", 400, "bad_request", HttpBody.text('{"on":"2024-05-01"}', "application/json")],
      ["an impossible date", 400, "bad_request", HttpBody.text('{"on":"2026-02-29","weight":70}', "application/json")],
      ["a date-time", 400, "bad_request", HttpBody.text('{"on":"2024-05-01T10:00:00","weight":70}', "application/json")],
      ["a numeric date", 400, "bad_request", HttpBody.text('{"on":20240501,"weight":70}', "application/json")],
      ["a weight of zero", 400, "bad_request", HttpBody.text('{"on":"2024-05-01","weight":0}', "application/json")],
      ["a negative weight", 400, "bad_request", HttpBody.text('{"on":"2024-05-01","weight":-70}', "application/json")],
      ["a weight as a string", 400, "bad_request", HttpBody.text('{"on":"2024-05-01","weight":"70"}', "application/json")],
      ["a weight of null", 400, "bad_request", HttpBody.text('{"on":"2024-05-01","weight":null}', "application/json")],
      ["an absurd weight", 400, "bad_request", HttpBody.text('{"on":"2024-05-01","weight":1e300}', "application/json")],
      ["a body over the limit", 413, "payload_too_large", HttpBody.text(JSON.stringify({ on: "2024-05-01", weight: 70, pad: "x".repeat(70_000) }), "application/json")]
    ]
    for (const [what, status, code, body] of badBodies) {
      it.effect(`POST with ${what}: ${status} ${code}, nothing written`, () =>
        Effect.gen(function*() {
          const before = yield* snapshot
          expectError(yield* send("POST", "/api/v1/athlete/weights", { body }), status, code)
          expect(yield* snapshot).toEqual(before)
        }))
    }

    it.effect("the 400 messages name the field", () =>
      Effect.gen(function*() {
        expect((yield* send("POST", "/api/v1/athlete/weights", { json: { weight: 70 } })).json.message).toContain('"on"')
        expect((yield* send("POST", "/api/v1/athlete/weights", { json: { on: "2024-05-01", weight: -1 } })).json.message).toContain('"weight"')
      }))

    it.effect("unknown fields are named, but an answer repeats at most 10 of them, each cut to 64 characters", () =>
      Effect.gen(function*() {
        const body: Record<string, unknown> = { on: "2024-05-01", weight: 70, ["k".repeat(60_000)]: 1 }
        for (let i = 0; i < 40; i++) body[`extra${i}`] = i
        const answer = yield* send("POST", "/api/v1/athlete/weights", { json: body })
        expectError(answer, 400, "bad_request")
        expect(answer.json.message).toBe(`Unknown field(s): ${"k".repeat(64)}…, ${Array.from({ length: 9 }, (_, i) => `extra${i}`).join(", ")} and 31 more. Allowed: on, weight.`)
      }))
  })

  layer(TestDaemon.layer({ env: { UNIT_SYSTEM: "imperial" } }), { excludeTestServices: true })("imperial", (it) => {
    it.effect("the number is stored and answered as sent (pounds), not converted", () =>
      Effect.gen(function*() {
        expect((yield* send("POST", "/api/v1/athlete/weights", { json: { on: "2024-05-01", weight: 160.4 } })).json.weight).toBe(160.4)
        expect((yield* send("GET", "/api/v1/athlete/weights")).json.weights).toEqual([{ on: "2024-05-01", weight: 160.4 }])
      }))
  })
})
