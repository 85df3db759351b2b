import * as HttpClient from "@effect/platform/HttpClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { truncateText } from "../../schema/ActivityLimits.ts"
import { type CloudErrors, describeRequest, makeCloud, MAX_ERROR_BODY_BYTES, trackerBudget } from "../kit/Cloud.ts"
import { describeParseError } from "../kit/describeParseError.ts"
import { makeRateLimitTracker, parsePolar } from "../kit/RateLimit.ts"
import { PolarConfig } from "./PolarConfig.ts"
import { CloudError, isTransient } from "../kit/CloudError.ts"
import { CreatedWebhook, Exercise, PolarFault, TokenResponse, WebhookList } from "./PolarSchemas.ts"

/**
 * Polar AccessLink v3 over HTTP, on the kit's Cloud pipeline: the OAuth token exchange
 * (client credentials as HTTP Basic), user registration, the exercises of the last 30 days
 * and their files, and the client's webhook. Every answer's `RateLimit-*` headers are
 * recorded; before each call a spent window is waited out when it resets within a minute,
 * else the call fails with RateLimited, as a 429 does. GETs are asked again on a transport
 * error or a 5xx, and answers are read within a limit, as the Cloud pipeline does for every
 * cloud. The client's own calls carry its credentials (HTTP Basic), the user's their token.
 */

export const REQUEST_TIMEOUT = Duration.seconds(30)
export const DOWNLOAD_TIMEOUT = Duration.minutes(2)
/** The watch folder refuses larger files anyway. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024
/** The only scope AccessLink knows. */
export const SCOPE = "accesslink.read_all"

export type FileFormat = "fit" | "tcx" | "gpx"

const ACCEPT: Record<FileFormat, string> = {
  fit: "*/*",
  tcx: "application/vnd.garmin.tcx+xml",
  gpx: "application/gpx+xml"
}

/** Longest part of an error answer a message repeats. */
const MAX_FAULT_LENGTH = 200

/** Polar's error message, or an excerpt of the body. */
export const describeFault = (body: string): string => {
  const raw = body.trim()
  if (raw === "") return "empty body"
  const excerpt = truncateText(raw, MAX_FAULT_LENGTH)
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch {
    return excerpt
  }
  return Option.match(Schema.decodeUnknownOption(PolarFault)(json), {
    onNone: () => excerpt,
    onSome: (f) => truncateText(f.error_description ?? f.message ?? f.error ?? f.errorType ?? excerpt, MAX_FAULT_LENGTH)
  })
}

