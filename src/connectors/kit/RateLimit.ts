import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"

/**
 * Rate-limit bookkeeping of the clouds: the usage and limit of each window, read from the
 * response headers of each cloud's convention, and the decision to go on or wait (how long)
 * before the next call. Windows are spent when at most `reserve` calls remain; a spent window
 * no longer counts once it has reset.
 *
 * - Strava: `x-ratelimit-usage` / `x-ratelimit-limit` "15min,daily" (and the same for reads,
 *   `x-readratelimit-*`); windows reset at :00/:15/:30/:45 and at midnight UTC.
 * - Polar: `RateLimit-Usage` / `RateLimit-Limit` / `RateLimit-Reset` "short, long" (15 minutes,
 *   24 hours; reset in seconds).
 * - Wahoo: `X-RateLimit-Limit` / `X-RateLimit-Remaining` "day, hour, 5min" and
 *   `X-RateLimit-Reset` in seconds.
 */

export interface RateWindow {
  /** e.g. `15min`, `daily`, `short`, `long`, `day`, `hour`, `5min` */
  readonly name: string
  readonly usage: number
  readonly limit: number
  /** When the window starts afresh (epoch ms). When the cloud does not say, the window's length from now, which is never early. */
  readonly resetsAt: number
}

export interface RateLimitSnapshot {
  /** When the headers were read (epoch ms). */
  readonly observedAt: number
  readonly windows: ReadonlyArray<RateWindow>
}

export type Headers = Readonly<Record<string, string | undefined>>

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

const header = (headers: Headers, name: string): string | undefined => {
  const direct = headers[name]
  if (direct !== undefined) return direct
  const wanted = name.toLowerCase()
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value
  return undefined
}

/** "600, 30000" -> [600, 30000]; an item may carry parameters (`520;w=900`). None when any item is not a number. */
export const parseNumbers = (raw: string | undefined): Option.Option<ReadonlyArray<number>> => {
  if (raw === undefined || raw.trim() === "") return Option.none()
  const items = raw.split(",").map((item) => /^\s*(\d+)\s*(;.*)?$/.exec(item))
  return items.every((m) => m !== null) ? Option.some(items.map((m) => Number(m![1]))) : Option.none()
}

const zipWindows = (
  names: ReadonlyArray<readonly [name: string, length: number]>,
  usage: ReadonlyArray<number>,
  limit: ReadonlyArray<number>,
  resetsAt: (index: number, length: number) => number
): Array<RateWindow> =>
  names.flatMap(([name, length], i) =>
    usage[i] !== undefined && limit[i] !== undefined
      ? [{ name, usage: usage[i]!, limit: limit[i]!, resetsAt: resetsAt(i, length) }]
      : []
  )

const snapshotOf = (now: number, windows: ReadonlyArray<RateWindow>): Option.Option<RateLimitSnapshot> =>
  windows.length > 0 ? Option.some({ observedAt: now, windows }) : Option.none()

/** Start (epoch ms) of the next window of `length` aligned on the UTC epoch, strictly after `now`. */
const nextAligned = (now: number, length: number) => Math.floor(now / length) * length + length

/** Reset times from a reset header: one value per window, or one value for every window. */
const resetFrom = (resets: Option.Option<ReadonlyArray<number>>, now: number) => (i: number, length: number) => {
  if (Option.isNone(resets)) return now + length
  const seconds = resets.value.length === 1 ? resets.value[0] : resets.value[i]
  return seconds === undefined ? now + length : now + seconds * 1000
}

/** Strava: windows `15min` and `daily`, and for reads `read-15min` and `read-daily`. */
export const parseStrava = (headers: Headers, now: number): Option.Option<RateLimitSnapshot> => {
  const aligned = (_: number, length: number) => nextAligned(now, length)
  const windows = (prefix: string, names: ReadonlyArray<readonly [string, number]>) =>
    zipWindows(
      names,
      Option.getOrElse(parseNumbers(header(headers, `${prefix}-usage`)), () => []),
      Option.getOrElse(parseNumbers(header(headers, `${prefix}-limit`)), () => []),
      aligned
    )
  return snapshotOf(now, [
    ...windows("x-ratelimit", [["15min", 15 * MINUTE], ["daily", DAY]]),
    ...windows("x-readratelimit", [["read-15min", 15 * MINUTE], ["read-daily", DAY]])
  ])
}

