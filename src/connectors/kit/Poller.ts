import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as DateTime from "effect/DateTime"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as ScheduleDecision from "effect/ScheduleDecision"
import * as ScheduleIntervals from "effect/ScheduleIntervals"
import { connectorCycles, connectorErrors } from "../../services/platform/Metrics.ts"
import { RateLimited } from "./RateLimit.ts"

/**
 * A connector's sync loop: a cycle at once (unless told otherwise), then one per step of the
 * cadence (an interval randomised by plus or minus a percentage, or a cron schedule). After
 * a rate limit it backs off instead: first `backoff.initial`, then doubling, capped at
 * `backoff.max`, never jittered, and never shorter than the cloud's Retry-After (which the cap
 * does not shorten); the backoff
 * resets after a completed cycle. A trigger (webhook, "sync now") starts a cycle at once when
 * the loop is waiting, or right after the running one; never two cycles at once; a trigger
 * while backing off waits for the backoff to end. With `maxCycles`, the loop ends after that
 * many cycles.
 *
 * The cycle reports its outcome through its exit: success is a completed cycle, a
 * `RateLimited` failure a rate limit, any other failure or defect a failed cycle.
 *
 * Run `poller.run` as a supervised fiber of the connector's scope:
 * `yield* supervise("PolarPoller", poller.run)` (services/platform/supervise.ts).
 */

export type CycleResult = "completed" | "rateLimited" | "failed"

export type PollerPhase = "idle" | "running" | "waiting" | "backingOff" | "stopped"

export interface PollerStatus {
  readonly phase: PollerPhase
  /** Cycles attempted since start (completed, rate limited or failed). */
  readonly cycles: number
  readonly lastResult: Option.Option<CycleResult>
  /** When the next cycle is due, jitter and backoff included; None while one runs or once stopped. */
  readonly nextRunAt: Option.Option<DateTime.Utc>
  /** The current backoff after a rate limit; zero when none (reset by a completed cycle). */
  readonly backoff: Duration.Duration
  /** End of the last completed cycle. */
  readonly lastSuccessAt: Option.Option<DateTime.Utc>
  /** Why the last cycle that did not complete stopped; cleared by a completed cycle. */
  readonly lastError: Option.Option<string>
}

/** What a trigger did: `started` a cycle, `queued` one after the running one, `deferred` to the end of the backoff, or nothing (`stopped`). */
export type TriggerResult = "started" | "queued" | "deferred" | "stopped"

export interface PollerOptions<E, R> {
  /** The cloud the cycles talk to, named on each cycle's span. */
  readonly cloud: string
  readonly cycle: Effect.Effect<unknown, E, R>
  /** Time between cycles: `every(interval, jitterPct)` or `Schedule.cron(...)`. */
  readonly cadence: Schedule.Schedule<unknown>
  /** Backoff after a rate limit: `initial` (e.g. twice the interval), doubling up to `max`. */
  readonly backoff: { readonly initial: Duration.DurationInput; readonly max: Duration.DurationInput }
  /** Ends the loop after this many cycles; 0 or absent runs forever. */
  readonly maxCycles?: number
  /** Runs the first cycle at once (default), or waits for the cadence first. */
  readonly runAtStart?: boolean
}

export interface Poller<R> {
  readonly status: Effect.Effect<PollerStatus>
  readonly trigger: Effect.Effect<TriggerResult>
  /** The loop; returns after `maxCycles` cycles, else runs until interrupted. */
  readonly run: Effect.Effect<void, never, R>
  /** Completes when the loop has ended after `maxCycles`. */
  readonly done: Effect.Effect<void>
}

/**
 * Counts one sync cycle of `connector` by its result (waymark_connector_cycles_total), and an
 * error when it did not complete (waymark_connector_errors_total). The poller counts each of
 * its cycles; a connector with loops of its own (Strava's scheduled import and webhook drain)
 * counts them here too.
 */
export const recordCycle = (connector: string, result: CycleResult): Effect.Effect<void> =>
  Effect.zipRight(
    Metric.increment(Metric.tagged(Metric.tagged(connectorCycles, "connector", connector), "result", result)),
    result === "completed" ? Effect.void : Metric.increment(Metric.tagged(connectorErrors, "connector", connector))
  )

/** Every `interval`, randomised by plus or minus `jitterPct` percent. */
export const every = (interval: Duration.DurationInput, jitterPct: number): Schedule.Schedule<unknown> =>
  Schedule.spaced(interval).pipe(Schedule.jitteredWith({ min: 1 - jitterPct / 100, max: 1 + jitterPct / 100 }))

/** `initial`, then doubling, capped at `max` (the shorter delay of the two schedules wins). */
export const rateLimitBackoff = (initial: Duration.DurationInput, max: Duration.DurationInput): Schedule.Schedule<unknown> =>
  Schedule.exponential(initial, 2).pipe(Schedule.union(Schedule.spaced(max)))

/** Steps a schedule by hand: answers when its next recurrence is due (epoch ms), None when it is done. */
const makeStepper = (schedule: Schedule.Schedule<unknown>) =>
  Effect.map(Ref.make<unknown>(schedule.initial), (state) => ({
    next: Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const [next, , decision] = yield* schedule.step(now, undefined, yield* Ref.get(state))
      yield* Ref.set(state, next)
      // jitter makes fractional milliseconds; whole ones keep the reported due time and the sleep equal
      return ScheduleDecision.isDone(decision)
        ? Option.none<number>()
        : Option.some(Math.ceil(ScheduleIntervals.start(decision.intervals)))
    }),
    reset: Ref.set(state, schedule.initial)
  }))

