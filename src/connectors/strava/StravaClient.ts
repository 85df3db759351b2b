import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as UrlParams from "@effect/platform/UrlParams"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { truncateText } from "../../schema/ActivityLimits.ts"
import { AppConfig } from "../../services/platform/AppConfig.ts"
import { type CloudErrors, describeRequest, makeCloud, MAX_ERROR_BODY_BYTES, pathOf } from "../kit/Cloud.ts"
import { decide, isSpent, parseStrava, type RateLimited, type RateLimitSnapshot } from "../kit/RateLimit.ts"
import { isTransient, type RateLimitWindow, StravaError } from "./StravaError.ts"
import {
  ActivityStreams,
  Athlete,
  CreatedSubscription,
  DetailedActivity,
  Gear,
  Photo,
  PushSubscription,
  STREAM_KEYS,
  StravaFault,
  SummaryActivity,
  TokenResponse
} from "./StravaSchemas.ts"
import { makeStravaTokenStore, seedOf, type StravaTokens, tokensFor } from "./StravaTokens.ts"

export * from "./StravaError.ts"
export type {
  ActivityStreams,
  Athlete,
  CreatedSubscription,
  DetailedActivity,
  Gear,
  Lap,
  Photo,
  PushSubscription,
  Split,
  SummaryActivity
} from "./StravaSchemas.ts"
export type { RateLimitSnapshot } from "../kit/RateLimit.ts"

/** Log channel of every Strava call. */
export const STRAVA_API_CHANNEL = "strava-api"
/** A cached access token is refreshed this long before its `expires_at`. */
export const TOKEN_EXPIRY_MARGIN = Duration.minutes(5)
/** After a spent 15-minute budget, the next call waits until the next quarter hour plus this. */
export const RATE_LIMIT_WAIT_MARGIN = Duration.seconds(15)
export const REQUEST_TIMEOUT = Duration.seconds(30)
export const DOWNLOAD_TIMEOUT = Duration.seconds(60)
/** Largest photo downloaded: Strava's largest size is a few megabytes. */
export const MAX_PHOTO_BYTES = 32 * 1024 * 1024
/** Strava's rate-limit headers, each "15min,daily", in the order of the call line. */
export const RATE_LIMIT_HEADERS = [
  "x-ratelimit-limit",
  "x-ratelimit-usage",
  "x-readratelimit-limit",
  "x-readratelimit-usage"
] as const
/** The windows a write (POST, DELETE) counts against; a GET counts against the read windows too. */
const WRITE_WINDOWS = ["15min", "daily"]

/** `read-15min` -> `15min`, `read-daily` -> `daily`. */
const windowOf = (name: string): RateLimitWindow => (name.endsWith("daily") ? "daily" : "15min")

/** Which window a 429 refers to: daily when a daily usage is at or over its limit, else 15min. */
const windowOf429 = (snapshot: Option.Option<RateLimitSnapshot>, now: number): RateLimitWindow =>
  Option.isSome(snapshot) &&
    snapshot.value.windows.some((w) => windowOf(w.name) === "daily" && isSpent(w, now, 0))
    ? "daily"
    : "15min"

/** The kind of call a request is: the token endpoint (400/401 mean the refresh token), the API, or a photo download. */
type CallKind = "api" | "oauth" | "download"

/** One line per call, channel `strava-api`, in the same format for every call. */
export const formatCallLine = (method: string, path: string, headers: Readonly<Record<string, string | undefined>>) =>
  [method, path, ...RATE_LIMIT_HEADERS.map((name) => `${name}: ${headers[name] ?? ""}`)].join(" - ")

const logStrava = (message: string) => Effect.logInfo(message).pipe(Effect.annotateLogs("channel", STRAVA_API_CHANNEL))

/** Longest part of an error answer a message repeats. */
const MAX_FAULT_LENGTH = 300

