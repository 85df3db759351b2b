import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { send, TestDaemon } from "../support/TestDaemon.ts"
import { expectError } from "./helpers.ts"

describe("decode error messages", () => {
  layer(TestDaemon.layer(), { excludeTestServices: true })("bounded", (it) => {
    it.effect("a 400 about a query parameter quotes the client's value cut short, never in full", () =>
      Effect.gen(function*() {
        const unknown = Array.from({ length: 1_000 }, (_, i) => `NotASport${i}`).join(",")
        const answer = yield* send("GET", `/api/v1/activities?filters[sportType]=${unknown}`)
        expectError(answer, 400, "bad_request")
        expect(answer.json.message).toMatch(/^"filters\[sportType\]" contains an unknown sport type: "NotASport0", /)
        expect(answer.json.message.length).toBeLessThanOrEqual(300)
      }))
  })
})
