import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import { createHash, timingSafeEqual } from "node:crypto"
import { AppConfig } from "../../services/platform/AppConfig.ts"
import { inChannel } from "../../services/platform/Logs.ts"
import { apiErrors } from "../../schema/ApiErrors.ts"
import { WEBHOOK_MAX_PENDING, StravaWebhookEventRepo } from "./StravaWebhookEventRepo.ts"
import { readEvent } from "./StravaWebhookPayload.ts"

/**
 * `/external/webhook`, outside bearer auth:
 * - GET: the platform's subscription validation (`hub.mode`, `hub.challenge`, `hub.verify_token`);
 *   200 `{"hub.challenge": ...}` when the token matches, else 403; 404 when webhooks are off.
 * - POST: an event, answered at once. Activity create/update/delete events are stored (one
 *   pending event per activity, a bounded number in all) for the StravaWebhookDrain fiber; no
 *   platform call here. A body that is not an event (not JSON, not an object, nested too
 *   deep, missing members) answers 400, one that is not `application/json` 415, one over
 *   WEBHOOK_MAX_BODY 413 (the route's declared limit, applied while it arrives).
 * Log lines in channel `webhooks`, naming an event by its summary, never by its body.
 */

export const WEBHOOK_PATH = "/external/webhook"

/** The platform's events are a few hundred bytes; anything much larger is not one. */
export const WEBHOOK_MAX_BODY = 16 * 1024

/** A full store is reported on the first refused event, then once every this many. */
const FULL_WARNING_EVERY = 100

const webhookLog = (level: "info" | "warning" | "error", message: string, annotations: Record<string, unknown> = {}) =>
  (level === "info" ? Effect.logInfo(message) : level === "warning" ? Effect.logWarning(message) : Effect.logError(message)).pipe(
    Effect.annotateLogs(annotations),
    inChannel("webhooks")
  )

/** Constant-time equality of two strings (hashing first so that lengths do not leak either). */
export const tokensEqual = (a: string, b: string): boolean =>
  timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest())

/** An error answer in the API's `{error, message}` shape. */
const refuse = (tag: "BadRequest" | "NotFound" | "UnsupportedMediaType" | "PayloadTooLarge", message: string) => {
  const { code, status } = apiErrors[tag]
  return HttpServerResponse.unsafeJson({ error: code, message }, { status })
}

const disabled = refuse("NotFound", "Webhooks are not enabled.")

const isJson = (contentType: string | undefined) => {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase()
  return type === "application/json" || /^application\/[\w.+-]+\+json$/.test(type)
}

const tooLarge = () => refuse("PayloadTooLarge", `An event is at most ${WEBHOOK_MAX_BODY / 1024} KB.`)

const StravaWebhookRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const events = yield* StravaWebhookEventRepo
    const enabled = config.webhooksEnabled && config.importMode === "externalApi"

    yield* router.get(
      WEBHOOK_PATH,
      Effect.gen(function*() {
        if (!enabled) return disabled
        const request = yield* HttpServerRequest.HttpServerRequest
        const params = new URL(request.url, "http://localhost").searchParams
        const mode = (params.get("hub.mode") ?? "").slice(0, 64)
        const challenge = (params.get("hub.challenge") ?? "").slice(0, 256)
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

    const refusedWhileFull = yield* Ref.make(0)

    yield* router.post(
      WEBHOOK_PATH,
      Effect.gen(function*() {
        if (!enabled) return disabled
        const request = yield* HttpServerRequest.HttpServerRequest
        if (!isJson(request.headers["content-type"])) {
          yield* webhookLog("error", "event rejected: the body is not application/json", { contentType: String(request.headers["content-type"] ?? "").slice(0, 100) })
          return refuse("UnsupportedMediaType", "Send the event as application/json.")
        }
        // the limit also holds when nothing in front of this route limited the body
        const read = yield* Effect.either(request.text.pipe(HttpServerRequest.withMaxBodySize(Option.some(WEBHOOK_MAX_BODY))))
        if (Either.isLeft(read)) {
          const declared = Number(request.headers["content-length"] ?? NaN)
          if (declared > WEBHOOK_MAX_BODY) return tooLarge()
          return refuse("BadRequest", "The body could not be read.")
        }
        const text = read.right
        if (Buffer.byteLength(text) > WEBHOOK_MAX_BODY) return tooLarge()
        const body = readEvent(text)
        if (body._tag === "Refused") {
          yield* webhookLog("error", `event rejected: ${body.message}`, { bytes: Buffer.byteLength(text) })
          return refuse("BadRequest", body.message)
        }
        const event = body.summary
        yield* webhookLog("info", "event received", event)
        if (event.object_type !== "activity") return HttpServerResponse.empty({ status: 200 })
        if (event.aspect_type !== "create" && event.aspect_type !== "update" && event.aspect_type !== "delete") {
          yield* webhookLog("error", "event ignored: unknown aspect_type", event)
          return HttpServerResponse.empty({ status: 200 })
        }
        const objectId = String(event.object_id)
        if (!/^\d{1,20}$/.test(objectId)) {
          yield* webhookLog("error", "event rejected: object_id is not a number", event)
          return refuse("BadRequest", "object_id must be the activity's number.")
        }
        const receivedAt = yield* Clock.currentTimeMillis
        const outcome = yield* events.store({
          objectId,
          objectType: event.object_type,
          aspectType: event.aspect_type,
          payload: JSON.stringify(event),
          receivedAt
        }).pipe(
          Effect.catchAllCause((cause) =>
            Effect.as(webhookLog("error", "the event could not be stored", { ...event, cause: Cause.pretty(cause) }), "failed" as const)
          )
        )
        if (outcome === "full") {
          const refused = yield* Ref.updateAndGet(refusedWhileFull, (n) => n + 1)
          if (refused === 1 || refused % FULL_WARNING_EVERY === 0) {
            yield* webhookLog(
              "warning",
              `event dropped: ${WEBHOOK_MAX_PENDING} events are already waiting to be processed (${refused} dropped so far); the next full import catches up`,
              event
            )
          }
        } else if (outcome === "stored") {
          yield* Ref.set(refusedWhileFull, 0)
        }
        return HttpServerResponse.empty({ status: 200 })
      })
    )
  })
).pipe(Layer.provide(StravaWebhookEventRepo.Default))

/** The webhook's routes, for the composition to serve beside the API (the route table limits the POST's body). */
export const StravaWebhookRoutes = {
  routes: [
    { method: "GET", path: WEBHOOK_PATH },
    { method: "POST", path: WEBHOOK_PATH, maxBodyBytes: WEBHOOK_MAX_BODY }
  ],
  live: StravaWebhookRoutesLive
} as const
