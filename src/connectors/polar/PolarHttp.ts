import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { createServer } from "node:http"
import { MAX_JSON_DEPTH, nestedDeeperThan } from "../../schema/JsonDepth.ts"
import { healthStatusCode } from "../kit/ConnectorHealth.ts"
import { MetricsExport, metricsResponse } from "../../services/platform/MetricsExport.ts"
import { escapeHtml } from "../../services/platform/escapeHtml.ts"
import { PolarAuthorization } from "./PolarAuthorization.ts"
import { PolarConfig } from "./PolarConfig.ts"
import { PolarPoller } from "./PolarPoller.ts"
import { WebhookEvent } from "./PolarSchemas.ts"
import { PolarStatus } from "./PolarStatus.ts"
import { WebhookKeeper } from "./WebhookKeeper.ts"
import { closedWithinGrace } from "../../services/platform/closedWithinGrace.ts"

/**
 * The connector's HTTP server: `/healthz` (200 or 503), `/status`, `/authorize` (to Polar
 * with a fresh state), `/callback` and `/` (Polar's redirect back), `POST /webhook` (Polar's
 * deliveries, signed), `/metrics` (Prometheus text). Anything else is 404.
 */

export const MAX_WEBHOOK_BODY = 64 * 1024
export const TOO_DEEP = `the body is nested too deeply: at most ${MAX_JSON_DEPTH} levels of arrays and objects are accepted`
export const STATE_REFUSED = "The state parameter is missing, unknown or expired."

