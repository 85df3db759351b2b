import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { supervise } from "../../services/platform/supervise.ts"
import { every, makePoller } from "../kit/Poller.ts"
import { PolarConfig } from "./PolarConfig.ts"
import { PolarSync } from "./PolarSync.ts"

/**
 * The connector's schedule: a cycle at once, then every POLL_INTERVAL plus or minus
 * POLL_JITTER_PCT; after a rate limit a backoff of twice the interval, doubling up to
 * MAX_BACKOFF_SECONDS, reset by a completed cycle. A webhook event or a new authorization
 * triggers a cycle at once. With MAX_CYCLES the loop ends after that many cycles.
 */
export class PolarPoller extends Effect.Service<PolarPoller>()("connectors/polar/PolarPoller", {
  effect: Effect.gen(function*() {
    const config = yield* PolarConfig
    const sync = yield* PolarSync
    const startedAt = yield* Clock.currentTimeMillis
    const poller = yield* makePoller({
      cloud: "polar",
      cycle: sync.cycle({ dryRun: config.dryRun }),
      cadence: every(config.pollInterval, config.pollJitterPct),
      backoff: { initial: Duration.times(config.pollInterval, 2), max: config.maxBackoff },
      maxCycles: config.maxCycles
    })
    return { ...poller, startedAt } as const
  }),
  dependencies: [PolarConfig.Default, PolarSync.Default]
}) {}

/** The poller's loop as a supervised fiber of the process. */
export const PollerLoopLive = Layer.scopedDiscard(Effect.flatMap(PolarPoller, (poller) => supervise("PolarPoller", poller.run)))
