import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { makeTokenStore } from "../kit/TokenStore.ts"
import { PolarConfig } from "./PolarConfig.ts"

/**
 * What the tokens folder (POLAR_TOKENS) keeps, each in its own file (mode 0600):
 * `token.json`, the user's access token (Polar's never expires and comes without a refresh
 * token) with the Polar user id it belongs to, and whether Polar has since refused it; and
 * `webhook.json`, the client's webhook with the signing key Polar shows only once, at creation.
 */

export const StoredToken = Schema.Struct({
  accessToken: Schema.Redacted(Schema.String),
  polarUser: Schema.String,
  memberId: Schema.String,
  authorizedAt: Schema.String,
  /** Set when Polar answered 401 with this token: nobody asks Polar again until a new token is stored. */
  revoked: Schema.NullOr(Schema.Struct({ at: Schema.String, message: Schema.String }))
})
export type StoredToken = typeof StoredToken.Type

export const StoredWebhook = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  signatureSecretKey: Schema.Redacted(Schema.String),
  createdAt: Schema.String
})
export type StoredWebhook = typeof StoredWebhook.Type

export class PolarTokens extends Effect.Service<PolarTokens>()("connectors/polar/PolarTokens", {
  effect: Effect.gen(function*() {
    const config = yield* PolarConfig
    const token = yield* makeTokenStore(StoredToken, { directory: config.tokensDir, fileName: "token.json" })
    // null once the webhook is deleted: the file stays, saying so
    const webhook = yield* makeTokenStore(Schema.NullOr(StoredWebhook), { directory: config.tokensDir, fileName: "webhook.json" })
    return { token, webhook } as const
  }),
  dependencies: [PolarConfig.Default]
}) {}
