import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { truncateText } from "../../schema/ActivityLimits.ts"
import { describeParseError } from "./describeParseError.ts"
import { type Headers, type RateLimitSnapshot, RateLimited } from "./RateLimit.ts"

/**
 * The one port through which every connector talks to its cloud (Strava, Polar, Wahoo). A
 * cloud's client is the platform's `HttpClient` under one pipeline of combinators, built here:
 *
 *   base URL -> JSON accepted -> authorization -> rate budget awaited -> send (timed, traced)
 *   -> rate-limit headers recorded -> 429 as `RateLimited` -> other answers outside 2xx as the
 *   cloud's tagged error (their text read within a limit) -> no answer as the cloud's tagged error
 *
 * and its calls read their answers within a limit: decoded by a schema (`json`), as bytes
 * (`bytes`) or as a stream (`stream`). A call that fails for a transient reason (no answer, a
 * 5xx, an answer cut off) is asked again whole, reading included: GETs, unless the cloud says
 * which requests may be repeated. A cloud says only what differs: its base URL, how it
 * authorizes, how it counts its rate limits, and its own tagged error (`CloudErrors`).
 */

/** Asked again twice on a transient failure, after 0.5 s then 1 s. */
export const TRANSIENT_RETRY = Schedule.exponential("500 millis").pipe(Schedule.intersect(Schedule.recurs(2)))
/** Largest JSON answer read; an API answer is a page of a few hundred items at most. */
export const MAX_JSON_BYTES = 16 * 1024 * 1024
/** How much of an error answer is read: its message is in the first few lines. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024

/** How a cloud's failures are told, in its own tagged error `E`. */
export interface CloudErrors<E> {
  /** No answer: refused connection, timeout, a body cut off. */
  readonly transport: (request: HttpClientRequest.HttpClientRequest, detail: string) => E
  /** An answer outside 2xx (a 429 is `RateLimited` instead); `body` is the start of its text. */
  readonly answered: (request: HttpClientRequest.HttpClientRequest, status: number, body: string) => E
  /** A 2xx answer without the documented shape, or larger than allowed. */
  readonly invalid: (request: HttpClientRequest.HttpClientRequest, status: number, detail: string) => E
  /** Failures worth asking again at once: no answer at all, or a 5xx. */
  readonly isTransient: (error: E) => boolean
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

/** Adds a cloud's authorization to a request (a client secret, a bearer token that may need refreshing). */
export type Authorize<E> = (request: HttpClientRequest.HttpClientRequest) => Effect.Effect<HttpClientRequest.HttpClientRequest, E>

export interface CloudOptions<E> {
  /** The cloud's name in messages, and of its spans (`<cloud>.call`), e.g. "Polar". */
  readonly cloud: string
  /** Prepended to relative request URLs; absolute ones (signed file addresses) are sent as they are. */
  readonly baseUrl: string
  /** Longest wait for an answer's head, and then for a JSON answer's body. */
  readonly timeout: Duration.DurationInput
  readonly errors: CloudErrors<E>
  /** Rate-limit bookkeeping; none for calls that do not count (token endpoints, file servers). */
  readonly budget?: CloudBudget<E>
  readonly authorize?: Authorize<E>
  /** Requests asked again after a transient failure; GETs by default (a POST may have been done). */
  readonly retryable?: (request: HttpClientRequest.HttpClientRequest) => boolean
}

export interface JsonOptions<A> {
  /** Largest answer read; MAX_JSON_BYTES by default. */
  readonly limit?: number
  /** The value of an answer without content (204, or an empty body); without it such an answer is invalid. */
  readonly empty?: () => A
}

/** A cloud as the connectors see it: the calls every cloud needs, each through the cloud's pipeline. */
export interface Cloud<E> {
  readonly cloud: string
  /** A 2xx answer decoded by `schema` (unknown fields ignored). */
  readonly json: <A, I>(
    request: HttpClientRequest.HttpClientRequest,
    schema: Schema.Schema<A, I>,
    options?: JsonOptions<A>
  ) => Effect.Effect<A, E | RateLimited>
  /** A 2xx answer's bytes, failing `invalid` past `limit` while they arrive; status kept (204 means nothing). */
  readonly bytes: (
    request: HttpClientRequest.HttpClientRequest,
    options: { readonly limit: number; readonly timeout?: Duration.DurationInput }
  ) => Effect.Effect<{ readonly status: number; readonly body: Uint8Array }, E | RateLimited>
  /** A 2xx answer's bytes as they arrive (a download written as it comes), failing `invalid` past `limit`. */
  readonly stream: (request: HttpClientRequest.HttpClientRequest, options: { readonly limit: number }) => Stream.Stream<Uint8Array, E | RateLimited>
  /** The same cloud (pipeline, budget, errors), its calls authorized by `authorize` instead. */
  readonly withAuthorization: (authorize: Authorize<E>) => Cloud<E>
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

/** `GET /v3/exercises`: a request as messages and spans name it. */
export const describeRequest = (request: HttpClientRequest.HttpClientRequest) => `${request.method} ${pathOf(request.url)}`

const describeCause = (error: { readonly reason: string; readonly cause?: unknown }) =>
  truncateText(
    error.reason === "Transport" && error.cause !== undefined
      ? (error.cause instanceof Error ? error.cause.message : String(error.cause))
      : error.reason,
    200
  )

/** The cloud's pipeline over `http`. */
export const makeCloud = <E>(http: HttpClient.HttpClient, options: CloudOptions<E>): Cloud<E> => {
  const { budget, errors } = options
  const where = describeRequest
  const retryable = options.retryable ?? ((request) => request.method === "GET")

  /** The same call again after a transient failure (never after a rate limit: that is the poller's to wait out). */
  const retrying = (request: HttpClientRequest.HttpClientRequest) => <A, R>(effect: Effect.Effect<A, E | RateLimited, R>) =>
    retryable(request)
      ? Effect.retry(effect, { schedule: TRANSIENT_RETRY, while: (e) => !(e instanceof RateLimited) && errors.isTransient(e) })
      : effect

  /** The answer's bytes as they arrive, failing `invalid` past `limit`. */
  const limited = (request: HttpClientRequest.HttpClientRequest, response: HttpClientResponse.HttpClientResponse, limit: number) => {
    const declared = Number(response.headers["content-length"] ?? Number.NaN)
    const tooLarge = () => errors.invalid(request, response.status, `${where(request)}: the answer is larger than ${limit} bytes`)
    if (Number.isFinite(declared) && declared > limit) return Stream.fail(tooLarge())
    let received = 0
    return response.stream.pipe(
      Stream.mapError((e) => errors.transport(request, `the answer was cut off (${e.reason})`)),
      Stream.mapEffect((chunk) => {
        received += chunk.byteLength
        return received > limit ? Effect.fail(tooLarge()) : Effect.succeed(chunk)
      })
    )
  }

  const collect = <R>(stream: Stream.Stream<Uint8Array, E, R>) =>
    Effect.map(Stream.runCollect(stream), (chunks) => new Uint8Array(Buffer.concat(Chunk.toArray(chunks))))

  /** The start of an error answer's text: what it says is in its first lines, and the rest is not waited for. */
  const errorText = (response: HttpClientResponse.HttpClientResponse) =>
    response.stream.pipe(
      Stream.runFoldWhile({ chunks: Chunk.empty<Uint8Array>(), size: 0 }, (read) => read.size < MAX_ERROR_BODY_BYTES, (read, chunk) => ({
        chunks: Chunk.append(read.chunks, chunk),
        size: read.size + chunk.length
      })),
      Effect.map((read) => Buffer.concat(Chunk.toArray(read.chunks)).subarray(0, MAX_ERROR_BODY_BYTES).toString("utf8")),
      Effect.orElseSucceed(() => "")
    )

  // `transform`'s signature keeps the platform's error beside the new one: every such error is mapped inside it
  const sending = http.pipe(
    HttpClient.mapRequest((request) => (isAbsolute(request.url) ? request : HttpClientRequest.prependUrl(request, options.baseUrl))),
    HttpClient.mapRequest((request) => (request.headers["accept"] === undefined ? HttpClientRequest.acceptJson(request) : request)),
    HttpClient.transform((send, request) =>
      (budget === undefined ? Effect.void : budget.awaitBudget(request)).pipe(
        Effect.zipRight(send.pipe(
          Effect.mapError((e) => errors.transport(request, describeCause(e))),
          Effect.timeoutFail({ duration: options.timeout, onTimeout: () => errors.transport(request, "no answer in time") })
        )),
        Effect.tap((response) => Effect.annotateCurrentSpan("http.response.status_code", response.status)),
        Effect.tap((response) => (budget === undefined ? Effect.void : budget.observe(request, response))),
        Effect.flatMap((response): Effect.Effect<HttpClientResponse.HttpClientResponse, E | RateLimited> => {
          if (response.status >= 200 && response.status < 300) return Effect.succeed(response)
          if (response.status === 429 && budget?.refused !== undefined) {
            const refused = budget.refused
            return Effect.zipRight(errorText(response), Effect.flatMap(refused(request, response.headers), Effect.fail))
          }
          return Effect.flatMap(errorText(response), (text) => Effect.fail(errors.answered(request, response.status, text)))
        }),
        // the path only: a query may carry a secret
        Effect.withSpan(`${options.cloud}.call`, { attributes: { cloud: options.cloud.toLowerCase(), endpoint: where(request) } })
      )
    )
  ) as HttpClient.HttpClient.With<E | RateLimited>
  // the authorization comes last, once the request is complete (a bearer token may be refreshed for it)
  const pipeline = options.authorize === undefined ? sending : HttpClient.mapRequestEffect(sending, options.authorize)

  const json = <A, I>(request: HttpClientRequest.HttpClientRequest, schema: Schema.Schema<A, I>, read: JsonOptions<A> = {}) =>
    pipeline.execute(request).pipe(
      Effect.flatMap((response) =>
        collect(limited(request, response, read.limit ?? MAX_JSON_BYTES)).pipe(
          Effect.timeoutFail({ duration: options.timeout, onTimeout: () => errors.transport(request, "the answer did not arrive in time") }),
          Effect.flatMap((body): Effect.Effect<A, E> => {
            if (response.status === 204 || body.length === 0) {
              return read.empty !== undefined
                ? Effect.succeed(read.empty())
                : Effect.fail(errors.invalid(request, response.status, `${options.cloud} answered ${where(request)} without content`))
            }
            let value: unknown
            try {
              value = JSON.parse(Buffer.from(body).toString("utf8"))
            } catch {
              return Effect.fail(errors.invalid(request, response.status, `${options.cloud} answered ${where(request)} with something that is not JSON`))
            }
            return Schema.decodeUnknown(schema, { onExcessProperty: "ignore" })(value).pipe(
              Effect.mapError((e) =>
                errors.invalid(request, response.status, `${options.cloud}'s answer to ${where(request)} is not what was expected: ${describeParseError(e)}`)
              )
            )
          })
        )
      ),
      Effect.scoped,
      retrying(request)
    )

  const bytes = (
    request: HttpClientRequest.HttpClientRequest,
    limits: { readonly limit: number; readonly timeout?: Duration.DurationInput }
  ) =>
    pipeline.execute(request).pipe(
      Effect.flatMap((response) =>
        Effect.map(collect(limited(request, response, limits.limit)), (body) => ({ status: response.status, body }))
      ),
      Effect.timeoutFail({
        duration: limits.timeout ?? options.timeout,
        onTimeout: () => errors.transport(request, "the answer did not arrive in time")
      }),
      Effect.scoped,
      retrying(request)
    )

  const stream = (request: HttpClientRequest.HttpClientRequest, limits: { readonly limit: number }) =>
    Stream.unwrapScoped(
      Effect.map(retrying(request)(pipeline.execute(request)), (response) => limited(request, response, limits.limit))
    )

  return {
    cloud: options.cloud,
    json,
    bytes,
    stream,
    withAuthorization: (authorize) => makeCloud(http, { ...options, authorize }),
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
