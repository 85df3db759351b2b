import type * as Headers from "@effect/platform/Headers"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import type { IncomingMessage, ServerResponse } from "node:http"
import { type ApiError, InvalidToken } from "../schema/ApiErrors.ts"
import { AppConfig } from "../services/platform/AppConfig.ts"
import { ReadConnection } from "../services/platform/ReadConnection.ts"
import { makeVersionedCache } from "../services/platform/VersionedCache.ts"
import { Authorization } from "./Authorization.ts"
import { ApiAuthorization } from "./AuthorizationLive.ts"
import { errorResponse, internalErrorResponse } from "./ErrorResponses.ts"
import type { HotReadName } from "./HotRead.ts"
import { HotReads } from "./HotReads.ts"
import { inSlices } from "./inSlices.ts"
import { oncePerPoll } from "./oncePerPoll.ts"
import { type DirectAnswer, DirectAnswers } from "./NodeListener.ts"
import { callerSpan, configuredSecrets, logResponse, makeRedactor, requestSpanAttributes, requestSpanName } from "./RequestLog.ts"
import { type Found, type Route, RouteTable } from "./RouteTable.ts"
import { type ServedAnswer, ServedAnswers } from "./ServedAnswers.ts"

/**
 * The endpoints annotated `HotRead` answered on the Node request itself, before the HTTP app:
 * the app costs a fiber, a router and a middleware chain per request, several times the work
 * of these answers. Nothing here is declared a second time: the routes, their parameters'
 * schemas and their authorization are the route table's (reflected from the HttpApi), found
 * by the listener's one lookup, and answered by the endpoint's own handler (HotReads), the
 * one the app calls. An endpoint whose declaration asks for what this cannot do (another
 * method, a payload, headers, a middleware other than the bearer authorization) fails the
 * start.
 *
 * A request is taken only when it can be answered whole here; once taken, every outcome is
 * answered here, with the app's bytes:
 * - left to the app, before anything ran: another method, a body, parameters the schema
 *   refuses (the app names the parameter in its 400);
 * - answered here: a missing or wrong key (401, by the authorization the app applies), the
 *   answer, the handler's own error (an unknown activity's 404, a search's 400), and a
 *   database error (500 with its reference in the errors log): the read never runs twice.
 *
 * Each answer is observed as the app's are: its server span (method, route, redacted URL,
 * status, duration; through the tracer in place, so exported and sampled as configured), and
 * its log line at debug.
 *
 * A read taken is read and answered in a slice of the event loop (inSlices) after the requests
 * ready with it are taken in: under a thousand connections, a probe waits for one slice rather
 * than for every read ready before it. The routes served beside the API whose feature gives an
 * answer that needs no more than the path's parameters and the headers (ServedAnswers: the
 * probes, the map tiles) are answered where they are taken in: a response at hand (a tile kept
 * in memory) written at once, an effect (a tile read from its file) in a fiber of its own.
 *
 * An answer of a read kept until the next commit is kept, by URL, until the next commit to the
 * database (a client polling its list is answered once per change), within ANSWERS_CAPACITY
 * characters. Whether the database changed is asked once per turn of the event loop
 * (`oncePerPoll`).
 */

/** Characters of answers kept: about 200 pages of the list, or 5,000 activities. */
const ANSWERS_CAPACITY = 4 * 1024 * 1024

/**
 * How long the reads' answers may hold the event loop at a time (inSlices): a probe taken in
 * meanwhile waits for at most this and the taking in of the other requests ready.
 */
const SLICE_MILLIS = 5

/** Redacted URLs kept. */
const REDACTED_URLS = 4096

/** A read's answer: the JSON text of its success, or the error its endpoint declares. */
type Answered = Either.Either<string, ApiError>

interface FastRoute {
  readonly route: Route
  readonly authorized: boolean
  readonly kept: boolean
  /** the decoded path and query parameters; none when the schema refuses them (the app says why) */
  readonly decode: (found: Found) => Option.Option<unknown>
  readonly answer: (input: unknown) => Answered
}

const hasBody = (request: IncomingMessage) => {
  const length = request.headers["content-length"]
  return (length !== undefined && length !== "0") || request.headers["transfer-encoding"] !== undefined
}

const decoderOf = (schema: Option.Option<Schema.Schema.AnyNoContext>): (input: unknown) => Either.Either<unknown, unknown> =>
  Option.match(schema, {
    onNone: () => () => Either.right(undefined),
    onSome: (schema) => Schema.decodeUnknownEither(schema as Schema.Schema<unknown, unknown, never>)
  })

