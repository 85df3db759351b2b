import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Option, TestClock } from "effect"
import {
  decide,
  makeRateLimitTracker,
  parsePolar,
  parseStrava,
  parseWahoo,
  RateLimited,
  retryAfter,
  shortLongStatus,
  windowsStatus
} from "../../../src/connectors/kit/RateLimit.ts"

const T0 = Date.parse("2026-03-10T10:07:00Z")
const MIN = 60_000

describe("rate-limit headers", () => {
  it("Strava: 15min and daily windows (plus reads), reset at the quarter hour and at midnight UTC", () => {
    const snapshot = Option.getOrThrow(parseStrava({
      "x-ratelimit-limit": "200,2000",
      "x-ratelimit-usage": "199,350",
      "x-readratelimit-limit": "100,1000",
      "x-readratelimit-usage": "12,80"
    }, T0))
    expect(snapshot.windows).toEqual([
      { name: "15min", usage: 199, limit: 200, resetsAt: Date.parse("2026-03-10T10:15:00Z") },
      { name: "daily", usage: 350, limit: 2000, resetsAt: Date.parse("2026-03-11T00:00:00Z") },
      { name: "read-15min", usage: 12, limit: 100, resetsAt: Date.parse("2026-03-10T10:15:00Z") },
      { name: "read-daily", usage: 80, limit: 1000, resetsAt: Date.parse("2026-03-11T00:00:00Z") }
    ])
    expect(parseStrava({ "x-ratelimit-limit": "", "x-ratelimit-usage": "" }, T0)).toEqual(Option.none())
  })

  it("Polar: short and long windows with their own reset, header names in any case", () => {
    const snapshot = Option.getOrThrow(parsePolar({
      "RateLimit-Usage": "12, 340",
      "ratelimit-limit": "520, 5100",
      "RATELIMIT-RESET": "600, 40000"
    }, T0))
    expect(snapshot.windows).toEqual([
      { name: "short", usage: 12, limit: 520, resetsAt: T0 + 600_000 },
      { name: "long", usage: 340, limit: 5100, resetsAt: T0 + 40_000_000 }
    ])
  })

  it("Polar without a reset header: the window length, never early", () => {
    const snapshot = Option.getOrThrow(parsePolar({ "ratelimit-usage": "1, 2", "ratelimit-limit": "520, 5100" }, T0))
    expect(snapshot.windows.map((w) => w.resetsAt - T0)).toEqual([15 * MIN, 24 * 60 * MIN])
  })

  it("Wahoo: day, hour, 5min from limit and remaining; one reset for every window", () => {
    const snapshot = Option.getOrThrow(parseWahoo({
      "X-RateLimit-Limit": "5000, 1000, 200",
      "X-RateLimit-Remaining": "4990, 995, 2",
      "X-RateLimit-Reset": "120"
    }, T0))
    expect(snapshot.windows).toEqual([
      { name: "day", usage: 10, limit: 5000, resetsAt: T0 + 120_000 },
      { name: "hour", usage: 5, limit: 1000, resetsAt: T0 + 120_000 },
      { name: "5min", usage: 198, limit: 200, resetsAt: T0 + 120_000 }
    ])
  })

  it("garbage is no snapshot", () => {
    expect(parsePolar({ "ratelimit-usage": "lots", "ratelimit-limit": "520, 5100" }, T0)).toEqual(Option.none())
    expect(parseWahoo({}, T0)).toEqual(Option.none())
  })

  it("Retry-After: seconds or an HTTP date", () => {
    expect(retryAfter({ "Retry-After": "120" }, T0)).toEqual(Option.some(Duration.seconds(120)))
    expect(retryAfter({ "retry-after": new Date(T0 + 90_000).toUTCString() }, T0)).toEqual(Option.some(Duration.millis(90_000)))
    expect(retryAfter({ "retry-after": "soon" }, T0)).toEqual(Option.none())
    expect(retryAfter({}, T0)).toEqual(Option.none())
  })
})

