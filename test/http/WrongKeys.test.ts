import { describe, expect, it, layer } from "@effect/vitest"
import * as HttpBody from "@effect/platform/HttpBody"
import { Duration, Effect, Fiber, Option } from "effect"
import { readChannel, send, TestDaemon } from "../support/TestDaemon.ts"
import { FREE_WRONG_KEYS, REFUSE_AT, WrongKeys } from "../../src/http/WrongKeys.ts"

/**
 * Wrong keys, over a real socket from one client address (127.0.0.1): the first few are
 * answered at once, the next ones after a growing delay, then 429 with Retry-After; the right
 * key is never delayed, whatever came before; the address is named at warning level once a
 * minute; the dashboard's sign-in counts with the API's keys.
 */

const WRONG = `wmk_${"0".repeat(64)}`
const ORIGIN = "http://waymark.test"

const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.timed(effect), ([duration, answer]) => ({ millis: Duration.toMillis(duration), answer }))

describe("wrong keys", () => {
  layer(TestDaemon.layer(), { excludeTestServices: true })("from one address", (it) => {
    it.effect("are answered at once, then slowed, then refused with 429 and Retry-After; the right key meanwhile is answered at once; the address is named once", () =>
      Effect.gen(function*() {
        // the free ones
        for (let i = 0; i < FREE_WRONG_KEYS; i++) expect((yield* send("GET", "/api/v1/activities", { key: WRONG })).status).toBe(401)
        // slowed: each at least its delay (100 ms, doubling), answered 401
        const sixth = yield* timed(send("GET", "/api/v1/activities", { key: WRONG }))
        expect(sixth.answer.status).toBe(401)
        expect(sixth.millis).toBeGreaterThanOrEqual(95)
        // the rest up to the limit at once: the last ones wait the longest delay (5 s)
        const slowed = yield* Effect.fork(Effect.all(Array.from({ length: REFUSE_AT - FREE_WRONG_KEYS - 1 }, () => send("GET", "/api/v1/activities", { key: WRONG })), { concurrency: "unbounded" }))
        // while they wait, the right key is answered, before the last of them
        const right = yield* send("GET", "/api/v1/activities")
        expect(right.status).toBe(200)
        expect(slowed.unsafePoll()).toBeNull()
        const answers = yield* Fiber.join(slowed)
        expect(answers.map((a) => a.status)).toEqual(Array(REFUSE_AT - FREE_WRONG_KEYS - 1).fill(401))
        // past the limit (the count drains by 10 a minute meanwhile: a few more reach it), refused
        // at once, in the error shape, with Retry-After
        // at once: one slowed (its 401 would come after 5 s) was counted when it arrived, and is not waited for
        const another = Effect.timeoutOption(send("GET", "/api/v1/gear", { key: WRONG }), "1 second")
        let answered = yield* another
        for (let more = 0; (Option.isNone(answered) || answered.value.status === 401) && more < 10; more++) answered = yield* another
        expect(Option.isSome(answered)).toBe(true)
        const refused = Option.getOrThrow(answered)
        expect(refused.status).toBe(429)
        expect(refused.json).toEqual({ error: "too_many_requests", message: expect.stringMatching(/^Too many wrong keys from your address: try again in \d+ s/) })
        expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1)
        // also on a route that does not exist, and on /metrics
        expect((yield* send("GET", "/api/v1/nowhere", { key: WRONG })).status).toBe(429)
        expect((yield* send("GET", "/metrics", { key: WRONG })).status).toBe(429)
        // the sign-in counts with them
        const signIn = yield* send("POST", "/sign-in", {
          key: null,
          headers: { origin: ORIGIN },
          body: HttpBody.text(new URLSearchParams({ key: WRONG }).toString(), "application/x-www-form-urlencoded")
        })
        expect(signIn.status).toBe(429)
        expect(Number(signIn.headers["retry-after"])).toBeGreaterThanOrEqual(1)
        expect(signIn.text).toContain("Too many wrong keys")
        // the right key still, at once
        expect((yield* send("GET", "/api/v1/gear")).status).toBe(200)
        // named at warning level, once in this minute
        const named = (yield* readChannel("daemon")).filter((l) => /wrong keys .* from 127\.0\.0\.1/.test(l.message))
        expect(named.map((l) => l.level)).toEqual(["WARN"])
        expect(named[0]!.message).toMatch(/^\d+ wrong keys \(API key\) from 127\.0\.0\.1 since it was last named: its wrong keys are answered after 100ms; the right key is never delayed$/)
        // a request without any key is not a wrong key: 401 at once, not 429
        expect((yield* send("GET", "/api/v1/gear", { key: null })).status).toBe(401)
      }), 120_000)
  })
})

describe("wrong keys, counted per daemon", () => {
  it.live("a second WrongKeys built in the same process starts with every address's count at nothing", () =>
    Effect.gen(function*() {
      const first = yield* Effect.provide(WrongKeys, WrongKeys.Default)
      // the bucket leaks while it fills: a few more than the limit reach it
      for (let i = 0; i < REFUSE_AT + 5; i++) yield* Effect.exit(Effect.timeout(first.wrongKey("10.0.0.1", "API key"), "1 millis"))
      expect((yield* Effect.flip(Effect.timeout(first.wrongKey("10.0.0.1", "API key"), "1 second")))._tag).toBe("TooManyRequests")
      const second = yield* Effect.provide(WrongKeys, WrongKeys.Default)
      // free again: answered at once, without any delay
      yield* Effect.timeout(second.wrongKey("10.0.0.1", "API key"), "1 second")
    }))
})
