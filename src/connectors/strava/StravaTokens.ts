import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"
import * as path from "node:path"
import type { JsonFileError } from "../kit/JsonFile.ts"
import { makeTokenStore, type TokenStore } from "../kit/TokenStore.ts"

/**
 * Strava's tokens, kept in `<STORAGE_DIR>/tokens/strava.json` (mode 0600). Strava may answer
 * a refresh with a new refresh token and stop accepting the old one: the new one is saved the
 * moment it arrives, so that a restart goes on with it instead of STRAVA_REFRESH_TOKEN.
 *
 * The file remembers which STRAVA_REFRESH_TOKEN it grew from (as a hash, never the token
 * itself): when that variable is changed (a fresh authorization), the new value wins and the
 * file is replaced at the next refresh.
 */
export const StravaTokens = Schema.Struct({
  refreshToken: Schema.Redacted(Schema.String),
  accessToken: Schema.optional(Schema.Redacted(Schema.String)),
  /** When the access token expires (epoch ms). */
  expiresAt: Schema.optional(Schema.Number),
  /** SHA-256 (hex) of the STRAVA_REFRESH_TOKEN this chain of tokens started from. */
  grantedFrom: Schema.String
})
export type StravaTokens = typeof StravaTokens.Type

export const STRAVA_TOKEN_FILE = "strava.json"

export const stravaTokensDir = (storageDir: string): string => path.join(storageDir, "tokens")

/** The hash stored in `grantedFrom` for a configured refresh token. */
export const seedOf = (refreshToken: Redacted.Redacted): string =>
  createHash("sha256").update(Redacted.value(refreshToken)).digest("hex")

export const makeStravaTokenStore = (storageDir: string): Effect.Effect<TokenStore<StravaTokens>, JsonFileError> =>
  makeTokenStore(StravaTokens, { directory: stravaTokensDir(storageDir), fileName: STRAVA_TOKEN_FILE })

/**
 * The stored tokens that still belong to the configured refresh token: all of them when none
 * is configured, none when the configured one changed since they were granted.
 */
export const tokensFor = (
  stored: Option.Option<StravaTokens>,
  configured: Option.Option<Redacted.Redacted>
): Option.Option<StravaTokens> =>
  Option.filter(stored, (tokens) => Option.isNone(configured) || tokens.grantedFrom === seedOf(configured.value))
