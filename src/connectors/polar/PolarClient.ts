import * as HttpClient from "@effect/platform/HttpClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Duration, Effect, Option, Redacted, Schedule, Schema } from "effect"
import { type CloudErrors, makeCloud, pathOf, trackerBudget } from "../kit/Cloud.ts"
import { makeRateLimitTracker, parsePolar, type RateLimited } from "../kit/RateLimit.ts"
import { PolarConfig } from "./PolarConfig.ts"
import { isTransient, PolarError } from "./PolarError.ts"
import { CreatedWebhook, Exercise, PolarFault, TokenResponse, WebhookList } from "./PolarSchemas.ts"

/**
 * Polar AccessLink v3 over HTTP, on the kit's Cloud pipeline: the OAuth token exchange
 * (client credentials as HTTP Basic), user registration, the exercises of the last 30 days
 * and their files, and the client's webhook. Every answer's `RateLimit-*` headers are
 * recorded; before each call a spent window is waited out when it resets within a minute,
 * else the call fails with RateLimited, as a 429 does. GETs are retried twice on a transport
 * error or a 5xx. Bodies are read with a limit.
 */

export const REQUEST_TIMEOUT = Duration.seconds(30)
export const DOWNLOAD_TIMEOUT = Duration.minutes(2)
/** The watch folder refuses larger files anyway. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024
export const MAX_JSON_BYTES = 16 * 1024 * 1024
export const TRANSIENT_RETRY = Schedule.exponential("500 millis").pipe(Schedule.intersect(Schedule.recurs(2)))
/** The only scope AccessLink knows. */
export const SCOPE = "accesslink.read_all"

export type FileFormat = "fit" | "tcx" | "gpx"