/** `Bad Request (PushSubscription: callback url not verifiable)` from Strava's error shape, or a text excerpt. */
export const describeFault = (body: string): string => {
  const trimmed = body.trim()
  if (trimmed === "") return "empty body"
  let json: unknown
  try {
    json = JSON.parse(trimmed)
  } catch {
    return truncateText(trimmed, MAX_FAULT_LENGTH)
  }
  if (typeof json === "string") return truncateText(json, MAX_FAULT_LENGTH)
  const fault = Schema.decodeUnknownOption(StravaFault)(json)
  if (Option.isNone(fault)) return truncateText(trimmed, MAX_FAULT_LENGTH)
  const details = (fault.value.errors ?? []).map((e) => {
    const what = [e.field, e.code].filter((s) => s !== undefined && s !== "").join(" ")
    return e.resource !== undefined && e.resource !== "" ? `${e.resource}: ${what}` : what
  })
  const message = fault.value.message ?? "error"
  return truncateText(details.length > 0 ? `${message} (${details.join("; ")})` : message, MAX_FAULT_LENGTH)
}

export class StravaClient extends Effect.Service<StravaClient>()("connectors/strava/StravaClient", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    // Requests carrying client_secret in their query must not be traced (spans record url.full).
    const http = (yield* HttpClient.HttpClient).pipe(
      HttpClient.withTracerDisabledWhen((request) =>
        Option.isSome(UrlParams.getFirst(request.urlParams, "client_secret"))
      )
    )
    const baseUrl = config.stravaBaseUrl.replace(/\/+$/, "")

    // The token file is read once, at the first need; in externalApi mode that is now, so that
    // a damaged file stops the start with its name instead of failing every run.
    const tokenStore = yield* Effect.cached(makeStravaTokenStore(config.storageDir))
    if (config.importMode === "externalApi") yield* tokenStore
    /** The tokens in use: None until the first grant unless the file holds some for this configuration. */
    const tokensRef = yield* Ref.make(Option.none<StravaTokens>())
    const tokensLoaded = yield* Effect.cached(
      tokenStore.pipe(
        Effect.flatMap((store) => store.get),
        Effect.flatMap((stored) => Ref.set(tokensRef, tokensFor(stored, config.stravaRefreshToken))),
        Effect.mapError((e) => new StravaError({ reason: "NotConfigured", message: `Strava tokens unusable: ${e.message}` }))
      )
    )
    const rateRef = yield* Ref.make(Option.none<RateLimitSnapshot>())
    const tokenLock = yield* Effect.makeSemaphore(1)

    const clientCredentials = Effect.suspend(() => {
      const missing = [
        Option.isNone(config.stravaClientId) ? "STRAVA_CLIENT_ID" : undefined,
        Option.isNone(config.stravaClientSecret) ? "STRAVA_CLIENT_SECRET" : undefined
      ].filter((s) => s !== undefined)
      return Option.isSome(config.stravaClientId) && Option.isSome(config.stravaClientSecret)
        ? Effect.succeed({ clientId: config.stravaClientId.value, clientSecret: config.stravaClientSecret.value })
        : Effect.fail(notConfigured(missing))
    })

    const notConfigured = (missing: ReadonlyArray<string>) =>
      new StravaError({
        reason: "NotConfigured",
        message: `Strava is not configured: set ${missing.join(", ")}`
      })

    /** Waits out a spent window (15 minutes at most), or fails when the wait would be longer. */
    const awaitBudget = (isRead: boolean) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const decision = decide(yield* Ref.get(rateRef), now, {
          reserve: 1,
          maxWait: Duration.minutes(15),
          ...(isRead ? {} : { windows: WRITE_WINDOWS })
        })
        const label = windowOf(decision._tag === "Proceed" ? "" : decision.window) === "daily" ? "daily" : "15-minute"
        switch (decision._tag) {
          case "Proceed":
            return
          case "Exhausted":
            return yield* new StravaError({
              reason: "RateLimited",
              window: windowOf(decision.window),
              message: `Strava ${label} rate limit reached; it resets at ${DateTime.formatIso(DateTime.unsafeMake(decision.until))}`
            })
          case "Wait": {
            const until = decision.until + Duration.toMillis(RATE_LIMIT_WAIT_MARGIN)
            yield* logStrava(
              `Strava ${label} rate limit reached: waiting ${Math.ceil((until - now) / 1000)}s until ${
                DateTime.formatIso(DateTime.unsafeMake(until))
              }`
            )
            yield* Effect.sleep(Duration.millis(until - now))
          }
        }
      })

    const failureFor = (request: HttpClientRequest.HttpClientRequest, kind: CallKind, status: number, body: string, window429: RateLimitWindow): StravaError => {
      const where = describeRequest(request)
      const detail = describeFault(body)
      if (kind === "oauth" && (status === 400 || status === 401)) {
        return new StravaError({
          reason: "Unauthorized",
          status,
          message:
            `Strava refused the token refresh (${status} ${detail}); check STRAVA_CLIENT_ID, STRAVA_CLIENT_SECRET and STRAVA_REFRESH_TOKEN`
        })
      }
      if (status === 401) {
        return new StravaError({
          reason: "Unauthorized",
          status,
          message:
            `Strava refused the access token on ${where} (401 ${detail}): it is invalid or lacks the scope activity:read_all`
        })
      }
      if (status === 403 && body.includes("Inactive")) {
        return new StravaError({
          reason: "Inactive",
          status,
          message:
            `Strava answered 403 Inactive on ${where}: the application was deactivated or its subscription lapsed (${detail})`
        })
      }
      if (status === 429) {
        const window = window429
        return new StravaError({
          reason: "RateLimited",
          status,
          window,
          message: `Strava ${window === "daily" ? "daily" : "15-minute"} rate limit reached (429 on ${where})`
        })
      }
      return new StravaError({ reason: "ApiError", status, message: `Strava answered ${status} to ${where}: ${detail}` })
    }

    /** Which call a request is, from its address alone: the token endpoint, or the API. */
    const kindOf = (request: HttpClientRequest.HttpClientRequest, kind: CallKind): CallKind =>
      kind === "api" && pathOf(request.url).endsWith("/oauth/token") ? "oauth" : kind
    /** The windows of the last answer, for telling which one a 429 refers to. */
    let lastAnswer: { readonly snapshot: Option.Option<RateLimitSnapshot>; readonly at: number } = { snapshot: Option.none(), at: 0 }

    const errorsOf = (kind: CallKind): CloudErrors<StravaError> => ({
      transport: (request, detail) =>
        new StravaError({ reason: "Transport", message: `Could not reach Strava for ${describeRequest(request)}: ${detail}` }),
      answered: (request, status, body) => failureFor(request, kindOf(request, kind), status, body, windowOf429(lastAnswer.snapshot, lastAnswer.at)),
      invalid: (_request, status, detail) => new StravaError({ reason: "InvalidResponse", status, message: detail }),
      isTransient
    })

    /** Every answer: its rate limits recorded (API calls), one call line. */
    const observe = (kind: CallKind) => (request: HttpClientRequest.HttpClientRequest, response: HttpClientResponse.HttpClientResponse) =>
      Effect.gen(function*() {
        const at = yield* Clock.currentTimeMillis
        const snapshot = parseStrava(response.headers, at)
        lastAnswer = { snapshot, at }
        if (kindOf(request, kind) === "api" && Option.isSome(snapshot)) yield* Ref.set(rateRef, snapshot)
        yield* logStrava(formatCallLine(request.method, pathOf(request.url), response.headers))
      })

    /**
     * The API with the application's own credentials (the token grant, the push
     * subscriptions): a rate budget, reads and the grant asked again after a transient failure.
     */
    const application = makeCloud(http, {
      cloud: "Strava",
      baseUrl,
      timeout: REQUEST_TIMEOUT,
      errors: errorsOf("api"),
      budget: {
        awaitBudget: (request) => (kindOf(request, "api") === "api" ? awaitBudget(request.method === "GET") : Effect.void),
        observe: observe("api"),
        snapshot: Ref.get(rateRef)
      },
      retryable: (request) => request.method === "GET" || kindOf(request, "api") === "oauth"
    })
    /** The photo servers: plain GETs of the addresses Strava gives, no token, no budget. */
    const photos = makeCloud(http, {
      cloud: "Strava",
      baseUrl,
      timeout: DOWNLOAD_TIMEOUT,
      errors: errorsOf("download"),
      budget: { awaitBudget: () => Effect.void, observe: observe("download"), snapshot: Ref.get(rateRef) }
    })

    /** Strava's pipelines fail in StravaError only: a spent window is a StravaError, and no budget turns a 429 into RateLimited. */
    const stravaOnly = <A>(effect: Effect.Effect<A, StravaError | RateLimited>): Effect.Effect<A, StravaError> =>
      Effect.catchTag(effect, "RateLimited", Effect.die)

    /**
     * A new access token for the refresh token in use. A refresh token Strava rotates is
     * written to the token file before anything else happens; when that write fails, the
     * tokens still serve this process and the failure is logged.
     */
    const grantToken = (current: Option.Option<StravaTokens>) =>
      Effect.gen(function*() {
        const refreshToken = Option.isSome(current) ? Option.some(current.value.refreshToken) : config.stravaRefreshToken
        const missing = [
          Option.isNone(config.stravaClientId) ? "STRAVA_CLIENT_ID" : undefined,
          Option.isNone(config.stravaClientSecret) ? "STRAVA_CLIENT_SECRET" : undefined,
          Option.isNone(refreshToken) ? "STRAVA_REFRESH_TOKEN" : undefined
        ].filter((s) => s !== undefined)
        if (missing.length > 0 || Option.isNone(refreshToken)) return yield* notConfigured(missing)
        const { clientId, clientSecret } = yield* clientCredentials
        const request = HttpClientRequest.post("/oauth/token").pipe(HttpClientRequest.bodyUrlParams({
          client_id: clientId,
          client_secret: Redacted.value(clientSecret),
          grant_type: "refresh_token",
          refresh_token: Redacted.value(refreshToken.value)
        }))
        const token = yield* stravaOnly(application.json(request, TokenResponse))
        const rotated = token.refresh_token !== undefined && token.refresh_token !== ""
        const tokens: StravaTokens = {
          refreshToken: rotated ? Redacted.make(token.refresh_token!) : refreshToken.value,
          accessToken: Redacted.make(token.access_token),
          expiresAt: token.expires_at * 1000,
          grantedFrom: Option.isSome(current)
            ? current.value.grantedFrom
            : seedOf(Option.getOrElse(config.stravaRefreshToken, () => refreshToken.value))
        }
        yield* Ref.set(tokensRef, Option.some(tokens))
        const store = yield* tokenStore.pipe(Effect.option)
        yield* (Option.isSome(store) ? store.value.save(tokens) : Effect.void).pipe(
          Effect.catchAll((e) =>
            Effect.logError(`the Strava tokens could not be saved (a restart will need them again): ${e.message}`).pipe(
              Effect.annotateLogs("channel", "daemon")
            )
          )
        )
        return tokens.accessToken!
      }).pipe(Effect.withSpan("StravaClient.refreshAccessToken"))

    /** The access token in use, refreshed when it expires within TOKEN_EXPIRY_MARGIN. */
    const accessToken: Effect.Effect<Redacted.Redacted, StravaError> = tokenLock.withPermits(1)(
      Effect.gen(function*() {
        yield* tokensLoaded
        const now = yield* Clock.currentTimeMillis
        const current = yield* Ref.get(tokensRef)
        if (
          Option.isSome(current) && current.value.accessToken !== undefined && current.value.expiresAt !== undefined &&
          current.value.expiresAt - Duration.toMillis(TOKEN_EXPIRY_MARGIN) > now
        ) {
          return current.value.accessToken
        }
        return yield* grantToken(current)
      })
    )

    /** The API as the athlete: the access token in use, granted or refreshed first when needed. */
    const athlete = application.withAuthorization((request) =>
      Effect.map(accessToken, (token) => HttpClientRequest.bearerToken(request, Redacted.value(token)))
    )
    /** A refused access token is forgotten (the refresh token stays): the next call asks for a new one. */
    const forgetRefusedToken = (e: StravaError) =>
      e.reason === "Unauthorized" && e.status === 401
        ? Ref.update(tokensRef, Option.map(({ accessToken: _, expiresAt: __, ...rest }) => rest))
        : Effect.void

    const api = <A, I>(path: string, schema: Schema.Schema<A, I>, urlParams?: Record<string, string>) =>
      stravaOnly(athlete.json(HttpClientRequest.get(`/api/v3${path}`, urlParams === undefined ? {} : { urlParams }), schema)).pipe(
        Effect.tapError(forgetRefusedToken)
      )

    const getAthlete = Effect.fn("StravaClient.getAthlete")(function*() {
      return yield* api("/athlete", Athlete)
    })

    const listActivities = Effect.fn("StravaClient.listActivities")(function*(page: number, perPage: number = 200) {
      return yield* api("/athlete/activities", Schema.Array(SummaryActivity), {
        page: String(page),
        per_page: String(perPage)
      })
    })

    /** All activity summaries, newest first, page by page until Strava answers an empty page. */
    const activities = (perPage: number = 200): Stream.Stream<SummaryActivity, StravaError> =>
      Stream.paginateChunkEffect(1, (page: number) =>
        listActivities(page, perPage).pipe(
          Effect.map((items) =>
            [Chunk.fromIterable(items), items.length === 0 ? Option.none<number>() : Option.some(page + 1)] as const
          )
        ))

    const listAllActivities = Effect.fn("StravaClient.listAllActivities")(function*(perPage: number = 200) {
      return Chunk.toReadonlyArray(yield* Stream.runCollect(activities(perPage)))
    })

    const getActivity = Effect.fn("StravaClient.getActivity")(function*(id: number) {
      return yield* api(`/activities/${id}`, DetailedActivity)
    })

    const getStreams = Effect.fn("StravaClient.getStreams")(function*(id: number) {
      return yield* api(`/activities/${id}/streams`, ActivityStreams, {
        keys: STREAM_KEYS.join(","),
        key_by_type: "true"
      })
    })

    const getPhotos = Effect.fn("StravaClient.getPhotos")(function*(id: number) {
      return yield* api(`/activities/${id}/photos`, Schema.Array(Photo), { size: "5000" })
    })

    /** Downloads a photo URL (as given in `urls["5000"]`). No Authorization header is sent. */
    const downloadPhoto = Effect.fn("StravaClient.downloadPhoto")(function*(url: string) {
      if (!/^https?:\/\//i.test(url)) {
        return yield* new StravaError({ reason: "InvalidResponse", message: `Not an http(s) photo URL: ${pathOf(url)}` })
      }
      const request = HttpClientRequest.get(url).pipe(HttpClientRequest.setHeader("accept", "*/*"))
      return (yield* stravaOnly(photos.bytes(request, { limit: MAX_PHOTO_BYTES }))).body
    })

    const getGear = Effect.fn("StravaClient.getGear")(function*(id: string) {
      return yield* api(`/gear/${encodeURIComponent(id)}`, Gear)
    })

    const listSubscriptions = Effect.fn("StravaClient.listSubscriptions")(function*() {
      const { clientId, clientSecret } = yield* clientCredentials
      const request = HttpClientRequest.get("/api/v3/push_subscriptions", {
        urlParams: { client_id: clientId, client_secret: Redacted.value(clientSecret) }
      })
      return yield* stravaOnly(application.json(request, Schema.Array(PushSubscription)))
    })

    const createSubscription = Effect.fn("StravaClient.createSubscription")(
      function*(callbackUrl: string, verifyToken: string | Redacted.Redacted) {
        const { clientId, clientSecret } = yield* clientCredentials
        const request = HttpClientRequest.post("/api/v3/push_subscriptions").pipe(HttpClientRequest.bodyUrlParams({
          client_id: clientId,
          client_secret: Redacted.value(clientSecret),
          callback_url: callbackUrl,
          verify_token: Redacted.isRedacted(verifyToken) ? Redacted.value(verifyToken) : verifyToken
        }))
        return yield* stravaOnly(application.json(request, CreatedSubscription))
      }
    )

    const deleteSubscription = Effect.fn("StravaClient.deleteSubscription")(function*(id: number) {
      const { clientId, clientSecret } = yield* clientCredentials
      const request = HttpClientRequest.del(`/api/v3/push_subscriptions/${id}`, {
        urlParams: { client_id: clientId, client_secret: Redacted.value(clientSecret) }
      })
      yield* stravaOnly(application.bytes(request, { limit: MAX_ERROR_BODY_BYTES }))
    })

    /** The last rate-limit headers seen (for a summary at the end of an import). */
    const rateLimits: Effect.Effect<Option.Option<RateLimitSnapshot>> = Ref.get(rateRef)

    return {
      getAthlete,
      listActivities,
      activities,
      listAllActivities,
      getActivity,
      getStreams,
      getPhotos,
      downloadPhoto,
      getGear,
      listSubscriptions,
      createSubscription,
      deleteSubscription,
      rateLimits
    } as const
  })
}) {}