/** Polar: windows `short` (15 minutes) and `long` (24 hours). */
export const parsePolar = (headers: Headers, now: number): Option.Option<RateLimitSnapshot> =>
  snapshotOf(
    now,
    zipWindows(
      [["short", 15 * MINUTE], ["long", DAY]],
      Option.getOrElse(parseNumbers(header(headers, "ratelimit-usage")), () => []),
      Option.getOrElse(parseNumbers(header(headers, "ratelimit-limit")), () => []),
      resetFrom(parseNumbers(header(headers, "ratelimit-reset")), now)
    )
  )

/** Wahoo: windows `day`, `hour` and `5min`; usage is limit minus remaining. */
export const parseWahoo = (headers: Headers, now: number): Option.Option<RateLimitSnapshot> => {
  const limit = Option.getOrElse(parseNumbers(header(headers, "x-ratelimit-limit")), () => [])
  const remaining = Option.getOrElse(parseNumbers(header(headers, "x-ratelimit-remaining")), () => [])
  return snapshotOf(
    now,
    zipWindows(
      [["day", DAY], ["hour", HOUR], ["5min", 5 * MINUTE]],
      remaining.map((r, i) => Math.max(0, (limit[i] ?? r) - r)),
      limit,
      resetFrom(parseNumbers(header(headers, "x-ratelimit-reset")), now)
    )
  )
}

/** `Retry-After` of a 429 or 503: seconds, or an HTTP date. */
export const retryAfter = (headers: Headers, now: number): Option.Option<Duration.Duration> => {
  const raw = header(headers, "retry-after")?.trim()
  if (raw === undefined || raw === "") return Option.none()
  if (/^\d+$/.test(raw)) return Option.some(Duration.seconds(Number(raw)))
  const at = Date.parse(raw)
  return Number.isNaN(at) ? Option.none() : Option.some(Duration.millis(Math.max(0, at - now)))
}

export type RateDecision =
  | { readonly _tag: "Proceed" }
  /** wait until `until` (epoch ms), then go on */
  | { readonly _tag: "Wait"; readonly until: number; readonly window: string }
  /** the wait would be longer than allowed: give up (the cycle ends rate limited) */
  | { readonly _tag: "Exhausted"; readonly until: number; readonly window: string }

export interface DecideOptions {
  /** Calls kept in hand in each window: spent when remaining <= reserve. Default 1. */
  readonly reserve?: number | Readonly<Record<string, number>>
  /** Windows that count (e.g. Strava's read windows only for GETs). Default all. */
  readonly windows?: ReadonlyArray<string>
  /** Longest wait worth making inside a cycle; beyond it the decision is Exhausted. Default 15 minutes. */
  readonly maxWait?: Duration.DurationInput
}

const reserveOf = (reserve: DecideOptions["reserve"], window: string) =>
  typeof reserve === "number" ? reserve : reserve?.[window] ?? 1

/** Whether `window` is spent at `now` (reached its reserve and not reset yet). */
export const isSpent = (window: RateWindow, now: number, reserve: number): boolean =>
  window.resetsAt > now && window.limit > 0 && window.limit - window.usage <= reserve

/** What the next call must do given the last snapshot. */
export const decide = (snapshot: Option.Option<RateLimitSnapshot>, now: number, options: DecideOptions = {}): RateDecision => {
  if (Option.isNone(snapshot)) return { _tag: "Proceed" }
  const spent = snapshot.value.windows
    .filter((w) => options.windows === undefined || options.windows.includes(w.name))
    .filter((w) => isSpent(w, now, reserveOf(options.reserve, w.name)))
  if (spent.length === 0) return { _tag: "Proceed" }
  const binding = spent.reduce((a, b) => (b.resetsAt > a.resetsAt ? b : a))
  const tooLong = binding.resetsAt - now > Duration.toMillis(options.maxWait ?? Duration.minutes(15))
  return { _tag: tooLong ? "Exhausted" : "Wait", until: binding.resetsAt, window: binding.name }
}

export interface WindowStatus {
  readonly window: string
  readonly usage: number
  readonly limit: number
  readonly remaining: number
  /** Seconds until it resets, counted from `now`. */
  readonly resetSeconds: number
}

/** Every window as a status page shows it. */
export const windowsStatus = (snapshot: Option.Option<RateLimitSnapshot>, now: number): ReadonlyArray<WindowStatus> =>
  Option.match(snapshot, {
    onNone: () => [],
    onSome: (s) =>
      s.windows.map((w) => {
        const reset = w.resetsAt > now
        return {
          window: w.name,
          usage: reset ? w.usage : 0,
          limit: w.limit,
          remaining: reset ? Math.max(0, w.limit - w.usage) : w.limit,
          resetSeconds: Math.max(0, Math.ceil((w.resetsAt - now) / 1000))
        }
      })
  })