/** The fast routes of the table's hot reads, by declared path (each is a GET). */
const fastRoutesOf = (routes: ReadonlyArray<Route>, hot: HotReads) => {
  const fast = new Map<string, FastRoute>()
  const declared = new Set<HotReadName>()
  for (const route of routes) {
    if (Option.isNone(route.hotRead) || Option.isNone(route.endpoint)) continue
    const name = route.hotRead.value
    const endpoint = route.endpoint.value
    const where = `${route.method} ${route.path} (HotRead "${name}")`
    if (route.method !== "GET" || Option.isSome(endpoint.payloadSchema) || Option.isSome(endpoint.headersSchema)) {
      throw new Error(`${where}: a hot read is a GET without payload or headers`)
    }
    for (const tag of route.middleware) {
      if (tag !== Authorization) throw new Error(`${where}: its middleware ${(tag as Context.Tag<unknown, unknown>).key} is not one the direct routes apply`)
    }
    if (declared.has(name)) throw new Error(`${where}: the hot read is declared twice`)
    declared.add(name)
    const decodePath = decoderOf(endpoint.pathSchema as unknown as Option.Option<Schema.Schema.AnyNoContext>)
    const decodeUrlParams = decoderOf(endpoint.urlParamsSchema as unknown as Option.Option<Schema.Schema.AnyNoContext>)
    fast.set(route.path, {
      route,
      authorized: route.middleware.has(Authorization),
      kept: hot.keptUntilCommit[name],
      decode: (found) => {
        const path = decodePath(found.params)
        if (Either.isLeft(path)) return Option.none()
        const urlParams = decodeUrlParams(found.searchParams)
        return Either.isLeft(urlParams) ? Option.none() : Option.some({ path: path.right, urlParams: urlParams.right })
      },
      answer: hot.answers[name] as (input: unknown) => Answered
    })
  }
  for (const name of Object.keys(hot.answers) as Array<HotReadName>) {
    if (!declared.has(name)) throw new Error(`The hot read "${name}" annotates no endpoint of the API`)
  }
  return fast
}

/** Writes a response of the app whose body is bytes or nothing (an error's, a probe's, a tile's) on the Node response. */
const send = (response: ServerResponse, answer: HttpServerResponse.HttpServerResponse) => {
  const body = answer.body
  response.writeHead(answer.status, answer.headers)
  response.end(body._tag === "Uint8Array" ? body.body : undefined)
}