export class PolarClient extends Effect.Service<PolarClient>()("connectors/polar/PolarClient", {
  effect: Effect.gen(function*() {
    const config = yield* PolarConfig
    const rate = yield* makeRateLimitTracker({ cloud: "Polar", parse: parsePolar, maxWait: Duration.minutes(1) })
    const basic = Redacted.make(
      "Basic " +
        Buffer.from(`${Redacted.value(config.clientId)}:${Redacted.value(config.clientSecret)}`).toString("base64")
    )
    /** Who a request speaks for: the token endpoint, the client (HTTP Basic, webhooks), or the user (bearer). */
    const kindOf = (request: HttpClientRequest.HttpClientRequest): "oauth" | "client" | "user" =>
      request.url === config.tokenUrl ? "oauth" : request.headers["authorization"]?.startsWith("Basic ") ? "client" : "user"
    const where = describeRequest

    const errors: CloudErrors<CloudError> = {
      transport: (request, detail) =>
        new CloudError({ reason: "Transport", message: `${where(request)}: no answer from Polar (${detail})` }),
      invalid: (_request, status, detail) => new CloudError({ reason: "InvalidResponse", status, message: detail }),
      answered: (request, status, body) => {
        const kind = kindOf(request)
        const detail = describeFault(body)
        if (kind === "oauth" && (status === 400 || status === 401)) {
          return new CloudError({ reason: "Unauthorized", status, message: `Polar refused the authorization (${status}: ${detail})` })
        }
        if (status === 401) {
          return new CloudError({
            reason: "Unauthorized",
            status,
            message: kind === "client"
              ? `Polar refused the client credentials (401: ${detail}); check PROVIDER_A_CLIENT_ID and PROVIDER_A_CLIENT_SECRET`
              : `Polar refused the access token (401: ${detail})`
          })
        }
        if (status === 403 && kind === "user") {
          return new CloudError({ reason: "ConsentRequired", status, message: `Polar refused access (403: ${detail})` })
        }
        const reason = status === 404 ? "NotFound" : status === 409 ? "Conflict" : "ApiError"
        return new CloudError({ reason, status, message: `${where(request)} answered ${status}: ${detail}` })
      },
      isTransient
    }
    const budget = trackerBudget(rate)
    /** The client's own calls (the token endpoint, the webhook), authorized with its credentials (HTTP Basic). */
    const client = makeCloud(yield* HttpClient.HttpClient, {
      cloud: "Polar",
      baseUrl: config.apiUrl,
      timeout: REQUEST_TIMEOUT,
      errors,
      // the token endpoint does not count against the API's windows
      budget: {
        ...budget,
        awaitBudget: (request) => (kindOf(request) === "oauth" ? Effect.void : budget.awaitBudget(request)),
        observe: (request, response) => (kindOf(request) === "oauth" ? Effect.void : budget.observe(request, response))
      },
      authorize: (request) => Effect.succeed(HttpClientRequest.setHeader(request, "authorization", Redacted.value(basic)))
    })
    /** The user's calls, authorized with the token the user granted. */
    const user = (token: Redacted.Redacted) =>
      client.withAuthorization((request) => Effect.succeed(HttpClientRequest.bearerToken(request, Redacted.value(token))))

    /** Exchanges an authorization code; `redirectUri` must be the one the authorize request carried. */
    const exchangeCode = Effect.fn("PolarClient.exchangeCode")(function*(code: string, redirectUri: Option.Option<string>) {
      const request = HttpClientRequest.post(config.tokenUrl).pipe(
        HttpClientRequest.setHeader("accept", "application/json;charset=UTF-8"),
        HttpClientRequest.bodyUrlParams({
          grant_type: "authorization_code",
          code,
          ...(Option.isSome(redirectUri) ? { redirect_uri: redirectUri.value } : {})
        })
      )
      return yield* client.json(request, TokenResponse)
    })

    /** Registers the user with this client; answers false when it was registered already (409). */
    const registerUser = Effect.fn("PolarClient.registerUser")(function*(token: Redacted.Redacted, memberId: string) {
      const request = HttpClientRequest.post("/v3/users").pipe(HttpClientRequest.bodyUnsafeJson({ "member-id": memberId }))
      return yield* user(token).bytes(request, { limit: MAX_ERROR_BODY_BYTES }).pipe(
        Effect.as(true),
        Effect.catchIf((e) => e._tag === "CloudError" && e.reason === "Conflict", () => Effect.succeed(false))
      )
    })

    /** The exercises Polar offers (the last 30 days); items it describes oddly are logged and left out. */
    const listExercises = Effect.fn("PolarClient.listExercises")(function*(token: Redacted.Redacted) {
      const items = yield* user(token).json(HttpClientRequest.get("/v3/exercises"), Schema.Array(Schema.Unknown), { empty: () => [] })
      const exercises: Array<Exercise> = []
      for (const item of items) {
        const decoded = Schema.decodeUnknownEither(Exercise, { onExcessProperty: "ignore" })(item)
        if (Either.isRight(decoded)) exercises.push(decoded.right)
        else yield* Effect.logWarning(`ignoring an exercise Polar describes without a usable id: ${describeParseError(decoded.left)}`)
      }
      return exercises
    })

    /** One file of an exercise; None when Polar has none in that format (404, or an empty answer). */
    const downloadFile = Effect.fn("PolarClient.downloadFile")(function*(token: Redacted.Redacted, id: string, format: FileFormat) {
      const request = HttpClientRequest.get(`/v3/exercises/${encodeURIComponent(id)}/${format}`).pipe(
        HttpClientRequest.setHeader("accept", ACCEPT[format])
      )
      return yield* user(token).bytes(request, { limit: MAX_FILE_BYTES, timeout: DOWNLOAD_TIMEOUT }).pipe(
        Effect.map((answer) => (answer.status === 204 || answer.body.length === 0 ? Option.none() : Option.some(answer.body))),
        Effect.catchIf((e) => e._tag === "CloudError" && e.reason === "NotFound", () => Effect.succeed(Option.none<Uint8Array>()))
      )
    })

    const listWebhooks = Effect.fn("PolarClient.listWebhooks")(function*() {
      return (yield* client.json(HttpClientRequest.get("/v3/webhooks"), WebhookList, { empty: () => ({ data: [] }) })).data
    })

    /** Creates the EXERCISE webhook; Polar pings `url` first and refuses when it does not answer 200. */
    const createWebhook = Effect.fn("PolarClient.createWebhook")(function*(url: string) {
      const request = HttpClientRequest.post("/v3/webhooks").pipe(HttpClientRequest.bodyUnsafeJson({ events: ["EXERCISE"], url }))
      return (yield* client.json(request, CreatedWebhook)).data
    })

    const updateWebhook = Effect.fn("PolarClient.updateWebhook")(function*(id: string, url: string) {
      const request = HttpClientRequest.patch(`/v3/webhooks/${encodeURIComponent(id)}`).pipe(
        HttpClientRequest.bodyUnsafeJson({ events: ["EXERCISE"], url })
      )
      yield* client.bytes(request, { limit: MAX_ERROR_BODY_BYTES })
    })

    const deleteWebhook = Effect.fn("PolarClient.deleteWebhook")(function*(id: string) {
      yield* client.bytes(HttpClientRequest.del(`/v3/webhooks/${encodeURIComponent(id)}`), { limit: MAX_ERROR_BODY_BYTES })
    })

    /** Re-activates the client's webhook; false when Polar has none (204). */
    const activateWebhook = Effect.fn("PolarClient.activateWebhook")(function*() {
      const answer = yield* client.bytes(HttpClientRequest.post("/v3/webhooks/activate"), { limit: MAX_ERROR_BODY_BYTES })
      return answer.status !== 204
    })

    return {
      exchangeCode,
      registerUser,
      listExercises,
      downloadFile,
      listWebhooks,
      createWebhook,
      updateWebhook,
      deleteWebhook,
      activateWebhook,
      rateLimit: client.rateLimits
    } as const
  }),
  dependencies: [PolarConfig.Default, NodeHttpClient.layerUndici]
}) {}

