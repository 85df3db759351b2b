import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { truncateText } from "../../schema/ActivityLimits.ts"
import { type CloudErrors, describeRequest, makeCloud, pathOf, trackerBudget } from "../kit/Cloud.ts"
import { makeRateLimitTracker, parseWahoo, RateLimited } from "../kit/RateLimit.ts"
import { makeTokenStore } from "../kit/TokenStore.ts"
import { WahooConfig } from "./WahooConfig.ts"
import { CloudError, isTransient } from "../kit/CloudError.ts"
import { TokenResponse, WahooTokens, WorkoutsPage } from "./WahooSchemas.ts"

/** Scopes asked for at authorization: the profile and the workouts (with their files). */
export const SCOPES = "user_read workouts_read"
/** The access token is refreshed this long before it expires. */
export const TOKEN_EXPIRY_MARGIN = Duration.minutes(5)
export const REQUEST_TIMEOUT = Duration.seconds(30)
/** The daemon refuses watch-folder files above this size; a bigger download is not a workout. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024
/** Longest wait for a spent rate-limit window (or a Retry-After) inside a sync; longer ends the sync rate limited. */
export const MAX_RATE_WAIT = Duration.minutes(6)
/** Calls kept in hand per window, as the cloud's own guidance suggests. */
const RESERVE = { "5min": 2, hour: 5, day: 5 }
export const TOKEN_FILE = "tokens.json"

const excerpt = (body: string) => truncateText(body.trim(), 200)

/** Wahoo's error bodies: `{"error": "...", "error_description": "..."}` or `{"error": "..."}`; else an excerpt of the text. */
export const describeFault = (body: string): string => {
  try {
    const json = JSON.parse(body) as Record<string, unknown>
    const parts = [json["error_description"], json["error"], json["message"]].filter((p): p is string =>
      typeof p === "string" && p !== ""
    )
    if (parts.length > 0) return excerpt(parts[0]!)
  } catch {
    // not JSON
  }
  return body.trim() === "" ? "no details" : excerpt(body)
}

