import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { Chunk, Duration, Effect, Option, ParseResult, Schema, Stream } from "effect"
import { type Headers, type RateLimitSnapshot, RateLimited } from "./RateLimit.ts"

/**
 * One port for the clouds the connectors talk to (Strava, Polar, Wahoo). Each cloud's client
 * is the platform's `HttpClient` under a pipeline of combinators, built here once:
 *
 *   base URL -> JSON accepted -> auth -> rate budget awaited -> send (timed) ->
 *   rate-limit headers recorded -> 429 as `RateLimited` -> other answers outside 2xx as the
 *   cloud's tagged error -> no answer as the cloud's tagged error
 *
 * and its calls decode their answers with a schema (`json`) or read them within a limit
 * (`bytes`). A cloud says only what differs: its base URL, how it authorizes, how it counts
 * its rate limits, and its own error type (`CloudErrors`).
 */

/** How a cloud's failures are told, in its own tagged error `E`. */
export interface CloudErrors<E> {
  /** No answer: refused connection, timeout, a body cut off. */
  readonly transport: (request: HttpClientRequest.HttpClientRequest, detail: string) => E
  /** An answer outside 2xx (a 429 is `RateLimited` instead); `body` is its text. */
  readonly answered: (request: HttpClientRequest.HttpClientRequest, status: number, body: string) => E
  /** A 2xx answer without the documented shape, or larger than allowed. */
  readonly invalid: (request: HttpClientRequest.HttpClientRequest, status: number, detail: string) => E
}

/**
 * The rate-limit bookkeeping of a cloud (the kit's tracker, or a cloud's own windows), which
 * may fail in the cloud's own error `E`.
 */
export interface CloudBudget<E = never> {
  /** Before a call: waits out a spent window, or fails when the wait would be too long. */
  readonly awaitBudget: (request: HttpClientRequest.HttpClientRequest) => Effect.Effect<void, E | RateLimited>
  /** After an answer: records its rate-limit headers. */
  readonly observe: (request: HttpClientRequest.HttpClientRequest, response: HttpClientResponse.HttpClientResponse) => Effect.Effect<void>
  /** The failure of a 429 answer; without it a 429 is an answer like another (`CloudErrors.answered`). */
  readonly refused?: (request: HttpClientRequest.HttpClientRequest, headers: Headers) => Effect.Effect<RateLimited>
  readonly snapshot: Effect.Effect<Option.Option<RateLimitSnapshot>>
}

export interface CloudOptions<E> {
  /** The cloud's name in messages and spans, e.g. "Polar". */
  readonly cloud: string
  /** Prepended to relative request URLs; absolute ones (signed file addresses) are sent as they are. */
  readonly baseUrl: string
  /** Longest wait for an answer's head. */
  readonly timeout: Duration.DurationInput
  readonly errors: CloudErrors<E>
  /** Rate-limit bookkeeping; none for calls that do not count (token endpoints, file servers). */
  readonly budget?: CloudBudget<E>
  /** Adds the cloud's authorization to a request (a client secret, a bearer token). */
  readonly authorize?: (request: HttpClientRequest.HttpClientRequest) => HttpClientRequest.HttpClientRequest
}

/** A cloud as the connectors see it: its HTTP pipeline and the calls every cloud needs. */
export interface Cloud<E> {
  readonly cloud: string
  /** The pipeline: a 2xx answer, or `E` / `RateLimited`. */
  readonly http: HttpClient.HttpClient.With<E | RateLimited>
  /** A 2xx answer decoded by `schema` (unknown fields ignored). */
  readonly json: <A, I>(request: HttpClientRequest.HttpClientRequest, schema: Schema.Schema<A, I>) => Effect.Effect<A, E | RateLimited>
  /** A 2xx answer's bytes, failing `invalid` past `limit` while they arrive; status kept (204 means nothing). */
  readonly bytes: (
    request: HttpClientRequest.HttpClientRequest,
    options: { readonly limit: number; readonly timeout?: Duration.DurationInput }
  ) => Effect.Effect<{ readonly status: number; readonly body: Uint8Array }, E | RateLimited>
  /** The last rate-limit windows the cloud reported. */
  readonly rateLimits: Effect.Effect<Option.Option<RateLimitSnapshot>>
}

const isAbsolute = (url: string) => /^https?:\/\//i.test(url)

/** The path of a request, never its query (a query may carry a secret). */
export const pathOf = (url: string): string => {
  try {
    return new URL(url).pathname
  } catch {
    return url.split("?")[0] ?? url
  }
}

const describeCause = (error: { readonly reason: string; readonly cause?: unknown }) =>
  error.reason === "Transport" && error.cause !== undefined
    ? (error.cause instanceof Error ? error.cause.message : String(error.cause))
    : error.reason

