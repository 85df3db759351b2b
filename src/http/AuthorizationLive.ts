import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Either, Layer, Option } from "effect"
import { InvalidToken } from "../schema/ApiErrors.ts"
import { ApiKey } from "../services/platform/ApiKey.ts"
import { AppConfig } from "../services/platform/AppConfig.ts"
import { Authorization } from "./Authorization.ts"
import { WrongKeys } from "./WrongKeys.ts"
import { DashboardSessions, isSafeMethod, sameOrigin } from "./dashboard/DashboardSessions.ts"

/**
 * The framework hands the security handler `header.slice(7)` whatever the scheme, so the
 * raw header is read again and checked in full.
 *
 * Without an Authorization header, the dashboard's session cookie is accepted instead; a
 * write carried by the cookie must also come from the dashboard's own origin.
 */
export const AuthorizationLive = Layer.effect(
  Authorization,
  Effect.gen(function*() {
    const apiKey = yield* ApiKey
    const sessions = yield* DashboardSessions
    const config = yield* AppConfig
    const wrongKeys = yield* WrongKeys
    const bySession = (request: HttpServerRequest.HttpServerRequest): Either.Either<void, string> | undefined => {
      if (request.headers["authorization"] !== undefined || !apiKey.isConfigured) return undefined
      if (!sessions.isSignedIn(request.headers["cookie"])) return undefined
      return isSafeMethod(request.method) || sameOrigin(request.headers, config.appUrl)
        ? Either.right(undefined)
        : Either.left("A change sent with the dashboard's session must come from the dashboard's own page.")
    }
    return Authorization.of({
      bearer: () =>
        Effect.serviceOption(HttpServerRequest.HttpServerRequest).pipe(
          Effect.flatMap((request) => {
            const header = Option.getOrUndefined(Option.flatMapNullable(request, (r) => r.headers["authorization"]))
            const session = Option.getOrUndefined(Option.map(request, bySession))
            const address = Option.getOrUndefined(Option.flatMap(request, (r) => r.remoteAddress))
            return Either.match(session ?? apiKey.check(header), {
              // a key sent and refused counts against the address; no key at all (a page's first call) does not
              onLeft: (message) =>
                (header === undefined || !apiKey.isConfigured ? Effect.void : wrongKeys.wrongKey(address, "API key")).pipe(Effect.zipRight(Effect.fail(new InvalidToken({ message })))),
              onRight: () => Effect.void
            })
          })
        )
    })
  })
)
