import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Multipart from "@effect/platform/Multipart"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { randomUUID } from "node:crypto"
import {
  type ApiError,
  BadRequest,
  apiErrors,
  FileTooLarge,
  InternalError,
  InvalidToken,
  isApiError,
  MethodNotAllowed,
  NotFound
} from "../schema/ApiErrors.ts"
import { truncateText } from "../schema/ActivityLimits.ts"
import { ApiKey } from "../services/platform/ApiKey.ts"
import { causeIsDiskFull, diskFull } from "./DiskFull.ts"
import { inChannel } from "../services/platform/Logs.ts"
import { WrongKeys } from "./WrongKeys.ts"
import { RouteTable } from "./RouteTable.ts"

/**
 * Every failure under /api/v1 leaves as `{error, message}` with its status: our tagged
 * errors, the framework's decode errors and unknown routes, a full disk (507, logged in the
 * `errors` channel), and unexpected defects (500 with a reference that the `errors` log
 * channel repeats with the stack trace).
 */

export const API_PREFIX = "/api/v1"

export const errorResponse = (error: ApiError): HttpServerResponse.HttpServerResponse => {
  const { code, status } = apiErrors[error._tag]
  const headers: Record<string, string> = {}
  if (error._tag === "InvalidToken") headers["www-authenticate"] = 'Bearer realm="waymark"'
  if (error._tag === "MethodNotAllowed") headers["allow"] = error.allow.join(", ")
  if (error._tag === "TooManyRequests") headers["retry-after"] = String(error.retryAfterSeconds)
  // the rest of a refused body is never read: the connection cannot carry another request
  if (status === 413) headers["connection"] = "close"
  return HttpServerResponse.unsafeJson({ error: code, message: error.message }, { status, headers })
}

const isUnderApi = (url: string) => {
  const path = url.split("?")[0]!
  return path === API_PREFIX || path.startsWith(API_PREFIX + "/")
}

/** Longest decode message an answer repeats: it may quote the client's value. */
const MAX_DECODE_MESSAGE_LENGTH = 300

/** Names the parameter or field a decode error is about, in a message cut short. */
export const decodeErrorMessage = (error: HttpApiError.HttpApiDecodeError): string => {
  const issue = error.issues[0]
  if (issue === undefined) return "The request could not be processed."
  const name = issue.path.length > 0 ? truncateText(String(issue.path[0]), 64) : undefined
  const message = name === undefined || issue.message.includes(`"${name}"`) ? issue.message : `"${name}" is not valid: ${issue.message}`
  return truncateText(message, MAX_DECODE_MESSAGE_LENGTH)
}

const multipartError = (error: Multipart.MultipartError): ApiError =>
  error.reason === "FileTooLarge" || error.reason === "BodyTooLarge" || error.reason === "FieldTooLarge"
    ? new FileTooLarge()
    : new BadRequest({ message: "The multipart body could not be read." })

/**
 * The 500 of an unexpected failure: a short reference in the answer, and in the `errors` log
 * channel with the method, path and stack trace.
 */
export const internalErrorResponse = (method: string, url: string, cause: Cause.Cause<unknown>, message: string = apiErrors.InternalError.message) =>
  Effect.gen(function*() {
    const reference = randomUUID().replaceAll("-", "").slice(0, 8)
    const path = url.split("?")[0]
    yield* Effect.logError(`${reference} - ${method} ${path}`).pipe(
      Effect.annotateLogs({ reference, method, path }),
      Effect.annotateLogs("stack", Cause.pretty(cause, { renderErrorCause: true })),
      inChannel("errors")
    )
    return errorResponse(new InternalError({ message: `${message} Reference: ${reference}.` }))
  })

/**
 * The answer to a failure both ways in may meet (an error the endpoint declares, a defect):
 * the error's own answer, at once; or an effect that logs first: a write that found the disk
 * (or the database file) full, 507, whatever layer it failed in; any other, the 500 with its
 * reference (an InternalError keeps its message).
 */
export const failureAnswer = (
  method: string,
  url: string,
  cause: Cause.Cause<unknown>
): HttpServerResponse.HttpServerResponse | Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const error = Option.getOrUndefined(Option.orElse(Cause.failureOption(cause), () => Cause.dieOption(cause)))
  if ((isApiError(error) && error._tag === "InsufficientStorage") || causeIsDiskFull(cause)) {
    const path = url.split("?")[0]
    return Effect.logError(`${method} ${path}: the disk is full, nothing was stored`).pipe(
      Effect.annotateLogs({ method, path }),
      inChannel("errors"),
      Effect.as(errorResponse(diskFull()))
    )
  }
  if (isApiError(error) && error._tag !== "InternalError") return errorResponse(error)
  return internalErrorResponse(method, url, cause, isApiError(error) ? error.message : undefined)
}

export const ErrorResponsesLive = HttpApiBuilder.middleware(
  Effect.gen(function*() {
    const apiKey = yield* ApiKey
    const wrongKeys = yield* WrongKeys
    const routes = yield* RouteTable
    return (app) =>
      Effect.catchAllCause(app, (cause) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const failure = Cause.failureOption(cause)
          const defect = Option.isNone(failure) ? Cause.dieOption(cause) : Option.none()
          const error = Option.getOrUndefined(Option.orElse(failure, () => defect))
          if (Cause.isInterruptedOnly(cause)) return yield* Effect.failCause(cause)

          // an error of the framework's own (neither ours nor a full disk): answered in our shape
          if (!isApiError(error) && !causeIsDiskFull(cause)) {
            if (error instanceof HttpApiError.HttpApiDecodeError) {
              return errorResponse(new BadRequest({ message: decodeErrorMessage(error) }))
            }
            if (error instanceof HttpServerError.RouteNotFound) {
              if (!isUnderApi(request.url)) {
                return errorResponse(new NotFound())
              }
              const denied = apiKey.check(request.headers["authorization"])
              if (Either.isLeft(denied)) {
                const counted = request.headers["authorization"] === undefined || !apiKey.isConfigured
                  ? Effect.void
                  : wrongKeys.wrongKey(Option.getOrUndefined(request.remoteAddress), "API key")
                return yield* counted.pipe(Effect.as(errorResponse(new InvalidToken({ message: denied.left }))), Effect.catchAll((e) => Effect.succeed(errorResponse(e))))
              }
              const allow = routes.allowedMethods(request.url.split("?")[0]!)
              return allow.length > 0
                ? errorResponse(new MethodNotAllowed({ message: `The method ${request.method} is not allowed here. Allowed: ${allow.join(", ")}.`, allow }))
                : errorResponse(new NotFound({ message: "This API endpoint does not exist." }))
            }
            if (error instanceof Multipart.MultipartError) return errorResponse(multipartError(error))
            if (error instanceof HttpServerError.RequestError && error.reason === "Decode") {
              return errorResponse(new BadRequest({ message: "The request body could not be read." }))
            }
          }
          const answer = failureAnswer(request.method, request.url, cause)
          return HttpServerResponse.isServerResponse(answer) ? answer : yield* answer
        })
      )
  })
)
