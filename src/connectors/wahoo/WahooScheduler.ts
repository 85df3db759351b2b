import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import { supervise } from "../../services/platform/supervise.ts"
import { makePoller } from "../kit/Poller.ts"
import { WahooClient } from "./WahooClient.ts"
import { type TimeWindow, WahooConfig } from "./WahooConfig.ts"
import { WahooSync } from "./WahooSync.ts"

/**
 * When syncs run: at each SYNC_CRON time (UTC), and when asked (the dashboard's button, the
 * end of a connection). Never two at once: a request while one runs is answered "in
 * progress". After a rate limit the next sync waits (15 minutes, doubling up to 6 hours, never
 * less than the cloud's Retry-After); a request meanwhile runs when that wait ends. A
 * scheduled time with no account connected does nothing.
 */

export const BACKOFF_INITIAL = "15 minutes"
export const BACKOFF_MAX = "6 hours"

export type SyncRequest =
  | { readonly _tag: "Started"; readonly window: TimeWindow }
  | { readonly _tag: "InProgress" }
  /** rate limited: runs at `at` (epoch ms) */
  | { readonly _tag: "Deferred"; readonly window: TimeWindow; readonly at: Option.Option<number> }
  | { readonly _tag: "NotConnected" }

export class WahooScheduler extends Effect.Service<WahooScheduler>()("connectors/wahoo/WahooScheduler", {
  scoped: Effect.gen(function*() {
    const config = yield* WahooConfig
    const client = yield* WahooClient
    const sync = yield* WahooSync
    const pending = yield* Ref.make(Option.none<TimeWindow>())
    const startedAt = yield* Clock.currentTimeMillis

    const cycle = Effect.gen(function*() {
      const window = Option.getOrElse(yield* Ref.getAndSet(pending, Option.none()), () => config.timeWindow)
      if (!(yield* client.connected)) {
        return yield* Effect.logInfo("no Wahoo account connected: nothing to sync")
      }
      yield* sync.run(window)
    })

    const poller = yield* makePoller({
      cloud: "wahoo",
      cycle,
      cadence: Schedule.cron(config.cron),
      backoff: { initial: BACKOFF_INITIAL, max: BACKOFF_MAX },
      runAtStart: false
    })
    yield* supervise("WahooScheduler", poller.run)

    /** Asks for a sync now over `window` (the configured one by default). */
    const request = Effect.fn("WahooScheduler.request")(function*(window: Option.Option<TimeWindow>) {
      if (!(yield* client.connected)) return { _tag: "NotConnected" } as SyncRequest
      const before = yield* poller.status
      if (before.phase === "running" || (yield* sync.isSyncing)) return { _tag: "InProgress" } as SyncRequest
      const chosen = Option.getOrElse(window, () => config.timeWindow)
      yield* Ref.set(pending, Option.some(chosen))
      const answer = yield* poller.trigger
      switch (answer) {
        case "started":
          return { _tag: "Started", window: chosen } as SyncRequest
        case "deferred": {
          const status = yield* poller.status
          return { _tag: "Deferred", window: chosen, at: Option.map(status.nextRunAt, (d) => d.epochMillis) } as SyncRequest
        }
        default:
          return { _tag: "InProgress" } as SyncRequest
      }
    })

    return { status: poller.status, request, startedAt } as const
  })
}) {}
