import * as Data from "effect/Data"

/**
 * Why a call to a cloud (Polar, Wahoo) failed, in words a person reads on the dashboard. A rate
 * limit is the kit's `RateLimited` instead, so that the scheduler backs off.
 * - NotConnected: nobody has connected an account yet (no tokens).
 * - Unauthorized: the cloud refused the token, the authorization code or the client
 *   credentials; connecting again (or fixing the credentials) fixes it.
 * - ConsentRequired: 403, the user has not accepted all mandatory consents.
 * - NotFound: 404 (an item or file the cloud does not have).
 * - Conflict: 409 (user already registered, webhook already exists).
 * - ApiError: any other answer outside 2xx (`status` holds it).
 * - Transport: no answer (connection refused, timeout, body cut off).
 * - InvalidResponse: an answer that does not have the documented shape, or is too large.
 */
export type CloudErrorReason =
  | "NotConnected"
  | "Unauthorized"
  | "ConsentRequired"
  | "NotFound"
  | "Conflict"
  | "ApiError"
  | "Transport"
  | "InvalidResponse"

export class CloudError extends Data.TaggedError("CloudError")<{
  readonly reason: CloudErrorReason
  readonly message: string
  readonly status?: number | undefined
}> {}

/** True for failures worth a quick retry: no answer at all, or a 5xx. */
export const isTransient = (error: CloudError): boolean =>
  error.reason === "Transport" || (error.reason === "ApiError" && error.status !== undefined && error.status >= 500)

