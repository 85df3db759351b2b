import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import { randomBytes } from "node:crypto"
import { PolarClient, SCOPE } from "./PolarClient.ts"
import { PolarConfig, redirectUriOf } from "./PolarConfig.ts"
import type { CloudError } from "../kit/CloudError.ts"
import { type StoredToken, PolarTokens } from "./PolarTokens.ts"

/**
 * Who the connector acts for and whether Polar still lets it:
 * - `required`: nobody has authorized (or the tokens folder was lost);
 * - `ok`: a token is stored and Polar has not refused it;
 * - `revoked`: Polar answered 401 with the stored token; nobody asks Polar again with it, and
 *   the next cycle after someone authorizes again (in a browser or with `login`, even from
 *   another process) uses the new token without a restart;
 * - `consent-required`: Polar answered 403 (mandatory consents not accepted); each cycle tries again.
 *
 * Authorization itself: `/authorize` sends the browser to Polar with a fresh `state` that is
 * good for one use within ten minutes (as long as Polar's code lives); the redirect back
 * brings the code, exchanged at once (a code replayed makes Polar delete every token of the
 * account). The user is then registered with this client (409: registered already).
 */

export type AuthorizationState = "ok" | "required" | "revoked" | "consent-required"

export const STATE_LIFETIME_MS = 10 * 60_000
/** Pending states kept at most (the oldest is dropped): opening /authorize in a loop must not grow memory. */
export const MAX_PENDING_STATES = 100

export interface AuthorizationView {
  readonly authorization: AuthorizationState
  readonly authorizeUrl: string | null
  readonly authorizationError: string | null
  readonly polarUser: string | null
}

export type Completed =
  | { readonly _tag: "Authorized"; readonly polarUser: string; readonly newlyRegistered: boolean }
  | { readonly _tag: "ConsentRequired"; readonly polarUser: string; readonly message: string }

const sameToken = (a: StoredToken, b: StoredToken) =>
  Redacted.value(a.accessToken) === Redacted.value(b.accessToken) && a.authorizedAt === b.authorizedAt

const stateOf = (token: Option.Option<StoredToken>): { state: AuthorizationState; error: string | null } =>
  Option.match(token, {
    onNone: () => ({ state: "required", error: null }),
    onSome: (t) => (t.revoked !== null ? { state: "revoked", error: t.revoked.message } : { state: "ok", error: null })
  })

