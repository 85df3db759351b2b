import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Inspectable from "effect/Inspectable"
import * as Metric from "effect/Metric"
import { fiberRestarts } from "./Metrics.ts"

/**
 * How supervised loops restart and when a loop counts as failing. A loop that failed
 * `failingAfter` times in a row (each run shorter than `stableAfter`) turns the health probe
 * to 503 until it has run `stableAfter` without failing again. Read once by the Supervisor,
 * so that tests can shorten the pauses.
 */
export class SupervisionPolicy extends Context.Reference<SupervisionPolicy>()("services/platform/SupervisionPolicy", {
  defaultValue: () => ({
    firstBackoff: Duration.seconds(1),
    maxBackoff: Duration.minutes(5),
    stableAfter: Duration.minutes(1),
    failingAfter: 5
  })
}) {}

export type SupervisionPolicyShape = Context.Tag.Service<SupervisionPolicy>

/**
 * The pause before restart number `consecutive` (1 for the first failure in a row): doubling
 * from `firstBackoff`, multiplied by a jitter of 0.8 to 1.2 (`random` in [0, 1)), capped last.
 */
export const restartBackoff = (policy: SupervisionPolicyShape, consecutive: number, random: number): Duration.Duration => {
  const base = Duration.toMillis(policy.firstBackoff) * 2 ** Math.min(Math.max(consecutive - 1, 0), 30)
  return Duration.millis(Math.round(Math.min(base * (0.8 + 0.4 * random), Duration.toMillis(policy.maxBackoff))))
}

const MAX_REASON_LENGTH = 300

/** A failure in one line (name and message of the error, no stack trace), as the probe shows it. */
export const reasonOf = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  const text = error instanceof Error
    ? (error.message !== "" ? `${error.name}: ${error.message}` : error.name)
    : typeof error === "string"
    ? error
    : Inspectable.toStringUnknown(error)
  const line = (text.split("\n")[0] ?? "").trim()
  return line.length > MAX_REASON_LENGTH ? `${line.slice(0, MAX_REASON_LENGTH - 1)}…` : line
}

export type FiberState = "running" | "restarting" | "stopped"

/** What the supervisor knows of one loop, as the health probe shows it. */
export interface FiberReport {
  readonly name: string
  readonly state: FiberState
  /** when the current state began (epoch ms) */
  readonly since: number
  /** restarts since the daemon started */
  readonly restarts: number
  /** failures in a row (0 once the loop has run `stableAfter` without failing) */
  readonly consecutiveFailures: number
  /** while restarting: the pause before the next attempt */
  readonly backoffMillis: number | null
  readonly lastError: string | null
  readonly lastErrorAt: number | null
  /** true when the loop keeps failing (see SupervisionPolicy) or has stopped */
  readonly failing: boolean
}

interface Entry {
  state: FiberState
  since: number
  restarts: number
  consecutiveFailures: number
  backoffMillis: number | null
  lastError: string | null
  lastErrorAt: number | null
}

/** Handle of one registered loop, through which its supervisor records what happens to it. */
export interface SupervisedFiber {
  /** the loop (re)started */
  readonly running: Effect.Effect<void>
  /**
   * The loop failed with `reason`: records the failure, counts it (a run of at least
   * `stableAfter` starts the count over) and returns how many failures are now in a row.
   */
  readonly failed: (reason: string) => Effect.Effect<number>
  /** the pause chosen before the next attempt */
  readonly restarting: (backoff: Duration.Duration) => Effect.Effect<void>
  readonly stopped: Effect.Effect<void>
}

/**
 * The registry of the supervision tree: every long-running loop of the daemon (and the HTTP
 * listener) registers here, and the health probe reads their states.
 */
export class Supervisor extends Effect.Service<Supervisor>()("services/platform/Supervisor", {
  effect: Effect.gen(function*() {
    const policy = yield* SupervisionPolicy
    const stableAfter = Duration.toMillis(policy.stableAfter)
    const entries = new Map<string, Entry>()

    const register = (name: string) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const entry: Entry = {
          state: "running",
          since: now,
          restarts: 0,
          consecutiveFailures: 0,
          backoffMillis: null,
          lastError: null,
          lastErrorAt: null
        }
        entries.set(name, entry)
        const restartsOf = Metric.tagged(fiberRestarts, "fiber", name)
        const handle: SupervisedFiber = {
          running: Effect.flatMap(Clock.currentTimeMillis, (at) => {
            const restarted = entry.state === "restarting"
            if (restarted) entry.restarts++
            entry.state = "running"
            entry.since = at
            entry.backoffMillis = null
            return restarted ? Metric.increment(restartsOf) : Effect.void
          }),
          failed: (reason) =>
            Effect.map(Clock.currentTimeMillis, (at) => {
              const ranFor = entry.state === "running" ? at - entry.since : 0
              entry.consecutiveFailures = ranFor >= stableAfter ? 1 : entry.consecutiveFailures + 1
              entry.lastError = reason
              entry.lastErrorAt = at
              return entry.consecutiveFailures
            }),
          restarting: (backoff) =>
            Effect.map(Clock.currentTimeMillis, (at) => {
              entry.state = "restarting"
              entry.since = at
              entry.backoffMillis = Duration.toMillis(backoff)
            }),
          stopped: Effect.map(Clock.currentTimeMillis, (at) => {
            entry.state = "stopped"
            entry.since = at
            entry.backoffMillis = null
          })
        }
        return handle
      })

    /** Every registered loop, in registration order. */
    const snapshot = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      return [...entries].map(([name, e]): FiberReport => {
        const consecutiveFailures = e.state === "running" && now - e.since >= stableAfter ? 0 : e.consecutiveFailures
        return {
          name,
          state: e.state,
          since: e.since,
          restarts: e.restarts,
          consecutiveFailures,
          backoffMillis: e.backoffMillis,
          lastError: e.lastError,
          lastErrorAt: e.lastErrorAt,
          failing: e.state === "stopped" || consecutiveFailures >= policy.failingAfter
        }
      })
    })

    return { policy, register, snapshot } as const
  })
}) {}
