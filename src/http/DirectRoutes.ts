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
import { Authorization } from "./Authorization.ts"
import { ApiAuthorization } from "./AuthorizationLive.ts"
import { errorResponse, failureAnswer } from "./ErrorResponses.ts"
import { HotReads } from "./HotReads.ts"
import { inSlices } from "./inSlices.ts"
import { type DirectAnswer, DirectAnswers } from "./NodeListener.ts"
import { RequestLog } from "./RequestLog.ts"
import { type Found, type Route, RouteTable } from "./RouteTable.ts"
import { type ServedAnswer, ServedAnswers } from "./ServedAnswers.ts"

/**
 * The endpoints annotated `HotRead` answered on the Node request itself, before the HTTP app:
 * the app costs a fiber, a router and a middleware chain per request, several times the work
 * of these answers. It is the app's way in, not a second one: the routes, their parameters'
 * schemas and their authorization are the route table's (reflected from the HttpApi), found
 * by the listener's one lookup; the key is checked and refused by the app's admission
 * (ApiAuthorization.admit), the read answered by the endpoint's own read and kept answers
 * (HotReads.read, the app's handler), a failure by the app's failure answer (failureAnswer),
 * and the span and log line written by the app's request log (RequestLog.answered). An
 * endpoint whose declaration asks for what this cannot do (another method, a payload,
 * headers, a middleware other than the bearer authorization) fails the start.
 *
 * A request is taken only when it can be answered whole here; once taken, every outcome is
 * answered here, with the app's bytes:
 * - left to the app, before anything ran: another method, a body, parameters the schema
 *   refuses (the app names the parameter in its 400);
 * - answered here: a missing or wrong key (401, and 429), the answer, the read's own error
 *   (an unknown activity's 404, a search's 400), and a database error (500 with its reference
 *   in the errors log): the read never runs twice.
 *
 * A read taken is read and answered in a slice of the event loop (inSlices) after the requests
 * ready with it are taken in: under a thousand connections, a probe waits for one slice rather
 * than for every read ready before it. The routes served beside the API whose feature gives an
 * answer that needs no more than the path's parameters and the headers (ServedAnswers: the
 * probes, the map tiles) are answered where they are taken in: a response at hand (a tile kept
 * in memory) written at once, an effect (a tile read from its file) in a fiber of its own.
 */

/**
 * How long the reads' answers may hold the event loop at a time (inSlices): a probe taken in
 * meanwhile waits for at most this and the taking in of the other requests ready.
 */
const SLICE_MILLIS = 5

