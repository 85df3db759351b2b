import { Option } from "effect"
import type { RateLimitWindow } from "./StravaError.ts"

/**
 * Strava's rate-limit headers. Each holds "15min,daily" (two comma-separated numbers).
 * Windows reset at :00/:15/:30/:45 and at midnight UTC.
 */
export const RATE_LIMIT_HEADERS = [
  "x-ratelimit-limit",
  "x-ratelimit-usage",
  "x-readratelimit-limit",
  "x-readratelimit-usage"
] as const

export interface RatePair {
  readonly fifteenMinutes: number
  readonly daily: number
}

export interface RateLimits {
  readonly limit: Option.Option<RatePair>
  readonly usage: Option.Option<RatePair>
  readonly readLimit: Option.Option<RatePair>
  readonly readUsage: Option.Option<RatePair>
}

/** The last rate-limit headers seen, with the time (epoch ms, from the Effect Clock) they were seen. */
export interface RateLimitSnapshot extends RateLimits {
  readonly observedAt: number
}

export const FIFTEEN_MINUTES_MS = 15 * 60 * 1000
export const DAY_MS = 24 * 60 * 60 * 1000

export const parsePair = (raw: string | undefined): Option.Option<RatePair> => {
  if (raw === undefined) return Option.none()
  const match = /^\s*(\d+)\s*,\s*(\d+)\s*$/.exec(raw)
  return match ? Option.some({ fifteenMinutes: Number(match[1]), daily: Number(match[2]) }) : Option.none()
}

export const parseRateLimits = (headers: Readonly<Record<string, string | undefined>>): RateLimits => ({
  limit: parsePair(headers["x-ratelimit-limit"]),
  usage: parsePair(headers["x-ratelimit-usage"]),
  readLimit: parsePair(headers["x-readratelimit-limit"]),
  readUsage: parsePair(headers["x-readratelimit-usage"])
})

export const hasRateLimits = (limits: RateLimits): boolean =>
  Option.isSome(limits.limit) || Option.isSome(limits.usage) || Option.isSome(limits.readLimit) ||
  Option.isSome(limits.readUsage)

const spent = (
  usage: Option.Option<RatePair>,
  limit: Option.Option<RatePair>,
  key: keyof RatePair,
  slack: number
): boolean =>
  Option.isSome(usage) && Option.isSome(limit) && limit.value[key] > 0 &&
  usage.value[key] >= limit.value[key] - slack

/**
 * "Reached" as the reference client means it: usage >= limit - 1, so the last request of a window is
 * never spent. `includeRead` applies the read budget too (GET calls).
 */
export const fifteenMinuteBudgetSpent = (limits: RateLimits, includeRead = true): boolean =>
  spent(limits.usage, limits.limit, "fifteenMinutes", 1) ||
  (includeRead && spent(limits.readUsage, limits.readLimit, "fifteenMinutes", 1))

export const dailyBudgetSpent = (limits: RateLimits, includeRead = true): boolean =>
  spent(limits.usage, limits.limit, "daily", 1) ||
  (includeRead && spent(limits.readUsage, limits.readLimit, "daily", 1))

/** Which window a 429 refers to: daily when a daily usage is at or over its limit, else 15min. */
export const windowOf429 = (limits: RateLimits): RateLimitWindow =>
  spent(limits.usage, limits.limit, "daily", 0) || spent(limits.readUsage, limits.readLimit, "daily", 0)
    ? "daily"
    : "15min"

/** Start (epoch ms) of the next quarter hour (:00/:15/:30/:45 UTC) strictly after `now`. */
export const nextQuarterHour = (now: number): number => Math.floor(now / FIFTEEN_MINUTES_MS) * FIFTEEN_MINUTES_MS + FIFTEEN_MINUTES_MS

/** Start (epoch ms) of the next UTC midnight strictly after `now`. */
export const nextUtcMidnight = (now: number): number => Math.floor(now / DAY_MS) * DAY_MS + DAY_MS

export type BudgetDecision =
  | { readonly _tag: "Proceed" }
  | { readonly _tag: "Wait"; readonly until: number }
  | { readonly _tag: "DailySpent"; readonly resetsAt: number }

/**
 * What the next call must do given the last snapshot: proceed, wait until the next quarter hour plus
 * `marginMs`, or give up for the day. A snapshot from an earlier window no longer counts.
 */
export const decide = (
  snapshot: Option.Option<RateLimitSnapshot>,
  now: number,
  options: { readonly isRead: boolean; readonly marginMs: number }
): BudgetDecision => {
  if (Option.isNone(snapshot)) return { _tag: "Proceed" }
  const s = snapshot.value
  if (Math.floor(s.observedAt / DAY_MS) === Math.floor(now / DAY_MS) && dailyBudgetSpent(s, options.isRead)) {
    return { _tag: "DailySpent", resetsAt: nextUtcMidnight(now) }
  }
  if (
    Math.floor(s.observedAt / FIFTEEN_MINUTES_MS) === Math.floor(now / FIFTEEN_MINUTES_MS) &&
    fifteenMinuteBudgetSpent(s, options.isRead)
  ) {
    return { _tag: "Wait", until: nextQuarterHour(now) + options.marginMs }
  }
  return { _tag: "Proceed" }
}