describe("decide", () => {
  const strava = parseStrava({ "x-ratelimit-limit": "200,2000", "x-ratelimit-usage": "199,350", "x-readratelimit-limit": "100,1000", "x-readratelimit-usage": "12,80" }, T0)

  it("proceeds without a snapshot, or with calls left beyond the reserve", () => {
    expect(decide(Option.none(), T0)).toEqual({ _tag: "Proceed" })
    expect(decide(parsePolar({ "ratelimit-usage": "518, 0", "ratelimit-limit": "520, 5100" }, T0), T0)).toEqual({ _tag: "Proceed" })
  })

  it("waits for the spent window to reset (Strava: next quarter hour)", () => {
    expect(decide(strava, T0)).toEqual({ _tag: "Wait", until: Date.parse("2026-03-10T10:15:00Z"), window: "15min" })
  })

  it("a window that has reset no longer counts", () => {
    expect(decide(strava, Date.parse("2026-03-10T10:15:00Z"))).toEqual({ _tag: "Proceed" })
  })

  it("a wait longer than maxWait is Exhausted (a spent day)", () => {
    const polar = parsePolar({ "ratelimit-usage": "3, 5100", "ratelimit-limit": "520, 5100", "ratelimit-reset": "800, 40000" }, T0)
    expect(decide(polar, T0)).toEqual({ _tag: "Exhausted", until: T0 + 40_000_000, window: "long" })
    expect(decide(polar, T0, { maxWait: "12 hours" })).toEqual({ _tag: "Wait", until: T0 + 40_000_000, window: "long" })
  })

  it("reserves per window (Wahoo: 5min <= 2, hour and day <= 5)", () => {
    const reserve = { "5min": 2, hour: 5, day: 5 }
    const headers = (remaining: string) => ({ "x-ratelimit-limit": "5000, 1000, 200", "x-ratelimit-remaining": remaining, "x-ratelimit-reset": "60" })
    expect(decide(parseWahoo(headers("4990, 995, 3"), T0), T0, { reserve })).toEqual({ _tag: "Proceed" })
    expect(decide(parseWahoo(headers("4990, 995, 2"), T0), T0, { reserve })).toEqual({ _tag: "Wait", until: T0 + 60_000, window: "5min" })
    expect(decide(parseWahoo(headers("4990, 5, 100"), T0), T0, { reserve })).toEqual({ _tag: "Wait", until: T0 + 60_000, window: "hour" })
  })

  it("counts only the windows asked for (Strava writes ignore the read budget)", () => {
    const reads = parseStrava({ "x-ratelimit-limit": "200,2000", "x-ratelimit-usage": "10,350", "x-readratelimit-limit": "100,1000", "x-readratelimit-usage": "99,80" }, T0)
    expect(decide(reads, T0)._tag).toBe("Wait")
    expect(decide(reads, T0, { windows: ["15min", "daily"] })).toEqual({ _tag: "Proceed" })
  })
})

describe("status", () => {
  it("Polar /status: short and long usage and limits, seconds to the reset, counting down", () => {
    const polar = parsePolar({ "ratelimit-usage": "12, 340", "ratelimit-limit": "520, 5100", "ratelimit-reset": "600, 40000" }, T0)
    expect(shortLongStatus(polar, T0 + 100_000)).toEqual({ shortUsage: 12, shortLimit: 520, longUsage: 340, longLimit: 5100, resetSeconds: 500 })
    expect(shortLongStatus(Option.none(), T0)).toEqual({ shortUsage: null, shortLimit: null, longUsage: null, longLimit: null, resetSeconds: null })
  })

  it("Polar /status with the long window spent shows the long reset", () => {
    const polar = parsePolar({ "ratelimit-usage": "12, 5100", "ratelimit-limit": "520, 5100", "ratelimit-reset": "600, 40000" }, T0)
    expect(shortLongStatus(polar, T0).resetSeconds).toBe(40_000)
  })

  it("a reset window shows no usage", () => {
    const polar = parsePolar({ "ratelimit-usage": "519, 340", "ratelimit-limit": "520, 5100", "ratelimit-reset": "60, 40000" }, T0)
    expect(windowsStatus(polar, T0 + 61_000)[0]).toEqual({ window: "short", usage: 0, limit: 520, remaining: 520, resetSeconds: 0 })
  })
})

describe("RateLimitTracker", () => {
  it.effect("waits out a spent short window, then goes on", () =>
    Effect.gen(function*() {
      const tracker = yield* makeRateLimitTracker({ cloud: "Polar", parse: parsePolar })
      yield* tracker.observe({ "ratelimit-usage": "519, 10", "ratelimit-limit": "520, 5100", "ratelimit-reset": "300, 40000" })
      const waiting = yield* Effect.fork(tracker.awaitBudget())
      yield* TestClock.adjust("299 seconds")
      expect(Option.isNone(yield* Fiber.poll(waiting))).toBe(true)
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(waiting)).toBeUndefined()
    }))

  it.effect("fails with RateLimited when the wait is too long, saying until when", () =>
    Effect.gen(function*() {
      const tracker = yield* makeRateLimitTracker({ cloud: "Polar", parse: parsePolar })
      yield* tracker.observe({ "ratelimit-usage": "5, 5100", "ratelimit-limit": "520, 5100", "ratelimit-reset": "300, 3600" })
      const error = yield* Effect.flip(tracker.awaitBudget())
      expect(error).toBeInstanceOf(RateLimited)
      expect(error.message).toBe("Polar long rate limit reached; it resets at 1970-01-01T01:00:00.000Z")
      expect(error.retryAfter).toEqual(Duration.millis(3_600_000))
    }))

  it.effect("a 429 becomes RateLimited with Retry-After, else the spent window's reset", () =>
    Effect.gen(function*() {
      const tracker = yield* makeRateLimitTracker({ cloud: "Wahoo", parse: parseWahoo })
      const hinted = yield* tracker.refused({ "retry-after": "60" })
      expect(hinted.retryAfter).toEqual(Duration.seconds(60))
      const fromHeaders = yield* tracker.refused({ "x-ratelimit-limit": "5000, 1000, 200", "x-ratelimit-remaining": "4000, 900, 0", "x-ratelimit-reset": "90" })
      expect(fromHeaders.retryAfter).toEqual(Duration.seconds(90))
      expect(fromHeaders.message).toMatch(/^Wahoo answered 429 Too Many Requests; retry after/)
    }))
})