interface FastRoute {
  readonly route: Route
  readonly name: string
  readonly authorized: boolean
  /** the decoded path and query parameters; none when the schema refuses them (the app says why) */
  readonly decode: (found: Found) => Option.Option<unknown>
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
const fastRoutesOf = (routes: ReadonlyArray<Route>) => {
  const fast = new Map<string, FastRoute>()
  for (const route of routes) {
    if (Option.isNone(route.hotRead) || Option.isNone(route.endpoint)) continue
    const name = route.hotRead.value.name
    const endpoint = route.endpoint.value
    const where = `${route.method} ${route.path} (HotRead "${name}")`
    if (route.method !== "GET" || Option.isSome(endpoint.payloadSchema) || Option.isSome(endpoint.headersSchema)) {
      throw new Error(`${where}: a hot read is a GET without payload or headers`)
    }
    for (const tag of route.middleware) {
      if (tag !== Authorization) throw new Error(`${where}: its middleware ${(tag as Context.Tag<unknown, unknown>).key} is not one the direct routes apply`)
    }
    const decodePath = decoderOf(endpoint.pathSchema as unknown as Option.Option<Schema.Schema.AnyNoContext>)
    const decodeUrlParams = decoderOf(endpoint.urlParamsSchema as unknown as Option.Option<Schema.Schema.AnyNoContext>)
    fast.set(route.path, {
      route,
      name,
      authorized: route.middleware.has(Authorization),
      decode: (found) => {
        const path = decodePath(found.params)
        if (Either.isLeft(path)) return Option.none()
        const urlParams = decodeUrlParams(found.searchParams)
        return Either.isLeft(urlParams) ? Option.none() : Option.some({ path: path.right, urlParams: urlParams.right })
      }
    })
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
    const authorization = yield* ApiAuthorization
    const hot = yield* HotReads
    const served = yield* ServedAnswers
    const table = yield* RouteTable
    const requestLog = yield* RequestLog
    const runtime = yield* Effect.runtime<never>()
    const fast = fastRoutesOf(table.routes)
    const runFork = Runtime.runFork(runtime)

    /** Writes an answer of the app (a response, or an effect giving one: a fiber of its own), then `done` with its status. */
    const write = (
      response: ServerResponse,
      answer: HttpServerResponse.HttpServerResponse | Effect.Effect<HttpServerResponse.HttpServerResponse>,
      done: (status: number) => void
    ) => {
      if (HttpServerResponse.isServerResponse(answer)) {
        send(response, answer)
        return done(answer.status)
      }
      runFork(answer).addObserver((exit) => {
        if (Exit.isFailure(exit)) return void response.destroy()
        send(response, exit.value)
        done(exit.value.status)
      })
    }

    /** Answers a taken read (a task of `answerInSlices`: it never throws). */
    const respond = (route: FastRoute, url: string, input: unknown, response: ServerResponse, done: (status: number) => void) => {
      // the client went away while the read waited for its turn
      if (response.destroyed) return
      let answered: ReturnType<typeof hot.read>
      try {
        answered = hot.read(route.name, url, input)
      } catch (error) {
        // a database error: as the app answers it
        return write(response, failureAnswer("GET", url, Cause.die(error)), done)
      }
      if (Either.isLeft(answered)) return write(response, failureAnswer("GET", url, Cause.fail(answered.left)), done)
      const body = answered.right
      response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
      response.end(body)
      done(200)
    }
    const answerInSlices = inSlices(SLICE_MILLIS)

    const answer: DirectAnswer = (request, response, found) => {
      const url = request.url
      // a fragment is no part of a request: the app's URL parser drops it, the router would not
      if (request.method !== "GET" || url === undefined || url.includes("#") || hasBody(request)) return false
      if (found.handler.method !== "GET") return false
      const servedAnswer = Option.isNone(found.handler.endpoint) ? served.answerOf(found.handler.path) : undefined
      const headers = request.headers as Headers.Headers
      if (servedAnswer !== undefined) {
        const startTime = requestLog.now()
        const done = (status: number) => requestLog.answered("GET", url, headers, found.handler.path, startTime, status)
        let answered: ServedAnswer
        try {
          answered = servedAnswer({ params: found.params, headers: request.headers })
        } catch (error) {
          answered = Effect.die(error)
        }
        // a response itself (a tile kept in memory) is written with no fiber at all
        if (HttpServerResponse.isServerResponse(answered)) {
          write(response, answered, done)
          return true
        }
        // a synchronous answer is written before this returns
        runFork(answered, { immediate: true }).addObserver((exit) =>
          write(response, Exit.isSuccess(exit) ? exit.value : failureAnswer("GET", url, exit.cause), done)
        )
        return true
      }
      const route = fast.get(found.handler.path)
      if (route === undefined) return false
      const startTime = requestLog.now()
      const done = (status: number) => requestLog.answered("GET", url, headers, route.route.path, startTime, status)
      if (route.authorized) {
        const admission = authorization.admit("GET", request.headers, request.socket.remoteAddress)
        if (admission !== undefined) {
          // a key refused: at once, or after its address's delay (or 429), as the app refuses it
          write(response, admission.refused !== undefined ? errorResponse(admission.refused) : Effect.catchAll(admission.counted, (error) => Effect.succeed(errorResponse(error))), done)
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
).pipe(Layer.provide(DirectRoutes.Default))
