import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { type CycleResult, recordCycle } from "../kit/Poller.ts"
import type { ImportOutcome } from "./StravaImport.ts"

/**
 * Strava's sync cycles, as the connector metrics count them (connector="strava"): each run of
 * the scheduled import and each pass of the webhook drain. Strava lives inside the daemon and
 * has loops of its own rather than the kit's poller, so they count themselves here.
 */

export const STRAVA_CONNECTOR = "strava"

/** An import run as a cycle: completed, stopped by a rate limit, or failed (blocked included). */
export const cycleResultOf = (outcome: ImportOutcome): CycleResult =>
  outcome === "completed" ? "completed" : outcome === "rateLimited" ? "rateLimited" : "failed"

/**
 * Counts `effect` as one cycle, by the result `resultOf` reads from its value (none: not a
 * cycle); a failure or a defect is a failed cycle, a stop is not a cycle.
 */
export const countStravaCycle = <A>(resultOf: (value: A) => CycleResult | undefined) => <E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.onExit(effect, (exit) => {
    if (Exit.isSuccess(exit)) {
      const result = resultOf(exit.value)
      return result === undefined ? Effect.void : recordCycle(STRAVA_CONNECTOR, result)
    }
    return Cause.isInterruptedOnly(exit.cause) ? Effect.void : recordCycle(STRAVA_CONNECTOR, "failed")
  })
