import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { TooManyRequests } from "../schema/ApiErrors.ts"
import { inChannel } from "../services/platform/Logs.ts"

/**
 * Wrong keys, per client address: a failed sign-in or a wrong bearer key fills the address's
 * bucket by one, and the bucket empties by LEAK_PER_MINUTE a minute. Past FREE_WRONG_KEYS the
 * answer (401) comes after a delay that doubles with each one, from 100 ms up to MAX_DELAY;
 * from REFUSE_AT on, wrong keys are refused at once with 429 and `Retry-After` (the seconds
 * until the bucket is under REFUSE_AT again; these do not fill it). The right key is never
 * delayed: only a key that failed its check comes here. Each address that is slowed or
 * refused is named at warning level in the `daemon` log, at most once a minute.
 *
 * An IPv6 address counts by its /64 (one host holds a whole /64); an IPv4-mapped one as IPv4.
 * Behind a reverse proxy every client shares the proxy's address: wrong keys from anyone slow
 * everyone's wrong keys, never a right one.
 */

export const FREE_WRONG_KEYS = 5
export const REFUSE_AT = 30

/** How many wrong keys an address may send before they are slowed, and refused (tests of every wrong key raise them). */
export class WrongKeysPolicy extends Context.Reference<WrongKeysPolicy>()("http/WrongKeysPolicy", {
  defaultValue: () => ({ free: FREE_WRONG_KEYS, refuseAt: REFUSE_AT })
}) {}
const LEAK_PER_MINUTE = 10
const FIRST_DELAY_MS = 100
const MAX_DELAY = Duration.seconds(5)
/** An address slowed or refused is named in the log at most this often. */
const NAMED_EVERY_MS = 60_000
/** Addresses remembered at most (the oldest go first): a scan from many addresses is bounded. */
const MAX_ADDRESSES = 10_000

interface Bucket {
  level: number
  at: number
  /** when this address was last named in the log (ms since the epoch) */
  namedAt: number
  /** wrong keys since it was last named */
  sinceNamed: number
}

/** The address a client is counted under. */
export const clientOf = (address: string | undefined): string => {
  if (address === undefined || address === "") return "unknown"
  if (address.startsWith("::ffff:") && address.includes(".")) return address.slice(7)
  if (!address.includes(":")) return address
  // the first four groups of the full form: the /64
  const bare = address.split("%")[0]!
  const [head = "", tail = ""] = bare.includes("::") ? bare.split("::") : [bare, ""]
  const before = head === "" ? [] : head.split(":")
  const after = tail === "" ? [] : tail.split(":")
  const full = [...before, ...Array(Math.max(0, 8 - before.length - after.length)).fill("0"), ...after]
  return `${full.slice(0, 4).map((g) => g.toLowerCase().replace(/^0+(?=.)/, "")).join(":")}::/64`
}

/** What becomes of a wrong key: answered after `delay`, or refused. */
export type WrongKeyAnswer = Data.TaggedEnum<{
  Answer: { readonly delay: Duration.Duration }
  Refuse: { readonly retryAfterSeconds: number }
}>
const WrongKeyAnswer = Data.taggedEnum<WrongKeyAnswer>()

export class WrongKeys extends Effect.Service<WrongKeys>()("http/WrongKeys", {
  // each daemon built counts its own addresses (one process may build several)
  sync: () => {
    const buckets = new Map<string, Bucket>()

    /** The bucket of `client` now, emptied by the time passed. */
    const bucketOf = (client: string, now: number): Bucket => {
      let bucket = buckets.get(client)
      if (bucket === undefined) {
        if (buckets.size >= MAX_ADDRESSES) buckets.delete(buckets.keys().next().value!)
        bucket = { level: 0, at: now, namedAt: -Infinity, sinceNamed: 0 }
        buckets.set(client, bucket)
      }
      bucket.level = Math.max(0, bucket.level - ((now - bucket.at) / 60_000) * LEAK_PER_MINUTE)
      bucket.at = now
      return bucket
    }

    /** Counts a wrong key of `client` at `now`: how it is answered. */
    const count = (client: string, now: number, policy: WrongKeysPolicy["Type"]): WrongKeyAnswer => {
      const bucket = bucketOf(client, now)
      bucket.sinceNamed++
      if (bucket.level >= policy.refuseAt) {
        return WrongKeyAnswer.Refuse({ retryAfterSeconds: Math.max(1, Math.ceil(((bucket.level - policy.refuseAt + 1) / LEAK_PER_MINUTE) * 60)) })
      }
      bucket.level += 1
      // whole wrong keys past the free ones (the bucket's leak leaves a fraction): 100 ms, 200 ms, …
      const over = Math.ceil(bucket.level - policy.free)
      if (over <= 0) return WrongKeyAnswer.Answer({ delay: Duration.zero })
      return WrongKeyAnswer.Answer({ delay: Duration.min(MAX_DELAY, Duration.millis(FIRST_DELAY_MS * 2 ** Math.min(over - 1, 20))) })
    }

    /**
     * A wrong key (`what`: "API key", "sign-in") from `address`: waits the delay its address has
     * earned, or fails with TooManyRequests; names the address in the log once a minute.
     */
    const wrongKey = (address: string | undefined, what: string): Effect.Effect<void, TooManyRequests> =>
      Effect.flatMap(WrongKeysPolicy, (policy) => {
        const client = clientOf(address)
        const now = Date.now()
        const answer = count(client, now, policy)
        const bucket = buckets.get(client)!
        const slowed = answer._tag === "Refuse" || Duration.greaterThan(answer.delay, Duration.zero)
        const name = slowed && now - bucket.namedAt >= NAMED_EVERY_MS
          ? Effect.logWarning(
            `${bucket.sinceNamed} wrong keys (${what}) from ${client} since it was last named: its wrong keys are ${
              answer._tag === "Refuse" ? `refused (429) for ${answer.retryAfterSeconds} s` : `answered after ${Duration.format(answer.delay)}`
            }; the right key is never delayed`
          ).pipe(
            inChannel("daemon"),
            Effect.tap(() =>
              Effect.sync(() => {
                bucket.namedAt = now
                bucket.sinceNamed = 0
              })
            )
          )
          : Effect.void
        return name.pipe(Effect.zipRight(
          WrongKeyAnswer.$match(answer, {
            Answer: ({ delay }) => Effect.sleep(delay),
            Refuse: ({ retryAfterSeconds }) =>
              Effect.fail(
                new TooManyRequests({
                  message: `Too many wrong keys from your address: try again in ${retryAfterSeconds} s, with the right key.`,
                  retryAfterSeconds
                })
              )
          })
        ))
      })

    return { wrongKey } as const
  }
}) {}
