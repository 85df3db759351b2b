import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { WrongKeysPolicy } from "../../src/http/WrongKeys.ts"
import { generateApiKey } from "../../src/services/platform/ApiKey.ts"
import { allLogText, fileForm, send, snapshot, TestDaemon } from "../support/TestDaemon.ts"
import { ENDPOINTS } from "./endpoints.ts"

const expectInvalidToken = (answer: { status: number; headers: Record<string, string>; json: any }) => {
  expect(answer.status).toBe(401)
  expect(answer.headers["www-authenticate"]).toBe('Bearer realm="waymark"')
  expect(answer.json).toEqual({ error: "invalid_token", message: expect.any(String) })
  expect(answer.json.message.length).toBeGreaterThan(0)
}

describe("bearer authentication", () => {
  // every wrong token of every endpoint, from one address: none slowed here (WrongKeys.test.ts tests that)
  layer(TestDaemon.layer().pipe(Layer.provide(Layer.succeed(WrongKeysPolicy, { free: Infinity, refuseAt: Infinity }))), { excludeTestServices: true })("with a configured key", (it) => {
    const badAuthorizations = (key: string): ReadonlyArray<[string, Record<string, string> | null]> => [
      ["no Authorization header", null],
      ["an empty header", { authorization: "" }],
      ["Bearer without a token", { authorization: "Bearer " }],
      ["another scheme with the right key", { authorization: `Basic ${key}` }],
      ["the key without a scheme", { authorization: key }],
      ["a well-formed but different key", { authorization: `Bearer ${generateApiKey()}` }],
      ["the key with extra characters", { authorization: `Bearer ${key}0` }],
      ["the key upper-cased", { authorization: `Bearer ${key.toUpperCase()}` }],
      ["the key followed by a second token", { authorization: `Bearer ${key} ${key}` }]
    ]

    for (const endpoint of ENDPOINTS) {
      it.effect(`${endpoint.method} ${endpoint.path} answers 401 invalid_token to every missing, malformed or wrong token`, () =>
        Effect.gen(function*() {
          const { apiKey } = yield* TestDaemon
          for (const [, headers] of badAuthorizations(apiKey)) {
            const answer = yield* send(endpoint.method, endpoint.path, { key: null, ...(headers ? { headers } : {}) })
            expectInvalidToken(answer)
          }
        }))

      it.effect(`${endpoint.method} ${endpoint.path} accepts the configured key`, () =>
        Effect.gen(function*() {
          const answer = yield* send(endpoint.method, endpoint.path)
          expect(answer.status).not.toBe(401)
          expect(answer.headers["www-authenticate"]).toBeUndefined()
        }))
    }

    it.effect("the scheme name is case-insensitive (RFC 7235)", () =>
      Effect.gen(function*() {
        const { apiKey } = yield* TestDaemon
        const answer = yield* send("GET", "/api/v1/status", { key: null, headers: { authorization: `bearer ${apiKey}` } })
        expect(answer.status).toBe(200)
      }))

    it.effect("an unknown path under /api/v1 asks for the token before saying 404", () =>
      Effect.gen(function*() {
        expectInvalidToken(yield* send("GET", "/api/v1/nope", { key: null }))
        const known = yield* send("GET", "/api/v1/nope")
        expect(known.status).toBe(404)
        expect(known.json.error).toBe("not_found")
      }))

    it.effect("an upload without a valid token is refused before anything is written", () =>
      Effect.gen(function*() {
        const before = yield* snapshot
        expectInvalidToken(yield* send("POST", "/api/v1/activity/upload", { key: null, body: fileForm("ride.fit", "data") }))
        expectInvalidToken(yield* send("POST", "/api/v1/activity/upload", { key: generateApiKey(), body: fileForm("ride.fit", "data") }))
        expect(yield* snapshot).toEqual(before)
      }))

    it.effect("the public routes need no token: /api/openapi.yaml", () =>
      Effect.gen(function*() {
        const answer = yield* send("GET", "/api/openapi.yaml", { key: null })
        expect(answer.status).toBe(200)
      }))

    it.effect("the API key never appears in any log line (after good and bad requests)", () =>
      Effect.gen(function*() {
        const { apiKey } = yield* TestDaemon
        yield* send("GET", "/api/v1/status")
        yield* send("GET", "/api/v1/status", { key: `${apiKey}x` })
        yield* send("GET", "/api/v1/nope")
        yield* send("PUT", "/api/v1/status")
        const logs = yield* allLogText
        expect(logs).not.toContain(apiKey)
        expect(logs).not.toContain(apiKey.slice(4))
      }))
  })

  layer(TestDaemon.layer({ apiKey: null }), { excludeTestServices: true })("without SERVICE_API_KEY", (it) => {
    it.effect("the API is closed: every endpoint answers 401 whatever token is sent", () =>
      Effect.gen(function*() {
        for (const endpoint of ENDPOINTS) {
          expectInvalidToken(yield* send(endpoint.method, endpoint.path, { key: null }))
          expectInvalidToken(yield* send(endpoint.method, endpoint.path, { key: generateApiKey() }))
          expectInvalidToken(yield* send(endpoint.method, endpoint.path, { key: "" }))
        }
      }))

    it.effect("the 401 message tells the operator how to open it", () =>
      Effect.gen(function*() {
        const answer = yield* send("GET", "/api/v1/status", { key: generateApiKey() })
        expect(answer.json.message).toContain("SERVICE_API_KEY")
      }))
  })

  layer(TestDaemon.layer({ apiKey: "secret" }), { excludeTestServices: true })("with a SERVICE_API_KEY the service did not generate", (it) => {
    it.effect("the API stays closed, even to a client sending exactly that value", () =>
      Effect.gen(function*() {
        expectInvalidToken(yield* send("GET", "/api/v1/status", { key: "secret" }))
        expectInvalidToken(yield* send("GET", "/api/v1/activities", { key: "secret" }))
      }))
  })
})