export class PolarAuthorization extends Effect.Service<PolarAuthorization>()("connectors/polar/PolarAuthorization", {
  effect: Effect.gen(function*() {
    const config = yield* PolarConfig
    const client = yield* PolarClient
    const { token: store } = yield* PolarTokens
    const redirectUri = redirectUriOf(config)
    const pending = yield* Ref.make(new Map<string, number>())
    const initial = yield* store.get
    const current = yield* Ref.make({ token: initial, ...stateOf(initial) })

    /** Where a person goes to authorize: this connector's /authorize, as the browser reaches it. */
    const startUrl: string | null = Option.match(config.publicUrl, {
      onSome: (base) => `${base}/authorize`,
      onNone: () =>
        Option.match(config.redirectUri, {
          onSome: (uri) => `${new URL(uri).origin}/authorize`,
          onNone: () =>
            Option.match(config.httpAddr, {
              onNone: () => null,
              onSome: ({ host, port }) => {
                const reachable = host === "0.0.0.0" || host === "::" ? "localhost" : host.includes(":") ? `[${host}]` : host
                return `http://${reachable}:${port}/authorize`
              }
            })
        })
    })

    /** Polar's authorize address for `state`. */
    const polarUrl = (state: string) => {
      const url = new URL(config.authUrl)
      url.searchParams.set("response_type", "code")
      url.searchParams.set("client_id", Redacted.value(config.clientId))
      url.searchParams.set("scope", SCOPE)
      url.searchParams.set("state", state)
      if (Option.isSome(redirectUri)) url.searchParams.set("redirect_uri", redirectUri.value)
      return url.toString()
    }

    /** A fresh single-use state and Polar's address carrying it. */
    const begin = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const state = randomBytes(24).toString("base64url")
      yield* Ref.update(pending, (map) => {
        const next = new Map([...map].filter(([, expires]) => expires > now))
        next.set(state, now + STATE_LIFETIME_MS)
        while (next.size > MAX_PENDING_STATES) next.delete(next.keys().next().value!)
        return next
      })
      return { state, url: polarUrl(state) }
    })

    /** Spends `state`: true when it was issued here, unused and not expired. */
    const consume = (state: string) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        return yield* Ref.modify(pending, (map) => {
          const expires = map.get(state)
          if (expires === undefined) return [false, map]
          const next = new Map(map)
          next.delete(state)
          return [expires > now, next]
        })
      })

    const setState = (state: AuthorizationState, error: string | null) =>
      Ref.update(current, (c) => ({ ...c, state, error }))

    /** Exchanges a code, stores the token, registers the user with this client. */
    const complete = Effect.fn("PolarAuthorization.complete")(function*(code: string) {
      const granted = yield* client.exchangeCode(code, redirectUri)
      const polarUser = String(granted.x_user_id)
      const token: StoredToken = {
        accessToken: Redacted.make(granted.access_token),
        polarUser,
        memberId: `waymark-${polarUser}`,
        authorizedAt: new Date(yield* Clock.currentTimeMillis).toISOString(),
        revoked: null
      }
      yield* store.save(token)
      yield* Ref.set(current, { token: Option.some(token), state: "ok", error: null })
      yield* Effect.logInfo(`authorized as Polar user ${polarUser}`)
      return yield* client.registerUser(token.accessToken, token.memberId).pipe(
        Effect.map((newlyRegistered): Completed => ({ _tag: "Authorized", polarUser, newlyRegistered })),
        Effect.catchIf(
          (e): e is CloudError => e._tag === "CloudError" && e.reason === "ConsentRequired",
          (e) => Effect.as(setState("consent-required", e.message), { _tag: "ConsentRequired", polarUser, message: e.message } as Completed)
        )
      )
    })

    /**
     * The stored token, read again from disk (a `login` in another process may have replaced
     * it); a token other than the one known so far starts afresh as `ok`.
     */
    const token = Effect.gen(function*() {
      const fresh = yield* store.reload
      const known = yield* Ref.get(current)
      const changed = Option.isSome(fresh) !== Option.isSome(known.token) ||
        (Option.isSome(fresh) && Option.isSome(known.token) && !sameToken(fresh.value, known.token.value))
      if (changed) yield* Ref.set(current, { token: fresh, ...stateOf(fresh) })
      return fresh
    })

    /** Polar refused `refused` (401): remembered on disk, unless another token replaced it meanwhile. */
    const markRevoked = (refused: StoredToken, message: string) =>
      Effect.gen(function*() {
        const at = new Date(yield* Clock.currentTimeMillis).toISOString()
        const revoked: StoredToken = { ...refused, revoked: { at, message } }
        yield* store.update((stored) =>
          Effect.succeed(Option.isSome(stored) && sameToken(stored.value, refused) ? revoked : Option.getOrElse(stored, () => revoked))
        )
        yield* Ref.update(current, (c) =>
          Option.isSome(c.token) && sameToken(c.token.value, refused) ? { token: Option.some(revoked), state: "revoked" as const, error: message } : c
        )
        yield* Effect.logError(`Polar revoked the authorization: ${message}; open ${startUrl ?? "`login`"} to authorize again`)
      })

    const view: Effect.Effect<AuthorizationView> = Effect.map(Ref.get(current), (c) => ({
      authorization: c.state,
      authorizeUrl: c.state === "ok" ? null : startUrl,
      authorizationError: c.state === "ok"
        ? null
        : c.error ?? (c.state === "required" ? "nobody has authorized the connector yet" : null),
      polarUser: Option.match(c.token, { onNone: () => null, onSome: (t) => t.polarUser })
    }))

    return {
      begin,
      consume,
      complete,
      token,
      markRevoked,
      markConsentRequired: (message: string) => setState("consent-required", message),
      markOk: setState("ok", null),
      view,
      startUrl,
      redirectUri
    } as const
  }),
  dependencies: [PolarConfig.Default, PolarClient.Default, PolarTokens.Default]
}) {}
