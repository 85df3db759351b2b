import * as Data from "effect/Data"

/**
 * Why a call to Strava failed.
 * - NotConfigured: a STRAVA_* variable is missing (the message names it).
 * - Unauthorized: Strava refused the token (401), or refused the refresh token at /oauth/token.
 * - Inactive: 403 "Inactive" (the application was deactivated or its subscription lapsed).
 * - RateLimited: a 429, or the daily budget is spent (`window` says which window).
 * - ApiError: any other 4xx/5xx (`status` holds it; the message joins Strava's `errors`).
 * - Transport: no response (connection refused, timeout, ...).
 * - InvalidResponse: the payload did not match the expected shape.
 */
export type StravaErrorReason =
  | "NotConfigured"
  | "Unauthorized"
  | "Inactive"
  | "RateLimited"
  | "ApiError"
  | "Transport"
  | "InvalidResponse"

export type RateLimitWindow = "15min" | "daily"

export class StravaError extends Data.TaggedError("StravaError")<{
  readonly reason: StravaErrorReason
  readonly message: string
  /** HTTP status when Strava answered. */
  readonly status?: number | undefined
  /** For RateLimited: which budget is spent. */
  readonly window?: RateLimitWindow | undefined
}> {}

/** True for failures worth a quick retry: no response at all, or a 5xx. */
export const isTransient = (error: StravaError): boolean =>
  error.reason === "Transport" || (error.reason === "ApiError" && error.status !== undefined && error.status >= 500)
