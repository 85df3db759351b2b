import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, Effect, Layer, Option, Redacted, Schema } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import { AppConfig } from "../../services/platform/AppConfig.ts"
import { inChannel } from "../../services/platform/Logs.ts"
import { WebhookEventRepo } from "./WebhookEventRepo.ts"

/**
 * `/external/webhook`, outside bearer auth (SPEC "Inbound webhook endpoint"; reference section 5):
 * - GET: the platform's subscription validation (`hub.mode`, `hub.challenge`, `hub.verify_token`);
 *   200 `{"hub.challenge": ...}` when the token matches, else 403; 404 when webhooks are off.
 * - POST: an event; answered 200 at once (even on bad JSON). Activity create/update/delete events
 *   are stored (one pending event per activity) for the WebhookDrain fiber; no platform call here.
 * Log lines in channel `webhooks`.
 */

export const WEBHOOK_PATH = "/external/webhook"

/** The platform's events are a few hundred bytes; anything much larger is not one. */
export const WEBHOOK_MAX_BODY = 16 * 1024

const webhookLog = (level: "info" | "error", message: string, annotations: Record<string, unknown> = {}) =>
  (level === "info" ? Effect.logInfo(message) : Effect.logError(message)).pipe(
    Effect.annotateLogs(annotations),
    inChannel("webhooks")
  )

/** Constant-time equality of two strings (hashing first so that lengths do not leak either). */
export const tokensEqual = (a: string, b: string): boolean =>
  timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest())

const WebhookPayload = Schema.Struct({
  object_type: Schema.String,
  aspect_type: Schema.String,
  object_id: Schema.Union(Schema.Number, Schema.String)
})

const disabled = HttpServerResponse.unsafeJson(
  { error: "not_found", message: "Webhooks are not enabled." },
  { status: 404 }
)

export const WebhookRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const events = yield* WebhookEventRepo
    const enabled = config.webhooksEnabled && config.importMode === "externalApi"

    yield* router.get(
      WEBHOOK_PATH,
      Effect.gen(function*() {
        if (!enabled) return disabled
        const request = yield* HttpServerRequest.HttpServerRequest
        const params = new URL(request.url, "http://localhost").searchParams
        const mode = params.get("hub.mode") ?? ""
        const challenge = params.get("hub.challenge") ?? ""
        const token = params.get("hub.verify_token") ?? ""
        yield* webhookLog("info", "validation request received", { mode, challenge })
        const expected = Option.map(config.webhooksVerifyToken, Redacted.value)
        if (Option.isNone(expected) || !tokensEqual(token, expected.value)) {
          yield* webhookLog("error", "invalid verify token", { mode, challenge })
          return HttpServerResponse.unsafeJson({ error: "forbidden", message: "Invalid verify token." }, { status: 403 })
        }
        yield* webhookLog("info", "request validated", { mode, challenge })
        return HttpServerResponse.unsafeJson({ "hub.challenge": challenge })
      })
    )

    yield* router.post(
      WEBHOOK_PATH,
      Effect.gen(function*() {
        if (!enabled) return disabled
        const request = yield* HttpServerRequest.HttpServerRequest
        const text = yield* request.text.pipe(Effect.orElseSucceed(() => ""))
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch {
          yield* webhookLog("error", "event rejected: the body is not JSON", { body: text.slice(0, 500) })
          return HttpServerResponse.empty({ status: 200 })
        }
        yield* webhookLog("info", "event received", { payload: json })
        const decoded = Schema.decodeUnknownOption(WebhookPayload)(json)
        if (Option.isNone(decoded)) {
          yield* webhookLog("error", "event rejected: object_type, aspect_type or object_id missing", { payload: json })
          return HttpServerResponse.empty({ status: 200 })
        }
        const event = decoded.value
        if (event.object_type !== "activity") return HttpServerResponse.empty({ status: 200 })
        if (event.aspect_type !== "create" && event.aspect_type !== "update" && event.aspect_type !== "delete") {
          yield* webhookLog("error", `event rejected: unknown aspect_type "${event.aspect_type}"`, { payload: json })
          return HttpServerResponse.empty({ status: 200 })
        }
        const objectId = String(event.object_id)
        if (!/^\d+$/.test(objectId)) {
          yield* webhookLog("error", `event rejected: object_id "${objectId}" is not a number`, { payload: json })
          return HttpServerResponse.empty({ status: 200 })
        }
        const receivedAt = yield* Clock.currentTimeMillis
        yield* events.store({
          objectId,
          objectType: event.object_type,
          aspectType: event.aspect_type,
          payload: JSON.stringify(json),
          receivedAt
        }).pipe(
          Effect.catchAllCause((cause) =>
            Effect.logError("Error processing webhook event", cause).pipe(inChannel("webhooks"))
          )
        )
        return HttpServerResponse.empty({ status: 200 })
      })
    )
  })
).pipe(Layer.provide(WebhookEventRepo.Default))
