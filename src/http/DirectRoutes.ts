import * as HttpApi from "@effect/platform/HttpApi"
import type * as Headers from "@effect/platform/Headers"
import { Context, Effect, Either, Exit, Layer, Option, Runtime, Schema } from "effect"
import * as FindMyWay from "find-my-way-ts"
import type { IncomingMessage } from "node:http"
import { ApiKey } from "../services/platform/ApiKey.ts"
import { AppConfig } from "../services/platform/AppConfig.ts"
import { ReadConnection } from "../services/platform/ReadConnection.ts"
import { makeVersionedCache } from "../services/platform/VersionedCache.ts"
import { WaymarkApi } from "./Api.ts"
import { Authorization } from "./Authorization.ts"
import { HotRead, type HotReadName } from "./HotRead.ts"
import { HotReads } from "./HotReads.ts"
import { oncePerPoll } from "./oncePerPoll.ts"
import { type DirectAnswer, DirectAnswers } from "./NodeListener.ts"
import { callerSpan, configuredSecrets, logResponse, makeRedactor, requestSpanAttributes, requestSpanName } from "./RequestLog.ts"

/**
 * The endpoints annotated `HotRead` answered on the Node request itself, before the HTTP app:
 * the app costs a fiber, a router and a middleware chain per request, several times the work
 * of these answers. Nothing here is declared a second time: the routes, their parameters'
 * schemas and their authorization are read from the HttpApi (`HttpApi.reflect`), routed by
 * the router the app uses (find-my-way-ts, with its options), and answered by the endpoint's
 * own handler (HotReads), the one the app calls. An endpoint whose declaration asks for what
 * this cannot do (another method, a payload, headers, a middleware other than the bearer
 * authorization) fails the start.
 *
 * Whatever is not a plain answer is left to the app: a missing or wrong key, parameters the
 * schema refuses, the handler's own error (an unknown activity), a request with a body, a
 * database error. Those need the app's error answers and its log.
 *
 * Each answer is observed as the app's are: its server span (method, route, redacted URL,
 * status, duration; through the tracer in place, so exported and sampled as configured), and
 * its log line at debug.
 *
 * An answer of a read kept until the next commit is kept, by URL, until the next commit to the
 * database (a client polling its list is answered once per change), within ANSWERS_CAPACITY
 * characters. Whether the database changed is asked once per poll of the event loop
 * (`oncePerPoll`).
 */

/** Characters of answers kept: about 200 pages of the list, or 5,000 activities. */
const ANSWERS_CAPACITY = 4 * 1024 * 1024

/** Redacted URLs kept. */
const REDACTED_URLS = 4096

interface HotRoute {
  readonly name: HotReadName
  /** the route as declared (the span's `http.route`) */
  readonly route: string
  readonly authorized: boolean
  readonly kept: boolean
  /** the answer's JSON text; undefined for anything the app must answer */
  readonly answer: (found: FindMyWay.FindResult<HotRoute>) => string | undefined
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

/** The router of the hot reads, derived from the API's declaration. */
const routerOf = (answers: HotReads["answers"], kept: HotReads["keptUntilCommit"]) => {
  const router = FindMyWay.make<HotRoute>()
  const declared = new Set<HotReadName>()
  HttpApi.reflect(WaymarkApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, middleware }) => {
      const name = Context.getOption(endpoint.annotations, HotRead)
      if (Option.isNone(name)) return
      const where = `${endpoint.method} ${endpoint.path} (HotRead "${name.value}")`
      if (endpoint.method !== "GET" || Option.isSome(endpoint.payloadSchema) || Option.isSome(endpoint.headersSchema)) {
        throw new Error(`${where}: a hot read is a GET without payload or headers`)
      }
      for (const tag of middleware) {
        if ((tag as unknown) !== Authorization) throw new Error(`${where}: its middleware ${tag.key} is not one the direct routes apply`)
      }
      if (declared.has(name.value)) throw new Error(`${where}: the hot read is declared twice`)
      declared.add(name.value)
      const decodePath = decoderOf(endpoint.pathSchema as unknown as Option.Option<Schema.Schema.AnyNoContext>)
      const decodeUrlParams = decoderOf(endpoint.urlParamsSchema as unknown as Option.Option<Schema.Schema.AnyNoContext>)
      const answer = answers[name.value] as (input: unknown) => Either.Either<string, unknown>
      router.on("GET", endpoint.path as FindMyWay.PathInput, {
        name: name.value,
        route: endpoint.path,
        authorized: middleware.has(Authorization as never),
        kept: kept[name.value],
        answer: (found) => {
          const path = decodePath(found.params)
          if (Either.isLeft(path)) return undefined
          const urlParams = decodeUrlParams(found.searchParams)
          if (Either.isLeft(urlParams)) return undefined
          return Either.getOrUndefined(answer({ path: path.right, urlParams: urlParams.right }))
        }
      })
    }
  })
  for (const name of Object.keys(answers) as Array<HotReadName>) {
    if (!declared.has(name)) throw new Error(`The hot read "${name}" annotates no endpoint of the API`)
  }
  return router
}

export class DirectRoutes extends Effect.Service<DirectRoutes>()("http/DirectRoutes", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const apiKey = yield* ApiKey
    const hot = yield* HotReads
    const db = yield* ReadConnection
    const tracer = yield* Effect.tracer
    const clock = yield* Effect.clock
    const runtime = yield* Effect.runtime<never>()
    const router = routerOf(hot.answers, hot.keptUntilCommit)
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

    /** The server span and the log line of an answered request, as the app's request log makes them. */
    const observe = (request: IncomingMessage, url: string, route: HotRoute, startTime: bigint) => {
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
      span.attribute("http.route", route.route)
      span.attribute("http.response.status_code", 200)
      span.end(clock.unsafeCurrentTimeNanos(), Exit.void)
      if (logged) log(logResponse("GET", redacted, 200).pipe(Effect.withParentSpan(span), Effect.withLogSpan("http.request")))
    }

    const answer: DirectAnswer = (request, response) => {
      const url = request.url
      // a fragment is no part of a request: the app's URL parser drops it, the router would not
      if (request.method !== "GET" || url === undefined || url.includes("#") || hasBody(request)) return false
      const startTime = clock.unsafeCurrentTimeNanos()
      const found = router.find("GET", url)
      if (found === undefined) return false
      const route = found.handler
      if (route.authorized && Either.isLeft(apiKey.check(request.headers["authorization"]))) return false
      let body: string | undefined
      try {
        body = route.kept ? kept(url, () => route.answer(found)) : route.answer(found)
      } catch {
        // a database error: the app answers it, with its reference in the errors log
        return false
      }
      if (body === undefined) return false
      response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
      response.end(body)
      observe(request, url, route, startTime)
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
