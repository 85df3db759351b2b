import * as Data from "effect/Data"

/**
 * Why a call to the Wahoo cloud failed, in words a person reads on the dashboard.
 * - NotConnected: nobody has connected an account yet (no tokens).
 * - Unauthorized: Wahoo refused the tokens or the authorization code; connecting again fixes it.
 * - ApiError: any other answer outside 2xx (`status` holds it).
 * - Transport: no answer (connection refused, timeout, body cut off).
 * - InvalidResponse: an answer that does not have the documented shape.
 * A rate limit is the kit's `RateLimited`, so that the scheduler backs off.
 */
export type WahooErrorReason = "NotConnected" | "Unauthorized" | "ApiError" | "Transport" | "InvalidResponse"

export class WahooError extends Data.TaggedError("WahooError")<{
  readonly reason: WahooErrorReason
  readonly message: string
  readonly status?: number | undefined
}> {}

/** True for failures worth a quick retry: no answer at all, or a 5xx. */
export const isTransient = (error: WahooError): boolean =>
  error.reason === "Transport" || (error.reason === "ApiError" && error.status !== undefined && error.status >= 500)
