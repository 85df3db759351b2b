import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { randomBytes } from "node:crypto"
import { MAX_JSON_DEPTH, nestedDeeperThan } from "../../schema/JsonDepth.ts"
import { MetricsExport, metricsResponse } from "../../services/platform/MetricsExport.ts"
import { type Notice, renderDashboard } from "./Dashboard.ts"
import { WahooClient } from "./WahooClient.ts"
import { isTimeWindow, TIME_WINDOWS, type TimeWindow, type WahooConfig } from "./WahooConfig.ts"
import { WahooScheduler } from "./WahooScheduler.ts"
import { currentHealth, currentStatus, Status } from "./WahooStatus.ts"
import { healthStatusCode } from "../kit/ConnectorHealth.ts"
import type { WahooSync } from "./WahooSync.ts"

/**
 * The connector's web surface:
 * - `GET /` the dashboard; `GET /connect` starts the authorization at Wahoo with a fresh
 *   single-use `state`; `GET /callback` checks that state, exchanges the code, stores the
 *   tokens and starts a sync in the background, then shows the dashboard with what happened.
 * - `GET /healthz` 200 once an account is connected, Wahoo has not refused its tokens and a
 *   sync completed within three intervals of SYNC_CRON, else 503 saying why (the shape every
 *   connector answers); `GET /metrics` the Prometheus text; `GET /api/status` the status (JSON); `POST /api/sync` asks for a sync now, with an
 *   optional `time_window` (JSON body, form body or query): 202 started or deferred by a rate
 *   limit, 409 when one is in progress or no account is connected, 400 for a bad window.
 */

/** How long an authorization started from the dashboard may take. */
export const STATE_TTL_MS = 15 * 60_000
const MAX_PENDING_STATES = 100
const MAX_NOTICES = 50
const MAX_SYNC_BODY = 4096

class BodyTooLarge extends Data.TaggedError("BodyTooLarge")<{}> {}

const encodeStatus = Schema.encodeSync(Status)

const html = (body: string, status = 200) =>
  HttpServerResponse.text(body, {
    status,
    contentType: "text/html; charset=utf-8",
    headers: {
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; frame-ancestors 'none'",
      "referrer-policy": "no-referrer"
    }
  })

const json = (body: unknown, status = 200) =>
  HttpServerResponse.unsafeJson(body, { status, headers: { "cache-control": "no-store" } })

const queryOf = (request: HttpServerRequest.HttpServerRequest) => new URL(request.url, "https://localhost").searchParams

/** The body of a small request, refused beyond `limit` bytes while it arrives. */
const readSmallBody = (request: HttpServerRequest.HttpServerRequest, limit: number) =>
  Effect.gen(function*() {
    const declared = Number(request.headers["content-length"] ?? NaN)
    if (Number.isFinite(declared) && declared > limit) return yield* new BodyTooLarge()
    const chunks: Array<Uint8Array> = []
    let size = 0
    yield* Stream.runForEach(request.stream, (chunk) => {
      size += chunk.byteLength
      if (size > limit) return Effect.fail(new BodyTooLarge())
      chunks.push(chunk)
      return Effect.void
    })
    return Buffer.concat(chunks).toString("utf8")
  })

const NOT_AN_OBJECT = 'Send a JSON object such as {"time_window": "1_week"}, or no body.'
export const TOO_DEEP = `The request body is nested too deeply: at most ${MAX_JSON_DEPTH} levels of arrays and objects are accepted.`

/** `time_window` from the query, a JSON body or a form body; undefined when not given; why a body is refused. */
const requestedWindow = (request: HttpServerRequest.HttpServerRequest, body: string): { readonly value?: unknown; readonly refused?: string } => {
  const fromQuery = queryOf(request).get("time_window")
  if (fromQuery !== null) return { value: fromQuery }
  if (body.trim() === "") return {}
  const type = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()
  if (type === "application/x-www-form-urlencoded") {
    const value = new URLSearchParams(body).get("time_window")
    return value === null ? {} : { value }
  }
  if (nestedDeeperThan(body, MAX_JSON_DEPTH)) return { refused: TOO_DEEP }
  try {
    const parsed = JSON.parse(body) as unknown
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return { refused: NOT_AN_OBJECT }
    return "time_window" in parsed ? { value: (parsed as Record<string, unknown>)["time_window"] } : {}
  } catch {
    return { refused: NOT_AN_OBJECT }
  }
}

const whenText = (at: Option.Option<number>) =>
  Option.match(at, { onNone: () => "when the wait ends", onSome: (ms) => `at ${new Date(ms).toISOString()}` })

