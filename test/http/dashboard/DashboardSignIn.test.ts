import { beforeAll, describe, expect, layer } from "@effect/vitest"
import * as HttpBody from "@effect/platform/HttpBody"
import { Effect } from "effect"
import { builtDashboard } from "../../support/programs.ts"
import { send, TestDaemon } from "../../support/TestDaemon.ts"

/**
 * Sign-in over a real socket: the key is exchanged for an HttpOnly, SameSite=Strict session
 * cookie with an expiry, which the API then accepts; writes carried by the cookie must come
 * from the dashboard's own origin; sign-out ends the session.
 */

const ORIGIN = "http://waymark.test"
const form = (fields: Record<string, string>) => HttpBody.text(new URLSearchParams(fields).toString(), "application/x-www-form-urlencoded")

const signIn = (key: string, origin = ORIGIN) =>
  send("POST", "/sign-in", { key: null, headers: { origin }, body: form({ key }) })

const sessionOf = (setCookie: string | undefined) => /waymark_session=([^;]*)/.exec(setCookie ?? "")?.[1] ?? ""

// the app's shell names the built script: built by the global setup before this file runs
beforeAll(() => builtDashboard())

describe("dashboard sign-in", () => {
  layer(TestDaemon.layer(), { excludeTestServices: true })("with a configured key", (it) => {
    it.effect("the page asks for the key, with a strict Content-Security-Policy", () =>
      Effect.gen(function*() {
        const page = yield* send("GET", "/", { key: null })
        expect(page.status).toBe(200)
        expect(page.headers["content-type"]).toContain("text/html")
        expect(page.text).toContain('name="key"')
        expect(page.headers["content-security-policy"]).toContain("script-src 'self'")
        expect(page.headers["content-security-policy"]).not.toContain("unsafe-inline")
      }))

    it.effect("the right key sets an HttpOnly SameSite=Strict cookie with an expiry, and the cookie opens the API", () =>
      Effect.gen(function*() {
        const { apiKey } = yield* TestDaemon
        const answer = yield* signIn(apiKey)
        expect(answer.status).toBe(303)
        expect(answer.headers["location"]).toBe("/")
        const cookie = answer.headers["set-cookie"]!
        expect(cookie).toMatch(/HttpOnly/)
        expect(cookie).toMatch(/SameSite=Strict/)
        expect(cookie).toMatch(/Max-Age=\d+/)
        expect(cookie).not.toMatch(/Secure/)
        expect(cookie).not.toContain(apiKey)
        const session = sessionOf(cookie)
        const list = yield* send("GET", "/api/v1/activities", { key: null, headers: { cookie: `waymark_session=${session}` } })
        expect(list.status).toBe(200)
        const shell = yield* send("GET", "/", { key: null, headers: { cookie: `waymark_session=${session}` } })
        expect(shell.text).toContain("/dashboard/assets/app.js")
        expect(shell.text).not.toContain(apiKey)
      }))

    it.effect("a wrong key is refused and sets no cookie", () =>
      Effect.gen(function*() {
        const answer = yield* signIn("wmk_" + "0".repeat(64))
        expect(answer.status).toBe(401)
        expect(answer.headers["set-cookie"]).toBeUndefined()
        expect(answer.text).toContain("not the service")
      }))

    it.effect("a sign-in posted from another site is refused", () =>
      Effect.gen(function*() {
        const { apiKey } = yield* TestDaemon
        const answer = yield* signIn(apiKey, "https://evil.example")
        expect(answer.status).toBe(403)
        expect(answer.headers["set-cookie"]).toBeUndefined()
      }))

    it.effect("a write carried by the cookie needs the dashboard's origin; reads do not", () =>
      Effect.gen(function*() {
        const { apiKey } = yield* TestDaemon
        const cookie = `waymark_session=${sessionOf((yield* signIn(apiKey)).headers["set-cookie"])}`
        const weight = { on: "2024-05-01", weight: 70 }
        const foreign = yield* send("POST", "/api/v1/athlete/weights", { key: null, headers: { cookie, origin: "https://evil.example" }, json: weight })
        expect(foreign.status).toBe(401)
        const none = yield* send("POST", "/api/v1/athlete/weights", { key: null, headers: { cookie }, json: weight })
        expect(none.status).toBe(401)
        const own = yield* send("POST", "/api/v1/athlete/weights", { key: null, headers: { cookie, origin: ORIGIN }, json: weight })
        expect(own.status).toBeLessThan(300)
      }))

    it.effect("sign-out ends the session", () =>
      Effect.gen(function*() {
        const { apiKey } = yield* TestDaemon
        const cookie = `waymark_session=${sessionOf((yield* signIn(apiKey)).headers["set-cookie"])}`
        const out = yield* send("POST", "/sign-out", { key: null, headers: { cookie, origin: ORIGIN } })
        expect(out.status).toBe(303)
        expect(out.headers["set-cookie"]).toMatch(/Max-Age=0/)
        const after = yield* send("GET", "/api/v1/activities", { key: null, headers: { cookie } })
        expect(after.status).toBe(401)
      }))

    it.effect("a made-up session cookie opens nothing", () =>
      Effect.gen(function*() {
        const answer = yield* send("GET", "/api/v1/activities", { key: null, headers: { cookie: "waymark_session=made-up" } })
        expect(answer.status).toBe(401)
      }))
  })

  layer(TestDaemon.layer({ env: { APP_URL: "https://waymark.example" } }), { excludeTestServices: true })("behind https", (it) => {
    it.effect("the cookie is Secure when APP_URL is https", () =>
      Effect.gen(function*() {
        const { apiKey } = yield* TestDaemon
        const answer = yield* signIn(apiKey, "https://waymark.example")
        expect(answer.headers["set-cookie"]).toMatch(/; Secure/)
      }))
  })

  layer(TestDaemon.layer({ apiKey: null }), { excludeTestServices: true })("without a configured key", (it) => {
    it.effect("the page says how to set one", () =>
      Effect.gen(function*() {
        const page = yield* send("GET", "/", { key: null })
        expect(page.text).toContain("SERVICE_API_KEY")
        expect(page.text).toContain("app:setup")
        expect(page.text).not.toContain('name="key"')
      }))
  })
})
