import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import { createHmac, timingSafeEqual } from "node:crypto"
import type { JsonFileError } from "../kit/JsonFile.ts"
import type { RateLimited } from "../kit/RateLimit.ts"
import { PolarClient } from "./PolarClient.ts"
import { PolarConfig } from "./PolarConfig.ts"
import { CloudError } from "../kit/CloudError.ts"
import type { WebhookInfo } from "./PolarSchemas.ts"
import { type StoredWebhook, PolarTokens } from "./PolarTokens.ts"

/**
 * The client's EXERCISE webhook (Polar keeps one per client): registered for WEBHOOK_URL,
 * found again and re-activated when Polar deactivated it (after seven days of failed
 * deliveries), moved when WEBHOOK_URL changed. The signing key Polar shows only at creation
 * is kept in the tokens folder; a webhook whose key was lost is replaced by a new one, since
 * its deliveries could not be verified. Deliveries carry `Polar-Webhook-Signature`, the
 * HMAC-SHA256 of the raw body under that key.
 */

export interface WebhookStatus {
  readonly configured: boolean
  readonly active: boolean | null
  readonly id: string | null
  readonly lastEventAt: string | null
}

export interface WebhookShown {
  readonly url: string | null
  readonly polar: ReadonlyArray<WebhookInfo>
  readonly stored: { readonly id: string; readonly url: string; readonly createdAt: string } | null
}

/** Whether `signature` (hex of any case, or base64) is the HMAC-SHA256 of `body` under `key`; constant time. */
export const signatureMatches = (body: Uint8Array, signature: string, key: string): boolean => {
  const expected = createHmac("sha256", key).update(body).digest()
  const given = signature.trim()
  const candidates = [
    /^[0-9a-f]+$/i.test(given) ? Buffer.from(given.toLowerCase(), "hex") : undefined,
    /^[A-Za-z0-9+/]+={0,2}$/.test(given) ? Buffer.from(given, "base64") : undefined
  ]
  let ok = false
  for (const candidate of candidates) {
    if (candidate !== undefined && candidate.length === expected.length && timingSafeEqual(candidate, expected)) ok = true
  }
  return ok
}

export class WebhookKeeper extends Effect.Service<WebhookKeeper>()("connectors/polar/WebhookKeeper", {
  effect: Effect.gen(function*() {
    const config = yield* PolarConfig
    const client = yield* PolarClient
    const { webhook: store } = yield* PolarTokens
    const active = yield* Ref.make<boolean | null>(null)
    const lastEventAt = yield* Ref.make<string | null>(null)

    const stored = Effect.map(store.get, (s) => Option.flatMap(s, Option.fromNullable))

    const create = (url: string) =>
      Effect.gen(function*() {
        const created = yield* client.createWebhook(url)
        const record: StoredWebhook = {
          id: created.id,
          url: created.url,
          signatureSecretKey: Redacted.make(created.signature_secret_key),
          createdAt: new Date(yield* Clock.currentTimeMillis).toISOString()
        }
        yield* store.save(record)
        yield* Effect.logInfo(`registered the Polar webhook ${record.id} for ${url}`)
        return record
      })

    /** Makes Polar's webhook the active one for `url`, with its key stored here. */
    const ensureFor = Effect.fn("WebhookKeeper.ensure")(function*(url: string) {
      for (let round = 0; round < 2; round++) {
        const known = yield* stored
        const listed = yield* client.listWebhooks()
        const existing = listed.find((w) => w.url === url) ?? listed[0]
        if (existing === undefined) {
          const made = yield* create(url).pipe(
            Effect.map(Option.some),
            // someone registered one meanwhile: look again
            Effect.catchIf((e) => e._tag === "CloudError" && e.reason === "Conflict", () => Effect.succeed(Option.none<StoredWebhook>()))
          )
          if (Option.isSome(made)) {
            yield* Ref.set(active, true)
            return made.value
          }
          continue
        }
        if (Option.isNone(known) || known.value.id !== existing.id) {
          yield* Effect.logWarning(`the Polar webhook ${existing.id} has no signing key here: replacing it`)
          yield* client.deleteWebhook(existing.id).pipe(
            Effect.catchIf((e) => e._tag === "CloudError" && e.reason === "NotFound", () => Effect.void)
          )
          continue
        }
        let record = known.value
        if (existing.url !== url) {
          yield* client.updateWebhook(existing.id, url)
          record = { ...record, url }
          yield* store.save(record)
          yield* Effect.logInfo(`moved the Polar webhook ${existing.id} to ${url}`)
        }
        if (existing.active === false) {
          yield* client.activateWebhook()
          yield* Effect.logInfo(`re-activated the Polar webhook ${existing.id}`)
        }
        yield* Ref.set(active, true)
        return record
      }
      return yield* new CloudError({ reason: "ApiError", message: `Polar keeps a webhook this connector cannot take over; run \`webhook delete\`` })
    })

    /** With WEBHOOK_URL set: registers or re-activates the webhook (the HTTP server must already answer Polar's PING). */
    const ensure: Effect.Effect<void, CloudError | RateLimited | JsonFileError> = Option.match(config.webhookUrl, {
      onNone: () => Effect.void,
      onSome: (url) => Effect.asVoid(ensureFor(url))
    })

    const show = Effect.gen(function*() {
      const polar = yield* client.listWebhooks()
      const known = yield* stored
      return {
        url: Option.getOrNull(config.webhookUrl),
        polar,
        stored: Option.match(known, { onNone: () => null, onSome: ({ createdAt, id, url }) => ({ id, url, createdAt }) })
      } satisfies WebhookShown
    })

    /** Deletes the client's webhook at Polar and forgets its key; answers the ids deleted. */
    const remove = Effect.gen(function*() {
      const polar = yield* client.listWebhooks()
      const known = yield* stored
      const ids = polar.map((w) => w.id)
      for (const id of ids) {
        yield* client.deleteWebhook(id).pipe(Effect.catchIf((e) => e._tag === "CloudError" && e.reason === "NotFound", () => Effect.void))
      }
      if (Option.isSome(known)) yield* store.save(null)
      yield* Ref.set(active, null)
      return ids
    })

    const status: Effect.Effect<WebhookStatus> = Effect.gen(function*() {
      const known = yield* stored
      return {
        configured: Option.isSome(config.webhookUrl),
        active: yield* Ref.get(active),
        id: Option.match(known, { onNone: () => null, onSome: (w) => w.id }),
        lastEventAt: yield* Ref.get(lastEventAt)
      }
    })

    /** Whether a delivery's body is signed with the stored key; false when no key is stored. */
    const verify = (body: Uint8Array, signature: string | undefined) =>
      Effect.map(stored, (known) =>
        signature !== undefined && Option.isSome(known) &&
        signatureMatches(body, signature, Redacted.value(known.value.signatureSecretKey)))

    const recordEvent = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.zipRight(Ref.set(lastEventAt, new Date(now).toISOString()), Ref.set(active, true)))

    return {
      ensure,
      register: (url: string) => ensureFor(url),
      show,
      remove,
      status,
      verify,
      recordEvent,
      markInactive: Ref.set(active, false)
    } as const
  }),
  dependencies: [PolarConfig.Default, PolarClient.Default, PolarTokens.Default]
}) {}