export const makeWahooRoutes = Effect.gen(function*() {
  const client = yield* WahooClient
  const scheduler = yield* WahooScheduler
  const context = yield* Effect.context<WahooClient | WahooScheduler | WahooSync | WahooConfig>()
  const states = new Map<string, number>()
  const notices = new Map<string, Notice>()

  const status = Effect.provide(currentStatus, context)
  const health = Effect.provide(currentHealth, context)

  const notify = (notice: Notice) => {
    const id = randomBytes(8).toString("hex")
    notices.set(id, notice)
    while (notices.size > MAX_NOTICES) notices.delete(notices.keys().next().value!)
    return HttpServerResponse.redirect(`/?notice=${id}`, { status: 303, headers: { "cache-control": "no-store" } })
  }

  const dashboard = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const noticeId = queryOf(request).get("notice")
    const notice = noticeId === null ? undefined : notices.get(noticeId)
    return html(renderDashboard(yield* status, notice))
  })

  const connect = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    for (const [state, expires] of states) if (expires <= now) states.delete(state)
    while (states.size >= MAX_PENDING_STATES) states.delete(states.keys().next().value!)
    const state = randomBytes(24).toString("hex")
    states.set(state, now + STATE_TTL_MS)
    return HttpServerResponse.redirect(client.authorizeUrl(state), { status: 302, headers: { "cache-control": "no-store" } })
  })

  const callback = Effect.gen(function*() {
    const query = queryOf(yield* HttpServerRequest.HttpServerRequest)
    const state = query.get("state") ?? ""
    const now = yield* Clock.currentTimeMillis
    const expires = states.get(state)
    states.delete(state)
    if (expires === undefined || expires <= now) {
      return notify({
        kind: "error",
        text: "This answer from Wahoo does not belong to a connection started here, or it took too long. Use the Connect button again."
      })
    }
    const error = query.get("error")
    if (error !== null) {
      const description = query.get("error_description")
      return notify({
        kind: "error",
        text: error === "access_denied"
          ? "The connection was not allowed at Wahoo. Use the Connect button to try again."
          : `Wahoo did not authorize the connection: ${description ?? error}.`
      })
    }
    const code = query.get("code")
    if (code === null || code === "") {
      return notify({ kind: "error", text: "Wahoo came back without an authorization code. Use the Connect button again." })
    }
    const exchanged = yield* Effect.either(client.exchangeCode(code))
    if (exchanged._tag === "Left") {
      yield* Effect.logWarning(`the connection failed: ${exchanged.left.message}`)
      return notify({ kind: "error", text: `The connection failed. ${exchanged.left.message}.` })
    }
    const started = yield* scheduler.request(Option.none())
    yield* Effect.logInfo("connected to Wahoo")
    return notify({
      kind: "success",
      text: started._tag === "Started"
        ? "Connected to Wahoo. The first sync has started."
        : "Connected to Wahoo."
    })
  })

  const apiStatus = Effect.map(status, (s) => json(encodeStatus(s)))

  const apiSync = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const body = yield* readSmallBody(request, MAX_SYNC_BODY).pipe(
      Effect.map(Option.some),
      Effect.catchTag("BodyTooLarge", () => Effect.succeed(Option.none<string>())),
      Effect.catchAll(() => Effect.succeed(Option.some("")))
    )
    if (Option.isNone(body)) return json({ status: "error", message: `The request body is over ${MAX_SYNC_BODY} bytes.` }, 413)
    const asked = requestedWindow(request, body.value)
    if (asked.refused !== undefined) return json({ status: "error", message: asked.refused }, 400)
    if (asked.value !== undefined && !isTimeWindow(asked.value)) {
      return json({ status: "error", message: `time_window must be one of ${TIME_WINDOWS.join(", ")}.` }, 400)
    }
    const window = Option.fromNullable(asked.value as TimeWindow | undefined)
    const answer = yield* scheduler.request(window)
    switch (answer._tag) {
      case "Started":
        return json({ status: "started", message: `Sync started (${answer.window}).`, time_window: answer.window }, 202)
      case "Deferred":
        return json({
          status: "deferred",
          message: `Wahoo's request limit was reached: the sync runs ${whenText(answer.at)}.`,
          time_window: answer.window
        }, 202)
      case "InProgress":
        return json({ status: "in_progress", message: "A sync is already in progress." }, 409)
      case "NotConnected":
        return json({ status: "error", message: "No Wahoo account is connected: use the Connect button first." }, 409)
    }
  })

  return HttpRouter.empty.pipe(
    HttpRouter.get("/", dashboard),
    HttpRouter.get("/connect", connect),
    HttpRouter.get("/callback", callback),
    HttpRouter.get("/api/status", apiStatus),
    HttpRouter.get("/healthz", Effect.map(health, (h) => json(h, healthStatusCode(h)))),
    HttpRouter.post("/api/sync", apiSync),
    HttpRouter.get("/metrics", metricsResponse),
    // the handlers cannot fail: what is caught here is a path no route takes
    HttpRouter.catchAll(() => Effect.succeed(json({ status: "error", message: "Not found." }, 404)))
  )
})

const logAddress = HttpServer.addressWith((address) =>
  Effect.logInfo(
    `dashboard on ${address._tag === "TcpAddress" ? `https://${address.hostname}:${address.port}/` : address.path}`
  )
)

/** Serves the routes on the HttpServer the layer is given. */
export const WahooServerLive = Layer.unwrapEffect(
  Effect.map(makeWahooRoutes, (router) => Layer.merge(HttpServer.serve(router), Layer.effectDiscard(logAddress)))
).pipe(Layer.provide(MetricsExport.layer("waymark-wahoo")))