const ACCEPT: Record<FileFormat, string> = {
  fit: "*/*",
  tcx: "application/vnd.garmin.tcx+xml",
  gpx: "application/gpx+xml"
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

/** Polar's error message, or an excerpt of the body. */
export const describeFault = (body: Uint8Array): string => {
  const raw = text(body).trim()
  if (raw === "") return "empty body"
  const excerpt = raw.length > 200 ? `${raw.slice(0, 200)}...` : raw
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch {
    return excerpt
  }
  return Option.match(Schema.decodeUnknownOption(PolarFault)(json), {
    onNone: () => excerpt,
    onSome: (f) => f.error_description ?? f.message ?? f.error ?? f.errorType ?? excerpt
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
    const where = (request: HttpClientRequest.HttpClientRequest) => `${request.method} ${pathOf(request.url)}`

    const errors: CloudErrors<PolarError> = {
      transport: (request, detail) =>
        new PolarError({ reason: "Transport", message: `${where(request)}: no answer from Polar (${detail})` }),
      invalid: (request, status, detail) =>
        new PolarError({ reason: "InvalidResponse", status, message: detail.startsWith(where(request)) ? detail : `${where(request)}: ${detail}` }),
      answered: (request, status, body) => {
        const kind = kindOf(request)
        const detail = describeFault(new TextEncoder().encode(body))
        if (kind === "oauth" && (status === 400 || status === 401)) {
          return new PolarError({ reason: "Unauthorized", status, message: `Polar refused the authorization (${status}: ${detail})` })
        }
        if (status === 401) {
          return new PolarError({
            reason: "Unauthorized",
            status,
            message: kind === "client"
              ? `Polar refused the client credentials (401: ${detail}); check PROVIDER_A_CLIENT_ID and PROVIDER_A_CLIENT_SECRET`
              : `Polar refused the access token (401: ${detail})`
          })
        }
        if (status === 403 && kind === "user") {
          return new PolarError({ reason: "ConsentRequired", status, message: `Polar refused access (403: ${detail})` })
        }
        const reason = status === 404 ? "NotFound" : status === 409 ? "Conflict" : "ApiError"
        return new PolarError({ reason, status, message: `${where(request)} answered ${status}: ${detail}` })
      }
    }
    const budget = trackerBudget(rate)
    const cloud = makeCloud(yield* HttpClient.HttpClient, {
      cloud: "Polar",
      baseUrl: config.apiUrl,
      timeout: REQUEST_TIMEOUT,
      errors,
      // the token endpoint does not count against the API's windows
      budget: {
        ...budget,
        awaitBudget: (request) => (kindOf(request) === "oauth" ? Effect.void : budget.awaitBudget(request)),
        observe: (request, response) => (kindOf(request) === "oauth" ? Effect.void : budget.observe(request, response))
      }
    })

    /** One call, its answer read within `limit`; GETs retried twice on no answer or a 5xx. */
    const send = (
      request: HttpClientRequest.HttpClientRequest,
      options: { readonly limit?: number; readonly timeout?: Duration.Duration } = {}
    ): Effect.Effect<{ readonly status: number; readonly body: Uint8Array }, PolarError | RateLimited> => {
      const attempt = cloud.bytes(request, { limit: options.limit ?? MAX_JSON_BYTES, timeout: options.timeout ?? REQUEST_TIMEOUT })
      return request.method === "GET"
        ? Effect.retry(attempt, { schedule: TRANSIENT_RETRY, while: (e) => e._tag === "PolarError" && isTransient(e) })
        : attempt
    }

    const decodeJson = <A, I>(request: string, schema: Schema.Schema<A, I>, body: Uint8Array) =>
      Effect.try({
        try: () => JSON.parse(text(body)) as unknown,
        catch: () => new PolarError({ reason: "InvalidResponse", message: `${request}: the answer is not JSON` })
      }).pipe(
        Effect.flatMap((json) => Schema.decodeUnknown(schema, { onExcessProperty: "ignore" })(json)),
        Effect.mapError((e) =>
          e._tag === "PolarError" ? e : new PolarError({ reason: "InvalidResponse", message: `${request}: unexpected answer (${e.message})` })
        )
      )

    const user = (token: Redacted.Redacted, request: HttpClientRequest.HttpClientRequest) =>
      request.pipe(HttpClientRequest.bearerToken(Redacted.value(token)))
    const client = (request: HttpClientRequest.HttpClientRequest) =>
      request.pipe(HttpClientRequest.setHeader("authorization", Redacted.value(basic)), HttpClientRequest.acceptJson)

    /** Exchanges an authorization code; `redirectUri` must be the one the authorize request carried. */
    const exchangeCode = Effect.fn("PolarClient.exchangeCode")(function*(code: string, redirectUri: Option.Option<string>) {
      const request = HttpClientRequest.post(config.tokenUrl).pipe(
        HttpClientRequest.setHeader("authorization", Redacted.value(basic)),
        HttpClientRequest.setHeader("accept", "application/json;charset=UTF-8"),
        HttpClientRequest.bodyUrlParams({
          grant_type: "authorization_code",
          code,
          ...(Option.isSome(redirectUri) ? { redirect_uri: redirectUri.value } : {})
        })
      )
      const answer = yield* send(request)
      return yield* decodeJson("token exchange", TokenResponse, answer.body)
    })

    /** Registers the user with this client; answers false when it was registered already (409). */
    const registerUser = Effect.fn("PolarClient.registerUser")(function*(token: Redacted.Redacted, memberId: string) {
      const request = user(token, HttpClientRequest.post("/v3/users")).pipe(
        HttpClientRequest.acceptJson,
        HttpClientRequest.bodyUnsafeJson({ "member-id": memberId })
      )
      return yield* send(request).pipe(
        Effect.as(true),
        Effect.catchIf((e) => e._tag === "PolarError" && e.reason === "Conflict", () => Effect.succeed(false))
      )
    })

    /** The exercises Polar offers (the last 30 days); items it describes oddly are logged and left out. */
    const listExercises = Effect.fn("PolarClient.listExercises")(function*(token: Redacted.Redacted) {
      const answer = yield* send(user(token, HttpClientRequest.get("/v3/exercises")).pipe(HttpClientRequest.acceptJson))
      if (answer.status === 204 || answer.body.length === 0) return []
      const items = yield* decodeJson("GET /v3/exercises", Schema.Array(Schema.Unknown), answer.body)
      const exercises: Array<Exercise> = []
      for (const item of items) {
        const decoded = Schema.decodeUnknownOption(Exercise, { onExcessProperty: "ignore" })(item)
        if (Option.isSome(decoded)) exercises.push(decoded.value)
        else yield* Effect.logWarning(`ignoring an exercise Polar describes without a usable id: ${JSON.stringify(item).slice(0, 200)}`)
      }
      return exercises
    })

    /** One file of an exercise; None when Polar has none in that format (404, or an empty answer). */
    const downloadFile = Effect.fn("PolarClient.downloadFile")(function*(token: Redacted.Redacted, id: string, format: FileFormat) {
      const request = user(token, HttpClientRequest.get(`/v3/exercises/${encodeURIComponent(id)}/${format}`)).pipe(
        HttpClientRequest.setHeader("accept", ACCEPT[format])
      )
      return yield* send(request, { limit: MAX_FILE_BYTES, timeout: DOWNLOAD_TIMEOUT }).pipe(
        Effect.map((answer) => (answer.status === 204 || answer.body.length === 0 ? Option.none() : Option.some(answer.body))),
        Effect.catchIf((e) => e._tag === "PolarError" && e.reason === "NotFound", () => Effect.succeed(Option.none<Uint8Array>()))
      )
    })

    const listWebhooks = Effect.fn("PolarClient.listWebhooks")(function*() {
      const answer = yield* send(client(HttpClientRequest.get("/v3/webhooks")))
      if (answer.status === 204 || answer.body.length === 0) return []
      return (yield* decodeJson("GET /v3/webhooks", WebhookList, answer.body)).data
    })

    /** Creates the EXERCISE webhook; Polar pings `url` first and refuses when it does not answer 200. */
    const createWebhook = Effect.fn("PolarClient.createWebhook")(function*(url: string) {
      const request = client(HttpClientRequest.post("/v3/webhooks")).pipe(
        HttpClientRequest.bodyUnsafeJson({ events: ["EXERCISE"], url })
      )
      const answer = yield* send(request)
      return (yield* decodeJson("POST /v3/webhooks", CreatedWebhook, answer.body)).data
    })

    const updateWebhook = Effect.fn("PolarClient.updateWebhook")(function*(id: string, url: string) {
      const request = client(HttpClientRequest.patch(`/v3/webhooks/${encodeURIComponent(id)}`)).pipe(
        HttpClientRequest.bodyUnsafeJson({ events: ["EXERCISE"], url })
      )
      yield* send(request)
    })

    const deleteWebhook = Effect.fn("PolarClient.deleteWebhook")(function*(id: string) {
      yield* send(client(HttpClientRequest.del(`/v3/webhooks/${encodeURIComponent(id)}`)))
    })

    /** Re-activates the client's webhook; false when Polar has none (204). */
    const activateWebhook = Effect.fn("PolarClient.activateWebhook")(function*() {
      const answer = yield* send(client(HttpClientRequest.post("/v3/webhooks/activate")))
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
      rateLimit: cloud.rateLimits
    } as const
  }),
  dependencies: [PolarConfig.Default, NodeHttpClient.layerUndici]
}) {}