const describeError = (error: unknown): string => {
  if (typeof error !== "object" || error === null) return String(error)
  const message = "message" in error && typeof error.message === "string" ? error.message : ""
  const tag = "_tag" in error && typeof error._tag === "string" ? error._tag : ""
  return message !== "" ? message : tag !== "" ? tag : String(error)
}

type Outcome =
  | { readonly result: "completed" }
  | { readonly result: "rateLimited"; readonly error: RateLimited }
  | { readonly result: "failed"; readonly message: string }

const outcomeOf = <A, E>(exit: Exit.Exit<A, E>): Outcome => {
  if (Exit.isSuccess(exit)) return { result: "completed" }
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure) && failure.value instanceof RateLimited) return { result: "rateLimited", error: failure.value }
  if (Option.isSome(failure)) return { result: "failed", message: describeError(failure.value) }
  return { result: "failed", message: describeError(Cause.squash(exit.cause)) }
}

export const makePoller = <E, R>(options: PollerOptions<E, R>): Effect.Effect<Poller<R>> =>
  Effect.gen(function*() {
    const maxBackoff = Duration.toMillis(options.backoff.max)
    const state = yield* Ref.make<PollerStatus>({
      phase: "idle",
      cycles: 0,
      lastResult: Option.none(),
      nextRunAt: Option.none(),
      backoff: Duration.zero,
      lastSuccessAt: Option.none(),
      lastError: Option.none()
    })
    const wake = yield* Queue.sliding<void>(1)
    const finished = yield* Deferred.make<void>()
    const cadence = yield* makeStepper(options.cadence)
    const backoff = yield* makeStepper(rateLimitBackoff(options.backoff.initial, options.backoff.max))

    const update = (f: (s: PollerStatus) => Partial<PollerStatus>) => Ref.update(state, (s) => ({ ...s, ...f(s) }))
    const utc = (ms: number) => DateTime.unsafeMake(ms)

    const runCycle = Effect.gen(function*() {
      yield* Queue.takeAll(wake) // triggers so far are served by this cycle
      yield* update((s) => ({ phase: "running", cycles: s.cycles + 1, nextRunAt: Option.none() }))
      const outcome = outcomeOf(yield* Effect.exit(options.cycle.pipe(
        Effect.withSpan("connector.cycle", { attributes: { cloud: options.cloud } })
      )))
      const ended = yield* Clock.currentTimeMillis
      yield* recordCycle(options.cloud, outcome.result)
      switch (outcome.result) {
        case "completed":
          yield* update(() => ({ lastSuccessAt: Option.some(utc(ended)), lastError: Option.none(), backoff: Duration.zero }))
          yield* backoff.reset
          break
        case "rateLimited":
          yield* update(() => ({ lastError: Option.some(outcome.error.message) }))
          yield* Effect.logWarning(`cycle stopped by a rate limit: ${outcome.error.message}`)
          break
        case "failed": {
          // a failure that repeats the last one (authorization still required, the cloud still
          // down) was said when it began: every cycle saying it again buries the log
          const again = Option.contains((yield* Ref.get(state)).lastError, outcome.message)
          yield* update(() => ({ lastError: Option.some(outcome.message) }))
          yield* again ? Effect.logDebug(`cycle failed again: ${outcome.message}`) : Effect.logError(`cycle failed: ${outcome.message}`)
        }
      }
      yield* update(() => ({ lastResult: Option.some(outcome.result) }))
      return outcome
    })

    /** Waits for the cadence's next step or a trigger; false when the cadence is done. */
    const awaitCadence = Effect.gen(function*() {
      const due = yield* cadence.next
      if (Option.isNone(due)) return false
      const now = yield* Clock.currentTimeMillis
      yield* update(() => ({ phase: "waiting", nextRunAt: Option.some(utc(due.value)) }))
      yield* Effect.race(Effect.sleep(Duration.millis(Math.max(0, due.value - now))), Queue.take(wake))
      return true
    })

    /** Waits out the backoff after a rate limit; triggers wait with it. */
    const awaitBackoff = (error: RateLimited) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const scheduled = Option.getOrElse(yield* backoff.next, () => now + maxBackoff) - now
        const hinted = error.retryAfter === undefined ? 0 : Duration.toMillis(error.retryAfter)
        // The doubling is capped; the cloud's own Retry-After is not: calling earlier only spends
        // another request on a refusal.
        const delay = Math.max(Math.min(scheduled, maxBackoff), hinted)
        yield* update(() => ({ phase: "backingOff", backoff: Duration.millis(delay), nextRunAt: Option.some(utc(now + delay)) }))
        yield* Effect.logInfo(`backing off for ${Math.round(delay / 1000)}s`)
        yield* Effect.sleep(Duration.millis(delay))
      })

    const stop = update(() => ({ phase: "stopped", nextRunAt: Option.none() })).pipe(
      Effect.zipRight(Deferred.succeed(finished, undefined))
    )

    const run = Effect.gen(function*() {
      if (options.runAtStart === false && !(yield* awaitCadence)) return yield* stop
      while (true) {
        const outcome = yield* runCycle
        const { cycles } = yield* Ref.get(state)
        if (options.maxCycles !== undefined && options.maxCycles > 0 && cycles >= options.maxCycles) return yield* stop
        if (outcome.result === "rateLimited") yield* awaitBackoff(outcome.error)
        else if (!(yield* awaitCadence)) return yield* stop
      }
    })

    const trigger = Effect.gen(function*() {
      const { phase } = yield* Ref.get(state)
      if (phase === "stopped") return "stopped" as const
      if (phase === "backingOff") return "deferred" as const
      yield* Queue.offer(wake, undefined)
      return phase === "running" ? "queued" as const : "started" as const
    })

    return { status: Ref.get(state), trigger, run, done: Deferred.await(finished) } satisfies Poller<R>
  })
