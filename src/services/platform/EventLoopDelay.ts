import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { type IntervalHistogram, monitorEventLoopDelay, performance } from "node:perf_hooks"

/**
 * The event loop's delay, measured while the process works. The histogram's timer wakes the
 * loop every RESOLUTION_MS: left on, it alone makes an idle daemon use CPU (a hundred wake-ups
 * a second). It runs only while the loop was busy during the last CHECK_MS (its utilization
 * above BUSY_UTILIZATION, which the timer's own wake-ups stay below), and an idle loop, which
 * delays nothing, adds no samples.
 */
const RESOLUTION_MS = 10
const CHECK_MS = 1000
const BUSY_UTILIZATION = 0.05

/** The histogram, switched on and off with the loop's work for as long as the scope lasts. */
export const eventLoopDelay: Effect.Effect<IntervalHistogram, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => {
    const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS })
    let enabled = false
    let last = performance.eventLoopUtilization()
    const check = setInterval(() => {
      const now = performance.eventLoopUtilization()
      const busy = performance.eventLoopUtilization(now, last).utilization > BUSY_UTILIZATION
      last = now
      if (busy !== enabled) {
        enabled = busy
        if (busy) histogram.enable()
        else histogram.disable()
      }
    }, CHECK_MS)
    check.unref()
    return { histogram, check }
  }),
  ({ check, histogram }) =>
    Effect.sync(() => {
      clearInterval(check)
      histogram.disable()
    })
).pipe(Effect.map(({ histogram }) => histogram))
