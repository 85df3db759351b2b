import { describe, expect, layer } from "@effect/vitest"
import * as HttpBody from "@effect/platform/HttpBody"
import { Effect } from "effect"
import { MAX_JSON_DEPTH } from "../../src/http/JsonBody.ts"
import { seedActivity, send, snapshot, TestDaemon } from "../support/TestDaemon.ts"
import { expectError } from "./helpers.ts"

/** `{"<field>": [[[ ... ]]]}` with `depth` levels of arrays and objects in all. */
const nested = (field: string, depth: number) => `{"${field}":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`

const jsonBody = (text: string) => ({ body: HttpBody.text(text, "application/json") })

describe("JSON request bodies", () => {
  layer(TestDaemon.layer(), { excludeTestServices: true })("depth limit", (it) => {
    for (const depth of [MAX_JSON_DEPTH + 1, 3_000, 20_000]) {
      it.effect(`a body nested ${depth} deep answers 400 bad_request naming the limit, on every JSON endpoint, and changes nothing`, () =>
        Effect.gen(function*() {
          const id = yield* seedActivity({ name: "Kept" })
          const before = yield* snapshot
          for (const [method, url, field] of [["PATCH", `/api/v1/activities/${id}`, "description"], ["POST", "/api/v1/athlete/weights", "on"]] as const) {
            const answer = yield* send(method, url, jsonBody(nested(field, depth)))
            expectError(answer, 400, "bad_request")
            expect(answer.json.message).toContain(`at most ${MAX_JSON_DEPTH} levels`)
          }
          expect(yield* snapshot).toEqual(before)
        }))
    }

    it.effect("a body at the limit is read, and refused for its content only", () =>
      Effect.gen(function*() {
        const id = yield* seedActivity({ name: "Kept" })
        const answer = yield* send("PATCH", `/api/v1/activities/${id}`, jsonBody(nested("name", MAX_JSON_DEPTH)))
        expectError(answer, 400, "bad_request")
        expect(answer.json.message).not.toContain("nested too deeply")
      }))

    it.effect("brackets inside strings do not count as nesting", () =>
      Effect.gen(function*() {
        const id = yield* seedActivity({ name: "Kept" })
        const name = "[{".repeat(500)
        const answer = yield* send("PATCH", `/api/v1/activities/${id}`, { json: { name } })
        expectError(answer, 400, "bad_request")
        expect(answer.json.message).toBe("The name cannot be longer than 255 characters.")
      }))

    it.effect("an error message never repeats a large value in full", () =>
      Effect.gen(function*() {
        const id = yield* seedActivity({ name: "Kept" })
        const huge = Array.from({ length: 5_000 }, (_, i) => ({ n: i }))
        for (const [method, url, body] of [
          ["PATCH", `/api/v1/activities/${id}`, { description: huge }],
          ["PATCH", `/api/v1/activities/${id}`, { gearId: huge }],
          ["POST", "/api/v1/athlete/weights", { on: huge, weight: 70 }]
        ] as const) {
          const answer = yield* send(method, url, { json: body })
          expectError(answer, 400, "bad_request")
          expect(answer.json.message.length).toBeLessThan(400)
        }
      }))
  })
})