/** Status of a two-window cloud (Polar `/status`): the first window is short, the second long; null when unknown. */
export interface ShortLongStatus {
  readonly shortUsage: number | null
  readonly shortLimit: number | null
  readonly longUsage: number | null
  readonly longLimit: number | null
  /** Seconds until the short window resets, or the long one when that one is spent. */
  readonly resetSeconds: number | null
}

export const shortLongStatus = (snapshot: Option.Option<RateLimitSnapshot>, now: number, reserve = 1): ShortLongStatus => {
  const [short, long] = windowsStatus(snapshot, now)
  const longSpent = Option.isSome(snapshot) && snapshot.value.windows[1] !== undefined &&
    isSpent(snapshot.value.windows[1], now, reserve)
  return {
    shortUsage: short?.usage ?? null,
    shortLimit: short?.limit ?? null,
    longUsage: long?.usage ?? null,
    longLimit: long?.limit ?? null,
    resetSeconds: (longSpent ? long?.resetSeconds : short?.resetSeconds) ?? null
  }
}

/** A cycle (or call) stopped on a rate limit; `retryAfter` says when the cloud will answer again, when known. */
export class RateLimited extends Data.TaggedError("RateLimited")<{
  readonly message: string
  readonly retryAfter?: Duration.Duration | undefined
}> {}

export interface RateLimitTracker {
  /** Records the headers of a response (ignored when they carry no rate limits). */
  readonly observe: (headers: Headers) => Effect.Effect<void>
  readonly snapshot: Effect.Effect<Option.Option<RateLimitSnapshot>>
  /** Before a call: waits out a spent window, or fails with RateLimited when the wait is too long. */
  readonly awaitBudget: (options?: Pick<DecideOptions, "windows">) => Effect.Effect<void, RateLimited>
  /** The RateLimited failure of a 429 answer (records its headers; Retry-After when given). */
  readonly refused: (headers: Headers) => Effect.Effect<RateLimited>
}

export interface TrackerOptions extends Omit<DecideOptions, "windows"> {
  /** Cloud name for messages, e.g. "Polar". */
  readonly cloud: string
  readonly parse: (headers: Headers, now: number) => Option.Option<RateLimitSnapshot>
}

/** Keeps the last rate-limit snapshot of one cloud and applies `decide` before each call. */
export const makeRateLimitTracker = (options: TrackerOptions): Effect.Effect<RateLimitTracker> =>
  Effect.gen(function*() {
    const last = yield* Ref.make(Option.none<RateLimitSnapshot>())
    const iso = (ms: number) => DateTime.formatIso(DateTime.unsafeMake(ms))

    const observe = (headers: Headers) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Option.match(options.parse(headers, now), {
          onNone: () => Effect.void,
          onSome: (snapshot) => Ref.set(last, Option.some(snapshot))
        }))

    const awaitBudget = (only: Pick<DecideOptions, "windows"> = {}) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const decision = decide(yield* Ref.get(last), now, { ...options, ...only })
        switch (decision._tag) {
          case "Proceed":
            return
          case "Wait":
            yield* Effect.logInfo(
              `${options.cloud} ${decision.window} rate limit reached: waiting until ${iso(decision.until)}`
            )
            return yield* Effect.sleep(Duration.millis(decision.until - now))
          case "Exhausted":
            return yield* new RateLimited({
              message: `${options.cloud} ${decision.window} rate limit reached; it resets at ${iso(decision.until)}`,
              retryAfter: Duration.millis(decision.until - now)
            })
        }
      })

    const refused = (headers: Headers) =>
      Effect.gen(function*() {
        yield* observe(headers)
        const now = yield* Clock.currentTimeMillis
        const hinted = retryAfter(headers, now)
        const decision = decide(yield* Ref.get(last), now, { ...options, maxWait: 0 })
        const until = Option.isSome(hinted)
          ? now + Duration.toMillis(hinted.value)
          : decision._tag === "Proceed"
          ? undefined
          : decision.until
        return new RateLimited({
          message: `${options.cloud} answered 429 Too Many Requests` +
            (until === undefined ? "" : `; retry after ${iso(until)}`),
          retryAfter: until === undefined ? undefined : Duration.millis(until - now)
        })
      })

    return { observe, snapshot: Ref.get(last), awaitBudget, refused } satisfies RateLimitTracker
  })
