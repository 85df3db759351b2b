import * as Data from "effect/Data"

/**
 * Why a call to Polar failed (a 429 or a spent budget is the kit's RateLimited instead).
 * - Unauthorized: 401, Polar refused the token (revoked, or deleted after a replayed code);
 *   at the token endpoint: the code or the client credentials were refused.
 * - ConsentRequired: 403, the user has not accepted all mandatory consents.
 * - NotFound: 404 (an exercise or file Polar does not have).
 * - Conflict: 409 (user already registered, webhook already exists).
 * - ApiError: any other answer outside 2xx (`status` holds it).
 * - Transport: no answer (connection refused, timeout, ...).
 * - InvalidResponse: an answer that does not have the documented shape, or is too large.
 */
export type PolarErrorReason =
  | "Unauthorized"
  | "ConsentRequired"
  | "NotFound"
  | "Conflict"
  | "ApiError"
  | "Transport"
  | "InvalidResponse"

export class PolarError extends Data.TaggedError("PolarError")<{
  readonly reason: PolarErrorReason
  readonly message: string
  readonly status?: number | undefined
}> {}

/** Failures worth a quick retry: no answer at all, or a 5xx. */
export const isTransient = (error: PolarError): boolean =>
  error.reason === "Transport" || (error.reason === "ApiError" && error.status !== undefined && error.status >= 500)

/** Failures that concern the whole account, not one exercise: the cycle stops on them. */
export const isAccountFailure = (error: PolarError): boolean =>
  error.reason === "Unauthorized" || error.reason === "ConsentRequired"
