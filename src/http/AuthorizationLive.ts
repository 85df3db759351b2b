import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Either, Layer, Option } from "effect"
import { InvalidToken } from "../schema/ApiErrors.ts"
import { ApiKey } from "../services/platform/ApiKey.ts"
import { Authorization } from "./Authorization.ts"

/**
 * The framework hands the security handler `header.slice(7)` whatever the scheme, so the
 * raw header is read again and checked in full.
 */
export const AuthorizationLive = Layer.effect(
  Authorization,
  Effect.gen(function*() {
    const apiKey = yield* ApiKey
    return Authorization.of({
      bearer: () =>
        Effect.serviceOption(HttpServerRequest.HttpServerRequest).pipe(
          Effect.flatMap((request) => {
            const header = Option.getOrUndefined(Option.flatMapNullable(request, (r) => r.headers["authorization"]))
            return Either.match(apiKey.check(header), {
              onLeft: (message) => Effect.fail(new InvalidToken({ message })),
              onRight: () => Effect.void
            })
          })
        )
    })
  })
)
