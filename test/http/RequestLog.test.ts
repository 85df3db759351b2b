import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { describe, expect, it } from "@effect/vitest"
import { Effect, HashMap, Logger, LogLevel } from "effect"
import { makeRedactor, makeRequestLog, redactUrl } from "../../src/http/RequestLog.ts"

describe("redactUrl", () => {
  it("replaces the value of every parameter named like a credential, keeping the others", () => {
    expect(redactUrl("/external/webhook?hub.mode=subscribe&hub.verify_token=abc123&hub.challenge=xyz"))
      .toBe("/external/webhook?hub.mode=subscribe&hub.verify_token=[redacted]&hub.challenge=xyz")
    for (const name of ["token", "access_token", "refresh_token", "client_secret", "api_key", "apiKey", "KEY", "password", "passwd", "code", "signature", "Authorization", "session_id"]) {
      expect(redactUrl(`/p?page=2&${name}=s3cr3t&sort=asc`)).toBe(`/p?page=2&${name}=[redacted]&sort=asc`)
    }
    // a percent-encoded name is decoded before it is matched
    expect(redactUrl("/p?hub%2Everify%5Ftoken=s3cr3t")).toBe("/p?hub%2Everify%5Ftoken=[redacted]")
    expect(redactUrl("/api/v1/activities?filters[sportType]=Ride&page=1")).toBe("/api/v1/activities?filters[sportType]=Ride&page=1")
  })

  it("replaces API-key-shaped values and configured secrets wherever they appear, raw or encoded", () => {
    const key = `wmk_${"ab".repeat(32)}`
    expect(redactUrl(`/api/v1/activities/${key}?q=${key}`)).toBe("/api/v1/activities/[redacted]?q=[redacted]")
    expect(redactUrl("/files/activities/my secret+token.jpg?note=my%20secret%2Btoken&x=1", ["my secret+token"]))
      .toBe("/files/activities/[redacted].jpg?note=[redacted]&x=1")
    expect(redactUrl("/p?q=abc", ["abc"])).toBe("/p?q=abc") // too short to be told apart from ordinary text
  })

  it("leaves a URL without secrets as it is", () => {
    expect(redactUrl("/api/v1/status")).toBe("/api/v1/status")
    expect(redactUrl("/api/v1/status?")).toBe("/api/v1/status?")
    expect(redactUrl("/p?flag&x=")).toBe("/p?flag&x=")
  })
})

describe("the request log", () => {
  it.effect("logs and traces the request under its redacted URL, with the answer's status", () =>
    Effect.gen(function*() {
      const lines: Array<{ message: unknown; annotations: Record<string, unknown> }> = []
      const logger = Logger.make(({ annotations, message }) => {
        lines.push({ message, annotations: Object.fromEntries(HashMap.toEntries(annotations)) })
      })
      let attributes: Record<string, unknown> = {}
      const app = Effect.gen(function*() {
        const span = yield* Effect.currentSpan
        attributes = Object.fromEntries(span.attributes)
        return HttpServerResponse.empty({ status: 403 })
      }).pipe(Effect.orDie)
      const request = HttpServerRequest.fromWeb(new Request("http://localhost/external/webhook?hub.mode=subscribe&hub.verify_token=vt-0123456789&x=cs-secret-value"))
      const log = makeRequestLog(makeRedactor(["cs-secret-value"]))
      const response = yield* log(app).pipe(
        Effect.provideService(HttpServerRequest.HttpServerRequest, request),
        Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
        // the request line is written at debug
        Logger.withMinimumLogLevel(LogLevel.Debug)
      )
      expect(response.status).toBe(403)
      const redacted = "/external/webhook?hub.mode=subscribe&hub.verify_token=[redacted]&x=[redacted]"
      expect(lines.map((l) => l.annotations)).toEqual([{ "http.method": "GET", "http.url": redacted, "http.status": 403 }])
      expect(attributes).toMatchObject({ "http.request.method": "GET", "url.path": "/external/webhook", "url.query": redacted.split("?")[1] })
      expect(attributes["url.full"]).toBeUndefined()
      expect(JSON.stringify(attributes)).not.toContain("vt-0123456789")
    }))
})
