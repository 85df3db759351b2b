import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { randomBytes, timingSafeEqual } from "node:crypto"
import { API_KEY_PATTERN, AppConfig } from "./AppConfig.ts"

/** The service's API key: generation, and the constant-time check of a bearer header. */

export const generateApiKey = (): string => `wmk_${randomBytes(32).toString("hex")}`

export const MISSING_TOKEN_MESSAGE = "A valid API token is required. Send it in the Authorization header as a Bearer token."

export class ApiKey extends Effect.Service<ApiKey>()("services/platform/ApiKey", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const configured = Option.map(config.apiKey, Redacted.value)
    // compared byte for byte in constant time: every valid key has the same length (the pattern's),
    // so refusing a token of another length at once tells nothing of the key; a hash of each
    // token (a native object per request) cost ten times the comparison on every API call
    const expected = Option.filter(configured, (key) => API_KEY_PATTERN.test(key)).pipe(Option.map((key) => Buffer.from(key, "latin1")))

    /** Left: what the operator or client must fix; Right: the key matched. */
    const check = (authorization: string | undefined): Either.Either<void, string> => {
      if (Option.isNone(configured)) {
        return Either.left(
          "The API is closed: SERVICE_API_KEY is not set. Generate a key with `npm run cli -- app:api-key:generate`, set SERVICE_API_KEY to it and restart the service."
        )
      }
      if (Option.isNone(expected)) {
        return Either.left(
          "The API is closed: SERVICE_API_KEY is not a valid key (expected wmk_ followed by 64 lowercase hexadecimal characters). Generate one with `npm run cli -- app:api-key:generate` and restart the service."
        )
      }
      if (authorization === undefined || authorization.trim() === "") return Either.left(MISSING_TOKEN_MESSAGE)
      const match = /^Bearer +([\x21-\x7e]+) *$/i.exec(authorization)
      if (!match) return Either.left('The Authorization header is malformed: send "Authorization: Bearer <key>".')
      const presented = match[1]!
      return presented.length === expected.value.length && timingSafeEqual(Buffer.from(presented, "latin1"), expected.value)
        ? Either.right(undefined)
        : Either.left("The API token is not valid.")
    }
    return { check, isConfigured: Option.isSome(expected) } as const
  }),
  dependencies: [AppConfig.Default]
}) {}