export class WahooClient extends Effect.Service<WahooClient>()("connectors/wahoo/WahooClient", {
  effect: Effect.gen(function*() {
    const config = yield* WahooConfig
    const http = yield* HttpClient.HttpClient
    const baseUrl = config.apiUrl
    const tokens = yield* makeTokenStore(WahooTokens, { directory: config.stateDir, fileName: TOKEN_FILE })
    const rateLimit = yield* makeRateLimitTracker({
      cloud: "Wahoo",
      parse: parseWahoo,
      reserve: RESERVE,
      maxWait: MAX_RATE_WAIT
    })
    /** Why the stored tokens stopped working (shown until someone connects again). */
    const authProblem = yield* Ref.make(Option.none<string>())

    const where = describeRequest
    const isGrant = (request: HttpClientRequest.HttpClientRequest) => pathOf(request.url).endsWith("/oauth/token")
    const errors: CloudErrors<CloudError> = {
      transport: (request, detail) => new CloudError({ reason: "Transport", message: `Could not reach Wahoo (${where(request)}): ${detail}` }),
      invalid: (_request, status, detail) => new CloudError({ reason: "InvalidResponse", status, message: detail }),
      answered: (request, status, body) => {
        const detail = describeFault(body)
        // a grant's refusal is reworded by the grant, which knows what it offered
        if (isGrant(request) && status >= 400 && status < 500) return new CloudError({ reason: "Unauthorized", status, message: detail })
        if (status === 401) return new CloudError({ reason: "Unauthorized", status: 401, message: `Wahoo refused the access token (${detail})` })
        return new CloudError({ reason: "ApiError", status, message: `Wahoo answered ${status} to ${where(request)}: ${detail}` })
      },
      isTransient
    }
    const budget = trackerBudget(rateLimit)
    const cloud = makeCloud(http, {
      cloud: "Wahoo",
      baseUrl,
      timeout: REQUEST_TIMEOUT,
      errors,
      // a grant asked again after no answer or a 5xx, as reads are
      retryable: (request) => request.method === "GET" || isGrant(request),
      // grants do not count against the API's windows
      budget: {
        ...budget,
        awaitBudget: (request) => (isGrant(request) ? Effect.void : budget.awaitBudget(request)),
        observe: (request, response) => (isGrant(request) ? Effect.void : budget.observe(request, response))
      }
    })
    /** Workout files come from signed storage addresses the cloud hands out: no token, no budget. */
    const files = makeCloud(http, {
      cloud: "Wahoo",
      baseUrl,
      timeout: REQUEST_TIMEOUT,
      errors: {
        ...errors,
        answered: (_request, status, body) =>
          new CloudError({ reason: "ApiError", status, message: `the file server answered ${status}: ${describeFault(body)}` })
      }
    })

    /** One grant at `/oauth/token`; a refusal is Unauthorized with Wahoo's own words. */
    const grant = (what: string, form: Record<string, string>) =>
      Effect.gen(function*() {
        const request = HttpClientRequest.post("/oauth/token").pipe(
          HttpClientRequest.acceptJson,
          HttpClientRequest.bodyUrlParams({
            ...form,
            client_id: config.clientId,
            client_secret: Redacted.value(config.clientSecret)
          })
        )
        const token = yield* cloud.json(request, TokenResponse).pipe(
          Effect.mapError((e) =>
            e._tag === "RateLimited"
              ? new CloudError({ reason: "ApiError", status: 429, message: `Wahoo answered 429 to ${what}: ${e.message}` })
              : e.reason === "Unauthorized"
              ? new CloudError({ reason: "Unauthorized", status: e.status, message: `Wahoo refused ${what}: ${e.message}` })
              : e.reason === "ApiError"
              ? new CloudError({ reason: "ApiError", status: e.status, message: e.message.replace(/ to POST \S+:/, ` to ${what}:`) })
              : e
          )
        )
        const now = yield* Clock.currentTimeMillis
        /** The token set, keeping `previous` refresh token when the answer has no new one. */
        return (previous: Option.Option<Redacted.Redacted>): Option.Option<WahooTokens> => {
          const refreshToken = token.refresh_token !== undefined && token.refresh_token !== ""
            ? Option.some(Redacted.make(token.refresh_token))
            : previous
          return Option.map(refreshToken, (refresh) => ({
            accessToken: Redacted.make(token.access_token),
            refreshToken: refresh,
            expiresAt: now + token.expires_in * 1000,
            ...(token.scope !== undefined ? { scope: token.scope } : {})
          }))
        }
      })

    const withoutRefreshToken = (what: string) =>
      new CloudError({ reason: "InvalidResponse", message: `Wahoo answered ${what} without a refresh token` })

    const storeFailure = (e: { readonly message: string }) =>
      new CloudError({ reason: "ApiError", message: `the Wahoo tokens could not be saved: ${e.message}` })

    /** The authorization page of the cloud for this application, carrying `state`. */
    const authorizeUrl = (state: string): string => {
      const url = new URL(`${baseUrl}/oauth/authorize`)
      url.searchParams.set("client_id", config.clientId)
      url.searchParams.set("redirect_uri", config.redirectUri)
      url.searchParams.set("response_type", "code")
      url.searchParams.set("scope", SCOPES)
      url.searchParams.set("state", state)
      return url.toString()
    }

    /** Exchanges the code of the OAuth redirect for tokens, stored before this returns. */
    const exchangeCode = Effect.fn("WahooClient.exchangeCode")(function*(code: string) {
      const make = yield* grant("the authorization code", {
        grant_type: "authorization_code",
        code,
        redirect_uri: config.redirectUri
      })
      const granted = make(Option.none())
      if (Option.isNone(granted)) return yield* withoutRefreshToken("the authorization code")
      yield* tokens.save(granted.value).pipe(Effect.mapError(storeFailure))
      yield* Ref.set(authProblem, Option.none())
    })

    /** Marks the tokens as refused: nothing more is asked of the cloud with them. */
    const refused = (error: CloudError) =>
      Effect.zipRight(Ref.set(authProblem, Option.some(error.message)), Effect.fail(error))

    /**
     * The access token in use, refreshed when it expires within the margin (or when `force`).
     * The refresh token is single-use: the new set is on disk before it is used.
     */
    const accessToken = (force: boolean) =>
      tokens.update((current) =>
        Effect.gen(function*() {
          if (Option.isNone(current)) {
            return yield* new CloudError({ reason: "NotConnected", message: "Not connected to Wahoo yet: use the Connect button" })
          }
          const problem = yield* Ref.get(authProblem)
          if (Option.isSome(problem)) {
            return yield* new CloudError({ reason: "Unauthorized", message: `${problem.value}; connect to Wahoo again` })
          }
          const now = yield* Clock.currentTimeMillis
          if (!force && current.value.expiresAt - Duration.toMillis(TOKEN_EXPIRY_MARGIN) > now) return current.value
          const make = yield* grant("the stored refresh token", {
            grant_type: "refresh_token",
            refresh_token: Redacted.value(current.value.refreshToken)
          }).pipe(Effect.catchIf((e) => e.reason === "Unauthorized", refused))
          return Option.getOrThrow(make(Option.some(current.value.refreshToken)))
        })
      ).pipe(
        Effect.mapError((e) => (e._tag === "JsonFileError" ? storeFailure(e) : e)),
        Effect.map((t) => t.accessToken)
      )

    /** The API as the connected account: its access token, refreshed first when it is about to expire. */
    const account = cloud.withAuthorization((request) =>
      Effect.map(accessToken(false), (token) => HttpClientRequest.bearerToken(request, Redacted.value(token)))
    )

    /**
     * An authorized GET under the API: waits out a nearly spent rate-limit window; on a 401
     * refreshes the access token once and asks again; on a 429 waits for Retry-After (when
     * short) and asks once more, else ends with RateLimited.
     */
    const apiGet = <A, I>(path: string, params: Record<string, string>, schema: Schema.Schema<A, I>) => {
      const request = HttpClientRequest.get(path).pipe(HttpClientRequest.setUrlParams(params))
      const attempt = (refreshed: boolean, retried429: boolean): Effect.Effect<A, CloudError | RateLimited> =>
        account.json(request, schema).pipe(
          Effect.catchIf(
            (e): e is CloudError => e._tag === "CloudError" && e.reason === "Unauthorized" && e.status === 401,
            (e) => (refreshed ? refused(e) : Effect.zipRight(accessToken(true), attempt(true, retried429)))
          ),
          Effect.catchIf(
            (e): e is RateLimited => e._tag === "RateLimited",
            (limited) => {
              const wait = limited.retryAfter === undefined ? Duration.minutes(1) : limited.retryAfter
              if (retried429 || Duration.greaterThan(wait, MAX_RATE_WAIT)) return Effect.fail(limited)
              return Effect.logInfo(`${limited.message}; asking again in ${Math.ceil(Duration.toSeconds(wait))}s`).pipe(
                Effect.zipRight(Effect.sleep(wait)),
                Effect.zipRight(attempt(refreshed, true))
              )
            }
          )
        )
      return attempt(false, false)
    }

    /** One page of workouts, newest first. */
    const listWorkouts = Effect.fn("WahooClient.listWorkouts")(function*(page: number, perPage: number) {
      return yield* apiGet("/v1/workouts", { page: String(page), per_page: String(perPage), order: "descending" }, WorkoutsPage)
    })

    /**
     * The bytes of a workout file (a plain GET of the URL the cloud gave, without the token:
     * file URLs are signed storage addresses), limited to MAX_FILE_BYTES while they arrive.
     */
    const downloadFile = (url: string): Stream.Stream<Uint8Array, CloudError> => {
      if (!/^https?:\/\//i.test(url)) {
        return Stream.fail(new CloudError({ reason: "InvalidResponse", message: `Wahoo gave a file address that is not http(s): ${excerpt(url)}` }))
      }
      // no budget on the file server: nothing there answers RateLimited
      return files.stream(HttpClientRequest.get(url).pipe(HttpClientRequest.setHeader("accept", "*/*")), { limit: MAX_FILE_BYTES }).pipe(
        Stream.catchTag("RateLimited", (limited) => Stream.die(limited))
      )
    }

    return {
      authorizeUrl,
      exchangeCode,
      listWorkouts,
      downloadFile,
      /** Tokens are stored and Wahoo has not refused them. */
      connected: Effect.map(
        Effect.all([tokens.get, Ref.get(authProblem)]),
        ([stored, problem]) => Option.isSome(stored) && Option.isNone(problem)
      ),
      /** Why the stored authorization no longer works, when it does not. */
      authProblem: Ref.get(authProblem),
      rateLimits: cloud.rateLimits
    } as const
  })
}) {}
