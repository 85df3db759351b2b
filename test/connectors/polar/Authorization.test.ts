import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fitActivity } from "../../support/ImportHarness.ts"
import { envFor, listWatch, pollerOf, scopedDirs, scopedFake, startConnector, waitFor } from "./harness.ts"

const fit = (n: number) => fitActivity({ start: new Date(Date.now() - (n + 1) * 3_600_000), seconds: 600 })

describe("Polar connector authorization", () => {
  it.scopedLive("reports `required` with the address to open until someone authorizes, and is unhealthy meanwhile", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake()
      const dirs = yield* scopedDirs
      const connector = yield* startConnector(envFor(fake, dirs, { PUBLIC_URL: "https://polar.example.org" }))
      const status = yield* connector.status
      expect(status.authorization).toBe("required")
      expect(status.authorizeUrl).toBe("https://polar.example.org/authorize")
      expect(status.authorizationError).toMatch(/nobody has authorized/)
      expect(status.polarUser).toBeNull()
      expect(status.healthy).toBe(false)
      const health = yield* connector.get("/healthz")
      expect(health.status).toBe(503)
      expect(health.json).toMatchObject({ healthy: false, checks: { authorization: "required" } })
      // the body every connector answers
      expect(Object.keys(health.json).sort()).toEqual(["checks", "healthy", "reason"])
      expect(Object.keys(health.json.checks).sort()).toEqual(["authorization", "lastSuccessfulSync", "syncDueBy", "syncRecent"])
      expect(health.json.reason).toMatch(/nobody has authorized/)
      expect(health.text).not.toContain(fake.clientSecret)
      expect(JSON.stringify(status)).not.toContain(fake.clientSecret)
    }))

  it.scopedLive("authorizes through the browser flow: state, code exchange with Basic auth, token stored 0600, user registered, first sync", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake()
      const dirs = yield* scopedDirs
      const connector = yield* startConnector(envFor(fake, dirs, { PUBLIC_URL: "http://127.0.0.1:1" }))
      // PUBLIC_URL is not where the test reaches the connector: follow Polar's redirect by hand
      const start = yield* connector.get("/authorize")
      expect(start.status).toBe(302)
      expect(start.headers.get("cache-control")).toBe("no-store")
      const toPolar = new URL(start.headers.get("location")!)
      expect(toPolar.origin + toPolar.pathname).toBe(fake.authUrl)
      expect(toPolar.searchParams.get("client_id")).toBe(fake.clientId)
      expect(toPolar.searchParams.get("response_type")).toBe("code")
      expect(toPolar.searchParams.get("redirect_uri")).toBe("http://127.0.0.1:1/callback")
      const state = toPolar.searchParams.get("state")!
      expect(state.length).toBeGreaterThanOrEqual(24)

      fake.addExercise({ id: "AAA111", startTime: new Date(Date.now() - 3_600_000).toISOString(), files: { fit: fit(1) } })
      const polar = yield* Effect.promise(() => fetch(toPolar, { redirect: "manual" }))
      const back = new URL(polar.headers.get("location")!)
      const callback = yield* connector.get(`/callback${back.search}`)
      expect(callback.status).toBe(200)
      expect(callback.text).toContain(`Authorized as Polar user ${fake.userId}`)

      const token = fake.requests.find((r) => r.path === "/v2/oauth2/token")!
      expect(token.authorization).toBe(`Basic ${Buffer.from(`${fake.clientId}:${fake.clientSecret}`).toString("base64")}`)
      expect(new URLSearchParams(token.body).get("redirect_uri")).toBe("http://127.0.0.1:1/callback")
      expect(fake.registeredMembers()).toEqual([`waymark-${fake.userId}`])

      const file = path.join(dirs.tokensDir, "token.json")
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
      expect(JSON.parse(fs.readFileSync(file, "utf8"))).toMatchObject({ polarUser: String(fake.userId), revoked: null })

      // the authorization triggers a cycle at once
      yield* waitFor("the first delivery", Effect.sync(() => (listWatch(dirs).includes("AAA111.fit") ? true : undefined)))
      const status = yield* connector.status
      expect(status).toMatchObject({ authorization: "ok", authorizeUrl: null, authorizationError: null, polarUser: String(fake.userId) })

      // the state was single-use
      const replay = yield* connector.get(`/callback${back.search}`)
      expect(replay.status).toBe(400)
      expect(replay.text).toContain("The state parameter is missing, unknown or expired.")
    }))

  it.scopedLive("refuses a callback without state or with an unknown one, on /callback and on /", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake()
      const dirs = yield* scopedDirs
      const connector = yield* startConnector(envFor(fake, dirs))
      for (const url of ["/callback", "/callback?code=abc", "/?code=abc&state=forged", "/"]) {
        const answer = yield* connector.get(url)
        expect(answer.status, url).toBe(400)
        expect(answer.text, url).toContain("The state parameter is missing, unknown or expired.")
      }
      expect(fake.requests.filter((r) => r.path === "/v2/oauth2/token")).toEqual([])
    }))

  it.scopedLive("sends no redirect_uri in either request when neither PUBLIC_URL nor REDIRECT_URI is set; `/` is a redirect target too", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake({ registeredRedirectUri: "http://placeholder/" })
      const dirs = yield* scopedDirs
      const connector = yield* startConnector(envFor(fake, dirs))
      const start = yield* connector.get("/authorize")
      const toPolar = new URL(start.headers.get("location")!)
      expect(toPolar.searchParams.has("redirect_uri")).toBe(false)
      const polar = yield* Effect.promise(() => fetch(toPolar, { redirect: "manual" }))
      const back = new URL(polar.headers.get("location")!)
      expect(back.pathname).toBe("/")
      const answer = yield* connector.get(`/${back.search}`)
      expect(answer.status).toBe(200)
      const token = fake.requests.find((r) => r.path === "/v2/oauth2/token")!
      expect(new URLSearchParams(token.body).has("redirect_uri")).toBe(false)
    }))

  it.scopedLive("sends REDIRECT_URI verbatim, overriding PUBLIC_URL", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake()
      const dirs = yield* scopedDirs
      const connector = yield* startConnector(
        envFor(fake, dirs, { PUBLIC_URL: "https://a.example", REDIRECT_URI: "https://b.example/oauth/back?x=1" })
      )
      const start = yield* connector.get("/authorize")
      expect(new URL(start.headers.get("location")!).searchParams.get("redirect_uri")).toBe("https://b.example/oauth/back?x=1")
      expect((yield* connector.status).authorizeUrl).toBe("https://a.example/authorize")
    }))

  it.scopedLive("says so when Polar refuses: user denial, already registered (409), missing consents (403)", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake({ registeredRedirectUri: "http://placeholder/callback" })
      const dirs = yield* scopedDirs
      const connector = yield* startConnector(envFor(fake, dirs))
      const authorize = () =>
        Effect.gen(function*() {
          const start = yield* connector.get("/authorize")
          const polar = yield* Effect.promise(() => fetch(start.headers.get("location")!, { redirect: "manual" }))
          return yield* connector.get(`/callback${new URL(polar.headers.get("location")!).search}`)
        })

      fake.setDenyAuthorization(true)
      const denied = yield* authorize()
      expect(denied.status).toBe(400)
      expect(denied.text).toContain("access_denied")
      fake.setDenyAuthorization(false)

      fake.setConsentsMissing(true)
      const consents = yield* authorize()
      expect(consents.status).toBe(200)
      expect(consents.text).toContain("mandatory consents")
      const status = yield* connector.status
      expect(status.authorization).toBe("consent-required")
      expect(status.authorizationError).toContain("User has not accepted all mandatory consents.")
      expect(status.authorizeUrl).not.toBeNull()

      fake.setConsentsMissing(false)
      const first = yield* authorize()
      expect(first.text).not.toContain("already registered")
      const again = yield* authorize()
      expect(again.status).toBe(200)
      expect(again.text).toContain("already registered")
      expect((yield* connector.status).authorization).toBe("ok")
    }))

  it.scopedLive("a 401 makes the state `revoked` and stops calls; a new authorization is used by the next cycle without a restart", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake({ registeredRedirectUri: "http://placeholder/callback" })
      const dirs = yield* scopedDirs
      const connector = yield* startConnector(envFor(fake, dirs, { POLL_INTERVAL: "3600" }))
      const authorize = () =>
        Effect.gen(function*() {
          const start = yield* connector.get("/authorize")
          const polar = yield* Effect.promise(() => fetch(start.headers.get("location")!, { redirect: "manual" }))
          return yield* connector.get(`/callback${new URL(polar.headers.get("location")!).search}`)
        })
      yield* authorize()
      const poller = pollerOf(connector)
      yield* waitFor("the first cycle", Effect.map(poller.status, (s) => (s.cycles >= 2 && s.phase === "waiting" ? s : undefined)))

      fake.revokeTokens()
      yield* poller.trigger
      const revoked = yield* waitFor(
        "the revoked state",
        Effect.map(connector.status, (s) => (s.authorization === "revoked" ? s : undefined))
      )
      expect(revoked.authorizationError).toContain("401")
      expect(revoked.authorizeUrl).toMatch(/\/authorize$/)
      expect(revoked.lastError).toContain("401")
      expect(revoked.healthy).toBe(false)
      expect(JSON.parse(fs.readFileSync(path.join(dirs.tokensDir, "token.json"), "utf8")).revoked).not.toBeNull()

      // the next cycle does not ask Polar again with the refused token
      yield* waitFor("the poller to wait", Effect.map(poller.status, (s) => (s.phase === "waiting" ? s : undefined)))
      const before = fake.requests.length
      const cyclesBefore = (yield* poller.status).cycles
      yield* poller.trigger
      yield* waitFor("another cycle", Effect.map(poller.status, (s) => (s.cycles > cyclesBefore && s.phase === "waiting" ? s : undefined)))
      expect(fake.requests.slice(before)).toEqual([])

      fake.addExercise({ id: "NEW1", startTime: new Date(Date.now() - 600_000).toISOString(), files: { fit: fit(0) } })
      yield* authorize()
      yield* waitFor("the delivery with the new token", Effect.sync(() => (listWatch(dirs).includes("NEW1.fit") ? true : undefined)))
      expect((yield* connector.status).authorization).toBe("ok")
    }))
})
