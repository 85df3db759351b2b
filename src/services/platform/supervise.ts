import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import { inChannel } from "./Logs.ts"
import { reasonOf, restartBackoff, Supervisor } from "./Supervisor.ts"

/**
 * Runs a long-running loop in the current scope, registered with the Supervisor under `name`.
 * Any failure or defect, and a loop that ends on its own, is recorded, logged to the `daemon`
 * channel with its reason, and the loop restarts after a jittered exponential backoff
 * (SupervisionPolicy: 1 s doubling to 5 minutes; a run of a minute without failing starts
 * the count over). Interruption (shutdown) ends it.
 */
export const supervise = <R>(name: string, loop: Effect.Effect<unknown, unknown, R>) =>
  Effect.gen(function*() {
    const supervisor = yield* Supervisor
    const policy = supervisor.policy
    const fiber = yield* supervisor.register(name)

    const restart = (reason: string, cause: Cause.Cause<unknown>) =>
      Effect.gen(function*() {
        const consecutive = yield* fiber.failed(reason)
        const backoff = restartBackoff(policy, consecutive, yield* Random.next)
        yield* fiber.restarting(backoff)
        const failing = consecutive >= policy.failingAfter ? "; it keeps failing: the health probe reports it" : ""
        yield* Effect.logError(
          `${name} stopped unexpectedly (${reason}); restarting in ${Duration.format(backoff)} (failure ${consecutive} in a row${failing})`,
          cause
        ).pipe(
          Effect.annotateLogs({ consecutiveFailures: consecutive, backoffMillis: Duration.toMillis(backoff) }),
          inChannel("daemon")
        )
        yield* Effect.sleep(backoff)
      })

    const once = fiber.running.pipe(
      Effect.zipRight(loop),
      Effect.matchCauseEffect({
        onFailure: (cause) => Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : restart(reasonOf(cause), cause),
        onSuccess: () => restart("the loop ended on its own", Cause.empty)
      })
    )

    return yield* Effect.forever(once).pipe(
      Effect.ensuring(fiber.stopped),
      Effect.annotateLogs("fiber", name),
      Effect.forkScoped
    )
  })