/** A short page for a person in a browser. */
export const page = (status: number, title: string, lines: ReadonlyArray<string>, link?: { href: string; text: string }) =>
  HttpServerResponse.text(
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>` +
      lines.map((l) => `<p>${escapeHtml(l)}</p>`).join("") +
      (link === undefined ? "" : `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></p>`) +
      `</body></html>\n`,
    { status, contentType: "text/html; charset=utf-8", headers: { "cache-control": "no-store" } }
  )

const json = (body: unknown, status = 200) =>
  HttpServerResponse.unsafeJson(body, { status, headers: { "cache-control": "no-store" } })

type BodyRead = { readonly _tag: "Body"; readonly bytes: Uint8Array } | { readonly _tag: "TooLarge" } | { readonly _tag: "Broken" }

/** The raw body, read with a limit while it arrives. */
const readBody = (request: HttpServerRequest.HttpServerRequest, limit: number): Effect.Effect<BodyRead> => {
  const declared = Number(request.headers["content-length"] ?? NaN)
  if (Number.isFinite(declared) && declared > limit) return Effect.succeed({ _tag: "TooLarge" })
  return request.stream.pipe(
    Stream.runFoldWhile(
      { chunks: Chunk.empty<Uint8Array>(), size: 0 },
      (read) => read.size <= limit,
      (read, chunk) => ({ chunks: Chunk.append(read.chunks, chunk), size: read.size + chunk.length })
    ),
    Effect.map((read): BodyRead =>
      read.size > limit ? { _tag: "TooLarge" } : { _tag: "Body", bytes: Buffer.concat(Chunk.toArray(read.chunks)) }
    ),
    Effect.orElseSucceed((): BodyRead => ({ _tag: "Broken" }))
  )
}

export const makeRouter = Effect.gen(function*() {
  const authorization = yield* PolarAuthorization
  const poller = yield* PolarPoller
  const status = yield* PolarStatus
  const webhook = yield* WebhookKeeper

  const callback = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const params = new URL(request.url, "http://connector").searchParams
    const state = params.get("state")
    const again = { href: "/authorize", text: "Authorize with Polar" }
    if (state === null || state === "" || !(yield* authorization.consume(state))) {
      return page(400, "Authorization not started here", [STATE_REFUSED, "Open /authorize to start again."], again)
    }
    const error = params.get("error")
    if (error !== null) {
      const description = params.get("error_description")
      return page(400, "Polar did not authorize the connector", [
        `Polar answered: ${error}${description === null ? "" : ` (${description})`}.`
      ], again)
    }
    const code = params.get("code")
    if (code === null || code === "") return page(400, "No authorization code", ["Polar sent no code back."], again)
    const completed = yield* Effect.either(authorization.complete(code))
    if (Either.isLeft(completed)) {
      yield* Effect.logError(`authorization failed: ${completed.left.message}`)
      return page(502, "Authorization failed", [completed.left.message], again)
    }
    const done = completed.right
    if (done._tag === "ConsentRequired") {
      return page(200, "Consents missing", [
        `Authorized as Polar user ${done.polarUser}, but Polar refuses access to the data: ${done.message}`,
        "Accept Polar's mandatory consents in Polar Flow; the next cycle tries again."
      ])
    }
    yield* poller.trigger
    return page(200, "Authorized", [
      `Authorized as Polar user ${done.polarUser}${done.newlyRegistered ? "" : " (already registered with this client)"}.`,
      "The first sync starts now; this page can be closed."
    ])
  })

  const receive = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const read = yield* readBody(request, MAX_WEBHOOK_BODY)
    if (read._tag === "TooLarge") return json({ error: `the body is over ${MAX_WEBHOOK_BODY} bytes` }, 413)
    if (read._tag === "Broken") return json({ error: "body could not be read" }, 400)
    const text = new TextDecoder().decode(read.bytes)
    // refused before it is parsed, signed or not: no delivery of Polar's nests more than a few levels
    if (nestedDeeperThan(text, MAX_JSON_DEPTH)) return json({ error: TOO_DEEP }, 400)
    let parsed: Option.Option<WebhookEvent> = Option.none()
    try {
      parsed = Schema.decodeUnknownOption(WebhookEvent, { onExcessProperty: "ignore" })(JSON.parse(text))
    } catch {
      // not JSON: refused below, signed or not
    }
    // Polar pings the address before it hands out the signing key: a PING is answered as such
    if (Option.isSome(parsed) && parsed.value.event === "PING") return json({ ok: true })
    const signature = request.headers["polar-webhook-signature"]
    if (signature === undefined || signature.trim() === "") {
      yield* Effect.logWarning("refused a webhook delivery without Polar-Webhook-Signature")
      return json({ error: "missing signature" }, 401)
    }
    if (!(yield* webhook.verify(read.bytes, signature))) {
      yield* Effect.logWarning("refused a webhook delivery whose signature does not match the stored key")
      return json({ error: "invalid signature" }, 401)
    }
    if (Option.isNone(parsed)) return json({ error: "not a Polar event" }, 400)
    yield* webhook.recordEvent
    if (parsed.value.event === "EXERCISE") {
      const started = yield* poller.trigger
      yield* Effect.logInfo(`webhook: new exercise ${parsed.value.entity_id ?? "(no id)"}; cycle ${started}`)
    } else {
      yield* Effect.logDebug(`webhook: ignoring a ${parsed.value.event} event`)
    }
    return json({ ok: true })
  })

  const router = HttpRouter.empty.pipe(
    HttpRouter.get("/healthz", Effect.map(status.health, (h) => json(h, healthStatusCode(h)))),
    HttpRouter.get("/status", Effect.map(status.status, (s) => json(s))),
    HttpRouter.get("/metrics", metricsResponse),
    HttpRouter.get(
      "/authorize",
      Effect.map(authorization.begin, ({ url }) =>
        HttpServerResponse.redirect(url, { status: 302, headers: { "cache-control": "no-store" } }))
    ),
    HttpRouter.get("/callback", callback),
    HttpRouter.get("/", callback),
    HttpRouter.post("/webhook", receive)
  )
  return router.pipe(
    Effect.catchTag("RouteNotFound", () => Effect.succeed(json({ error: "not found" }, 404))),
    Effect.catchAllCause((cause) =>
      Effect.as(Effect.logError("request failed", cause), json({ error: "internal error" }, 500))
    )
  )
})

/** The routes served on `server` (a real listener, or a test one). */
export const makeHttpLayer = <E, R>(server: Layer.Layer<HttpServer.HttpServer, E, R>) =>
  Layer.unwrapEffect(Effect.map(makeRouter, (app) => HttpServer.serve(app))).pipe(
    HttpServer.withLogAddress,
    Layer.provide(server),
    Layer.provide(MetricsExport.layer("waymark-polar"))
  )

/** The listener of HTTP_ADDR; nothing when it is `off`. */
export const PolarHttpLive = Layer.unwrapEffect(
  Effect.map(PolarConfig, (config) =>
    Option.match(config.httpAddr, {
      onNone: () => Layer.empty,
      onSome: ({ host, port }) => makeHttpLayer(NodeHttpServer.layer(() => closedWithinGrace(createServer()), { host, port }))
    }))
)
