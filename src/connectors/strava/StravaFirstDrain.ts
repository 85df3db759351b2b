import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"

/**
 * The webhook drain's first pass, made at start: the scheduled import waits for it before its
 * schedule begins. Both take the import lock, and a scheduled run that took it first would make
 * the first pass find it busy, leaving the queued events (and the pass's cycle) until the next
 * check, WEBHOOKS_CHECK_INTERVAL_MINUTES later. With webhooks off there is no drain and nothing
 * to wait for.
 */
export class StravaFirstDrain extends Effect.Service<StravaFirstDrain>()("connectors/strava/StravaFirstDrain", {
  effect: Effect.map(Deferred.make<void>(), (passed) => ({
    /** the first pass ended (whatever its result); later passes change nothing */
    passed: Deferred.succeed(passed, undefined).pipe(Effect.asVoid),
    /** waits until the first pass ended */
    awaitPassed: Deferred.await(passed)
  }))
}) {}