export class DirectRoutes extends Effect.Service<DirectRoutes>()("http/DirectRoutes", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const authorization = yield* ApiAuthorization
    const hot = yield* HotReads
    const served = yield* ServedAnswers
    const table = yield* RouteTable
    const db = yield* ReadConnection
    const tracer = yield* Effect.tracer
    const clock = yield* Effect.clock
    const runtime = yield* Effect.runtime<never>()
    const fast = fastRoutesOf(table.routes, hot)
    const kept = makeVersionedCache<string>({ version: oncePerPoll(db.dataVersion), capacity: ANSWERS_CAPACITY, weigh: (url, body) => url.length + body.length })
    const redactor = makeRedactor(configuredSecrets(config))
    // the same few URLs are asked again and again: each is redacted once (within a bound)
    const redactedUrls = new Map<string, string>()
    const redact = (url: string) => {
      let redacted = redactedUrls.get(url)
      if (redacted === undefined) {
        if (redactedUrls.size >= REDACTED_URLS) redactedUrls.clear()
        redacted = redactor(url)
        redactedUrls.set(url, redacted)
      }
      return redacted
    }
    const logged = config.logLevel === "debug" || config.logLevel === "trace"
    const log = Runtime.runSync(runtime)
    const runFork = Runtime.runFork(runtime)

    /** The server span and the log line of an answered request, as the app's request log makes them. */
    const observe = (request: IncomingMessage, url: string, route: Route, startTime: bigint, status: number) => {
      const redacted = redact(url)
      const span = tracer.span(
        requestSpanName("GET"),
        callerSpan(request.headers as Headers.Headers),
        Context.empty(),
        [],
        startTime,
        "server",
        { captureStackTrace: false }
      )
      const attributes = requestSpanAttributes("GET", redacted)
      for (const key in attributes) span.attribute(key, attributes[key])
      span.attribute("http.route", route.path)
      span.attribute("http.response.status_code", status)
      span.end(clock.unsafeCurrentTimeNanos(), Exit.void)
      if (logged) log(logResponse("GET", redacted, status).pipe(Effect.withParentSpan(span), Effect.withLogSpan("http.request")))
    }

    /** The read of `input`, from the kept answers when it holds until the next commit (a refusal is never kept). */
    const read = (route: FastRoute, url: string, input: unknown): Answered => {
      if (!route.kept) return route.answer(input)
      let refused: ApiError | undefined
      const text = kept(url, () =>
        Either.match(route.answer(input), {
          onLeft: (error) => void (refused = error),
          onRight: (text) => text
        }))
      return text === undefined ? Either.left(refused!) : Either.right(text)
    }

    /** Answers a taken read (a task of `answerInSlices`: it never throws). */
    const respond = (route: FastRoute, url: string, input: unknown, response: ServerResponse, done: (status: number) => void) => {
      // the client went away while the read waited for its turn
      if (response.destroyed) return
      try {
        const answered = read(route, url, input)
        if (Either.isRight(answered)) {
          const body = answered.right
          response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
          response.end(body)
          done(200)
        } else {
          const refusal = errorResponse(answered.left)
          send(response, refusal)
          done(refusal.status)
        }
      } catch (error) {
        // a database error: a 500 with its reference in the errors log, as the app answers it
        runFork(internalErrorResponse("GET", url, Cause.die(error))).addObserver((exit) => {
          if (Exit.isSuccess(exit)) send(response, exit.value)
          else response.destroy()
          done(500)
        })
      }
    }
    const answerInSlices = inSlices(SLICE_MILLIS)

    const answer: DirectAnswer = (request, response, found) => {
      const url = request.url
      // a fragment is no part of a request: the app's URL parser drops it, the router would not
      if (request.method !== "GET" || url === undefined || url.includes("#") || hasBody(request)) return false
      if (found.handler.method !== "GET") return false
      const servedAnswer = Option.isNone(found.handler.endpoint) ? served.answerOf(found.handler.path) : undefined
      if (servedAnswer !== undefined) {
        const startTime = clock.unsafeCurrentTimeNanos()
        let answered: ServedAnswer
        try {
          answered = servedAnswer({ params: found.params, headers: request.headers })
        } catch (error) {
          answered = Effect.die(error)
        }
        // a response itself (a tile kept in memory) is written with no fiber at all
        if (HttpServerResponse.isServerResponse(answered)) {
          send(response, answered)
          observe(request, url, found.handler, startTime, answered.status)
          return true
        }
        // a synchronous answer is written before this returns
        runFork(answered, { immediate: true }).addObserver((exit) => {
          if (Exit.isSuccess(exit)) {
            send(response, exit.value)
            return observe(request, url, found.handler, startTime, exit.value.status)
          }
          runFork(internalErrorResponse("GET", url, exit.cause)).addObserver((answered) => {
            if (Exit.isSuccess(answered)) send(response, answered.value)
            else response.destroy()
            observe(request, url, found.handler, startTime, 500)
          })
        })
        return true
      }
      const route = fast.get(found.handler.path)
      if (route === undefined) return false
      const startTime = clock.unsafeCurrentTimeNanos()
      const done = (status: number) => observe(request, url, route.route, startTime, status)
      if (route.authorized) {
        const allowed = authorization.check("GET", request.headers)
        if (Either.isLeft(allowed)) {
          if (!authorization.counts(request.headers)) {
            send(response, errorResponse(new InvalidToken({ message: allowed.left })))
            done(401)
            return true
          }
          // a wrong key: answered after its address's delay, or refused with 429
          runFork(Effect.flip(authorization.refuse(allowed.left, request.headers, request.socket.remoteAddress))).addObserver((exit) => {
            const refusal = Exit.isSuccess(exit) ? errorResponse(exit.value) : undefined
            if (refusal === undefined) return void response.destroy()
            send(response, refusal)
            done(refusal.status)
          })
          return true
        }
      }
      const input = route.decode(found)
      if (Option.isNone(input)) return false
      // read and written in a slice of the loop, after the connections' other requests are taken in
      answerInSlices(() => respond(route, url, input.value, response, done))
      return true
    }

    return { answer } as const
  })
}) {}

/** The direct routes, installed in front of the app in the Node listener (when it has the slot). */
export const DirectRoutesLive = Layer.effectDiscard(
  Effect.gen(function*() {
    const slot = yield* DirectAnswers
    slot.install((yield* DirectRoutes).answer)
  })
).pipe(Layer.provide(DirectRoutes.Default), Layer.provide(HotReads.Default))
