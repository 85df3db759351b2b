import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { inChannel } from "../../services/platform/Logs.ts"
import { clientOf } from "../WrongKeys.ts"

/**
 * Requests to share links, per client address (counted as the wrong keys are: an IPv6 address
 * by its /64): each fills the address's bucket by one, a link that opens nothing (wrong or
 * revoked, both answered 404) by MISS_COST, and the bucket empties by `perMinute` a minute.
 * A request that would overfill it is refused with 429 and `Retry-After` (the seconds until it
 * fits), without filling it further. A guesser gets a few tries a minute; a person reading a
 * shared page with its picture and photos never meets the limit. Each address refused is named
 * at warning level in the `daemon` log, at most once a minute.
 */

export const MISS_COST = 10

export class ShareRequestsPolicy extends Context.Reference<ShareRequestsPolicy>()("http/ShareRequestsPolicy", {
  defaultValue: () => ({ capacity: 120, perMinute: 60 })
}) {}

const NAMED_EVERY_MS = 60_000
const MAX_ADDRESSES = 10_000

interface Bucket {
  level: number
  at: number
  namedAt: number
}

export class ShareRequests extends Effect.Service<ShareRequests>()("http/ShareRequests", {
  sync: () => {
    const buckets = new Map<string, Bucket>()

    const bucketOf = (client: string, now: number, perMinute: number): Bucket => {
      let bucket = buckets.get(client)
      if (bucket === undefined) {
        if (buckets.size >= MAX_ADDRESSES) buckets.delete(buckets.keys().next().value!)
        bucket = { level: 0, at: now, namedAt: -Infinity }
        buckets.set(client, bucket)
      }
      bucket.level = Math.max(0, bucket.level - ((now - bucket.at) / 60_000) * perMinute)
      bucket.at = now
      return bucket
    }

    /**
     * Counts a request of `address` costing `cost`: null when it may go on, else the seconds
     * its client is to wait (Retry-After).
     */
    const admit = (address: string | undefined, cost: number): Effect.Effect<number | null> =>
      Effect.flatMap(ShareRequestsPolicy, (policy) => {
        const client = clientOf(address)
        const now = Date.now()
        const bucket = bucketOf(client, now, policy.perMinute)
        if (bucket.level + cost <= policy.capacity) {
          bucket.level += cost
          return Effect.succeed(null)
        }
        const wait = Math.max(1, Math.ceil(((bucket.level + cost - policy.capacity) / policy.perMinute) * 60))
        const name = now - bucket.namedAt >= NAMED_EVERY_MS
          ? Effect.logWarning(`share link requests from ${client} refused (429) for ${wait} s: too many, or too many that opened nothing`).pipe(
            inChannel("daemon"),
            Effect.tap(() => Effect.sync(() => (bucket.namedAt = now)))
          )
          : Effect.void
        return Effect.as(name, wait)
      })

    /** A request that opened nothing costs more: counts the rest of its cost. */
    const missed = (address: string | undefined): Effect.Effect<void> =>
      Effect.flatMap(ShareRequestsPolicy, (policy) =>
        Effect.sync(() => {
          const bucket = bucketOf(clientOf(address), Date.now(), policy.perMinute)
          bucket.level += MISS_COST - 1
        }))

    return { admit, missed } as const
  }
}) {}