/** The cloud's pipeline over `http`. */
export const makeCloud = <E>(http: HttpClient.HttpClient, options: CloudOptions<E>): Cloud<E> => {
  const { budget, errors } = options
  // `transform`'s signature keeps the platform's error beside the new one: every such error is mapped inside it
  const pipeline = http.pipe(
    HttpClient.mapRequest((request) =>
      isAbsolute(request.url) ? request : HttpClientRequest.prependUrl(request, options.baseUrl)
    ),
    HttpClient.mapRequest((request) =>
      request.headers["accept"] === undefined ? HttpClientRequest.acceptJson(request) : request
    ),
    HttpClient.mapRequest((request) => (options.authorize === undefined ? request : options.authorize(request))),
    HttpClient.transform((send, request) =>
      (budget === undefined ? Effect.void : budget.awaitBudget(request)).pipe(
        Effect.zipRight(send.pipe(
          Effect.mapError((e) => errors.transport(request, describeCause(e))),
          Effect.timeoutFail({ duration: options.timeout, onTimeout: () => errors.transport(request, "no answer in time") })
        )),
        Effect.tap((response) => (budget === undefined ? Effect.void : budget.observe(request, response))),
        Effect.flatMap((response): Effect.Effect<HttpClientResponse.HttpClientResponse, E | RateLimited> => {
          if (response.status >= 200 && response.status < 300) return Effect.succeed(response)
          const body = response.text.pipe(Effect.orElseSucceed(() => ""))
          if (response.status === 429 && budget?.refused !== undefined) {
            const refused = budget.refused
            return Effect.zipRight(body, Effect.flatMap(refused(request, response.headers), Effect.fail))
          }
          return Effect.flatMap(body, (text) => Effect.fail(errors.answered(request, response.status, text)))
        })
      )
    )
  ) as HttpClient.HttpClient.With<E | RateLimited>

  const where = (request: HttpClientRequest.HttpClientRequest) => `${request.method} ${pathOf(request.url)}`

  const json = <A, I>(request: HttpClientRequest.HttpClientRequest, schema: Schema.Schema<A, I>) =>
    pipeline.execute(request).pipe(
      Effect.flatMap((response) =>
        response.text.pipe(
          Effect.mapError((e) => errors.transport(request, `the answer was cut off (${e.reason})`)),
          Effect.flatMap((text) =>
            Effect.try({
              try: () => JSON.parse(text) as unknown,
              catch: () => errors.invalid(request, response.status, `${options.cloud} answered ${where(request)} with something that is not JSON`)
            })
          ),
          Effect.flatMap((value) =>
            Schema.decodeUnknown(schema, { onExcessProperty: "ignore" })(value).pipe(
              Effect.mapError((e) =>
                errors.invalid(
                  request,
                  response.status,
                  `${options.cloud}'s answer to ${where(request)} is not what was expected: ${ParseResult.TreeFormatter.formatErrorSync(e)}`
                )
              )
            )
          )
        )
      ),
      Effect.scoped
    )

  const bytes = (
    request: HttpClientRequest.HttpClientRequest,
    limits: { readonly limit: number; readonly timeout?: Duration.DurationInput }
  ) =>
    pipeline.execute(request).pipe(
      Effect.flatMap((response) =>
        response.stream.pipe(
          Stream.mapError((e) => errors.transport(request, `the answer was cut off (${e.reason})`)),
          Stream.runFoldEffect({ chunks: Chunk.empty<Uint8Array>(), size: 0 }, (read, chunk) =>
            read.size + chunk.length > limits.limit
              ? Effect.fail(errors.invalid(request, response.status, `${where(request)}: the answer is larger than ${limits.limit} bytes`))
              : Effect.succeed({ chunks: Chunk.append(read.chunks, chunk), size: read.size + chunk.length })),
          Effect.map((read) => ({ status: response.status, body: new Uint8Array(Buffer.concat(Chunk.toArray(read.chunks))) }))
        )
      ),
      Effect.timeoutFail({
        duration: limits.timeout ?? options.timeout,
        onTimeout: () => errors.transport(request, "the answer did not arrive in time")
      }),
      Effect.scoped
    )

  return {
    cloud: options.cloud,
    http: pipeline,
    json,
    bytes,
    rateLimits: budget === undefined ? Effect.succeed(Option.none()) : budget.snapshot
  }
}

/** The kit's rate-limit tracker as a cloud's budget. */
export const trackerBudget = (tracker: {
  readonly awaitBudget: () => Effect.Effect<void, RateLimited>
  readonly observe: (headers: Headers) => Effect.Effect<void>
  readonly refused: (headers: Headers) => Effect.Effect<RateLimited>
  readonly snapshot: Effect.Effect<Option.Option<RateLimitSnapshot>>
}): CloudBudget => ({
  awaitBudget: () => tracker.awaitBudget(),
  observe: (_, response) => tracker.observe(response.headers),
  refused: (_, headers) => tracker.refused(headers),
  snapshot: tracker.snapshot
})
