import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { InvalidToken, type TooManyRequests } from "../schema/ApiErrors.ts"
import { ApiKey } from "../services/platform/ApiKey.ts"
import { AppConfig } from "../services/platform/AppConfig.ts"
import { Authorization } from "./Authorization.ts"
import { WrongKeys } from "./WrongKeys.ts"
import { DashboardSessions, isSafeMethod, sameOrigin } from "./dashboard/DashboardSessions.ts"

/**
 * Who may call the API, decided in one place for the app (`AuthorizationLive`) and for the
 * fast path (DirectRoutes): the bearer key of the Authorization header, checked in full (the
 * framework hands the security handler `header.slice(7)` whatever the scheme). Without an
 * Authorization header, the dashboard's session cookie is accepted instead; a write carried
 * by the cookie must also come from the dashboard's own origin.
 */

/** The request headers the decision reads, as Node and the platform both give them (lower-case names). */
export type RequestHeaders = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

const single = (value: string | ReadonlyArray<string> | undefined) => (typeof value === "string" ? value : undefined)

export class ApiAuthorization extends Effect.Service<ApiAuthorization>()("http/ApiAuthorization", {
  effect: Effect.gen(function*() {
    const apiKey = yield* ApiKey
    const sessions = yield* DashboardSessions
    const config = yield* AppConfig
    const wrongKeys = yield* WrongKeys

    const bySession = (method: string, headers: RequestHeaders): Either.Either<void, string> | undefined => {
      if (headers["authorization"] !== undefined || !apiKey.isConfigured) return undefined
      if (!sessions.isSignedIn(single(headers["cookie"]))) return undefined
      return isSafeMethod(method) || sameOrigin({ origin: single(headers["origin"]), host: single(headers["host"]), "x-forwarded-proto": single(headers["x-forwarded-proto"]) }, config.appUrl)
        ? Either.right(undefined)
        : Either.left("A change sent with the dashboard's session must come from the dashboard's own page.")
    }

    /** Right: the request may use the API; Left: why not (the 401's message). */
    const check = (method: string, headers: RequestHeaders): Either.Either<void, string> =>
      bySession(method, headers) ?? apiKey.check(single(headers["authorization"]))

    /** Whether a refusal of `check` counts against its address: a key sent and refused does; no key at all (a page's first call) does not. */
    const counts = (headers: RequestHeaders) => headers["authorization"] !== undefined && apiKey.isConfigured

    /**
     * Whether a request may use the API: undefined when it may; else its refusal, at once when
     * no key was sent (`refused`: nothing to count, no fiber needed), or, for a key sent and
     * refused, the 401 after the delay its address has earned with its wrong keys, or a 429
     * once it has sent too many (`counted`).
     */
    const admit = (method: string, headers: RequestHeaders, address: string | undefined): Admission => {
      const decided = check(method, headers)
      if (Either.isRight(decided)) return undefined
      if (!counts(headers)) return { refused: new InvalidToken({ message: decided.left }) }
      return { counted: Effect.zipRight(wrongKeys.wrongKey(address, "API key"), Effect.fail(new InvalidToken({ message: decided.left }))) }
    }

    return { check, admit } as const
  })
}) {}

/** A request's admission (ApiAuthorization.admit): undefined, or how it is refused. */
export type Admission =
  | undefined
  | { readonly refused: InvalidToken; readonly counted?: never }
  | { readonly counted: Effect.Effect<never, InvalidToken | TooManyRequests>; readonly refused?: never }

export const AuthorizationLive = Layer.effect(
  Authorization,
  Effect.map(ApiAuthorization, (authorization) =>
    Authorization.of({
      bearer: () =>
        Effect.serviceOption(HttpServerRequest.HttpServerRequest).pipe(
          Effect.flatMap((request) => {
            const admission = authorization.admit(
              Option.match(request, { onNone: () => "GET", onSome: (r) => r.method }),
              Option.match(request, { onNone: () => ({}), onSome: (r) => r.headers }),
              Option.getOrUndefined(Option.flatMap(request, (r) => r.remoteAddress))
            )
            return admission === undefined ? Effect.void : admission.refused !== undefined ? Effect.fail(admission.refused) : admission.counted
          })
        )
    }))
)
