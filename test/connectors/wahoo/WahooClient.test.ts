import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Option, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { RateLimited } from "../../../src/connectors/kit/RateLimit.ts"
import { WahooClient } from "../../../src/connectors/wahoo/WahooClient.ts"
import { CloudError } from "../../../src/connectors/kit/CloudError.ts"
import { type FakeWahoo, type FakeWahooOptions } from "../../fakes/FakeWahoo.ts"
import { authorizeAt, clientLayer, connectClient, daysAgo, type Dirs, envFor, readTokens, scopedDirs, scopedFake } from "./harness.ts"

/** Runs `body` with a fresh fake, fresh folders and a client over them. */
const withClient = <A, E>(
  body: (fake: FakeWahoo, dirs: Dirs) => Effect.Effect<A, E, WahooClient>,
  options: FakeWahooOptions = {}
) =>
  Effect.gen(function*() {
    const fake = yield* scopedFake(options)
    const dirs = yield* scopedDirs
    return yield* body(fake, dirs).pipe(Effect.provide(clientLayer(envFor(fake, dirs))))
  })

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit) || exit.cause._tag !== "Fail") throw new Error(`expected a failure, got ${String(exit)}`)
  return exit.cause.error
}

describe("WahooClient against the fake Wahoo", () => {
  it.scopedLive("the authorize URL carries client id, redirect URI, scopes and state", () =>
    withClient((fake) =>
      Effect.gen(function*() {
        const client = yield* WahooClient
        const url = new URL(client.authorizeUrl("abc"))
        expect(`${url.origin}${url.pathname}`).toBe(`${fake.url}/oauth/authorize`)
        expect(Object.fromEntries(url.searchParams)).toEqual({
          client_id: fake.clientId,
          redirect_uri: "https://localhost:8085/callback",
          response_type: "code",
          scope: "user_read workouts_read",
          state: "abc"
        })
      })
    ))

  it.scopedLive("the code is exchanged for tokens stored in STATE_DIR/tokens.json (0600) before anything else", () =>
    withClient((fake, dirs) =>
      Effect.gen(function*() {
        const client = yield* WahooClient
        expect(yield* client.connected).toBe(false)
        yield* connectClient
        expect(yield* client.connected).toBe(true)
        const file = path.join(dirs.stateDir, "tokens.json")
        expect(fs.statSync(file).mode & 0o777).toBe(0o600)
        expect(readTokens(dirs).refreshToken).toBe(fake.refreshTokens.at(-1))
      })
    ))

  it.scopedLive("a code used twice is refused with Wahoo's own words", () =>
    withClient((fake) =>
      Effect.gen(function*() {
        const client = yield* WahooClient
        const back = yield* authorizeAt(client.authorizeUrl("s"))
        const code = back.searchParams.get("code")!
        yield* client.exchangeCode(code)
        const error = failureOf(yield* Effect.exit(client.exchangeCode(code)))
        expect(error).toBeInstanceOf(CloudError)
        expect(error.reason).toBe("Unauthorized")
        expect(error.message).toContain("The provided authorization grant is invalid")
        expect(fake.grants()).toBe(1)
      })
    ))

  it.scopedLive("lists workouts newest first with their file URLs", () =>
    withClient((fake) =>
      Effect.gen(function*() {
        const client = yield* WahooClient
        yield* connectClient
        fake.addWorkout({ id: 1, starts: daysAgo(3) })
        fake.addWorkout({ id: 2, starts: daysAgo(1) })
        fake.addWorkout({ id: 3, starts: daysAgo(2), file: null })
        const page = yield* client.listWorkouts(1, 50)
        expect(page.workouts.map((w) => w.id)).toEqual([2, 3, 1])
        expect(page.workouts[0]!.workout_summary?.file?.url).toBe(`${fake.url}/files/2.fit`)
        expect(page.workouts[1]!.workout_summary?.file).toBeNull()
        expect(fake.requestsTo("/v1/workouts")[0]!.query).toMatchObject({ page: "1", per_page: "50" })
      })
    ))

  it.scopedLive("an access token about to expire is refreshed first; the rotated refresh token is on disk and the old one is dead", () =>
    withClient((fake, dirs) =>
      Effect.gen(function*() {
        const client = yield* WahooClient
        yield* connectClient
        const first = fake.refreshTokens.at(-1)!
        // access tokens of 60 s are inside the 5-minute margin: every call refreshes first
        yield* client.listWorkouts(1, 50)
        expect(fake.grants()).toBe(2)
        const second = fake.refreshTokens.at(-1)!
        expect(second).not.toBe(first)
        expect(readTokens(dirs).refreshToken).toBe(second)
        const tokenCalls = fake.requestsTo("/oauth/token")
        expect(tokenCalls.at(-1)!.form).toMatchObject({ grant_type: "refresh_token", refresh_token: first })
        // the API call used the new access token
        const apiCall = fake.requestsTo("/v1/workouts").at(-1)!
        expect(fake.requests.indexOf(apiCall)).toBeGreaterThan(fake.requests.indexOf(tokenCalls.at(-1)!))
      }), { accessTokenSeconds: 60 }))

  it.scopedLive("a restarted client goes on with the refresh token saved on disk", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake({ accessTokenSeconds: 60 })
      const dirs = yield* scopedDirs
      const env = envFor(fake, dirs)
      yield* Effect.scoped(Effect.gen(function*() {
        yield* connectClient
        yield* (yield* WahooClient).listWorkouts(1, 10)
      }).pipe(Effect.provide(Layer.fresh(clientLayer(env)))))
      yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* WahooClient
        expect(yield* client.connected).toBe(true)
        yield* client.listWorkouts(1, 10)
      }).pipe(Effect.provide(Layer.fresh(clientLayer(env)))))
      expect(fake.grants()).toBe(3)
    }))

  it.scopedLive("a 401 refreshes the access token once and asks again", () =>
    withClient((fake) =>
      Effect.gen(function*() {
        const client = yield* WahooClient
        yield* connectClient
        fake.expireAccessTokens()
        const page = yield* client.listWorkouts(1, 50)
        expect(page.workouts).toEqual([])
        expect(fake.grants()).toBe(2)
        expect(fake.requestsTo("/v1/workouts").length).toBe(2)
      })
    ))

  it.scopedLive("a revoked authorization ends as Unauthorized, and the client says it is no longer connected", () =>
    withClient((fake) =>
      Effect.gen(function*() {
        const client = yield* WahooClient
        yield* connectClient
        fake.revoke()
        const error = failureOf(yield* Effect.exit(client.listWorkouts(1, 50)))
        expect(error).toMatchObject({ _tag: "CloudError", reason: "Unauthorized" })
        expect(yield* client.connected).toBe(false)
        expect(Option.getOrThrow(yield* client.authProblem)).toContain("Wahoo refused the stored refresh token")
        // nothing more is asked of the cloud with the refused tokens
        const before = fake.requests.length
        yield* Effect.exit(client.listWorkouts(1, 50))
        expect(fake.requests.length).toBe(before)
      })
    ))

  it.scopedLive("a 429 waits for Retry-After and asks once more; a second 429 ends as RateLimited", () =>
    withClient((fake) =>
      Effect.gen(function*() {
        const client = yield* WahooClient
        yield* connectClient
        fake.rateLimitNext(1, 1)
        const started = Date.now()
        yield* client.listWorkouts(1, 50)
        expect(Date.now() - started).toBeGreaterThanOrEqual(900)
        fake.rateLimitNext(2, 1)
        const error = failureOf(yield* Effect.exit(client.listWorkouts(1, 50)))
        expect(error).toBeInstanceOf(RateLimited)
      })
    ))

  it.scopedLive("a Retry-After longer than a sync may wait ends as RateLimited at once, carrying it", () =>
    withClient((fake) =>
      Effect.gen(function*() {
        const client = yield* WahooClient
        yield* connectClient
        fake.rateLimitNext(1, 3600)
        const started = Date.now()
        const error = failureOf(yield* Effect.exit(client.listWorkouts(1, 50)))
        expect(Date.now() - started).toBeLessThan(5000)
        expect(error).toBeInstanceOf(RateLimited)
        expect((error as RateLimited).retryAfter).toBeDefined()
      })
    ))

  it.scopedLive("X-RateLimit-Remaining near the 5-minute limit makes the next call wait for X-RateLimit-Reset", () =>
    withClient((fake) =>
      Effect.gen(function*() {
        const client = yield* WahooClient
        yield* connectClient
        // 5-minute limit 4 and a reserve of 2: after 2 calls the window is spent
        yield* client.listWorkouts(1, 50)
        yield* client.listWorkouts(1, 50)
        const snapshot = Option.getOrThrow(yield* client.rateLimits)
        expect(snapshot.windows.map((w) => w.name)).toEqual(["day", "hour", "5min"])
        fake.resetUsage()
        const started = Date.now()
        yield* client.listWorkouts(1, 50)
        expect(Date.now() - started).toBeGreaterThanOrEqual(900)
      }), { limits: { fiveMin: 4 }, resetSeconds: 1 }))

  it.scopedLive("an API error is reported with its status", () =>
    withClient((fake) =>
      Effect.gen(function*() {
        const client = yield* WahooClient
        yield* connectClient
        fake.failNext(1, 404)
        const error = failureOf(yield* Effect.exit(client.listWorkouts(1, 50)))
        expect(error).toMatchObject({ _tag: "CloudError", reason: "ApiError", status: 404 })
        expect((error as CloudError).message).toBe("Wahoo answered 404 to GET /v1/workouts: failure 404")
      })
    ))

  it.scopedLive("a file is downloaded without the token", () =>
    withClient((fake) =>
      Effect.gen(function*() {
        const client = yield* WahooClient
        const w = fake.addWorkout({ id: 7, starts: daysAgo(1), file: new Uint8Array([1, 2, 3]) })
        const chunks = yield* Stream.runCollect(client.downloadFile(`${fake.url}/files/${w.id}.fit`))
        expect(Buffer.concat([...chunks].map((c) => Buffer.from(c)))).toEqual(Buffer.from([1, 2, 3]))
        expect(fake.requestsTo("/files/7.fit")[0]!.authorization).toBeUndefined()
      })
    ))
})
