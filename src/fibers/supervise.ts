import { Cause, Effect, Schedule } from "effect"
import { inChannel } from "../services/platform/Logs.ts"

/** Jittered exponential backoff capped at 5 minutes (jitter first, cap last). */
export const restartBackoff = Schedule.exponential("1 second", 2).pipe(
  Schedule.jittered,
  Schedule.either(Schedule.spaced("5 minutes"))
)

/**
 * Runs a long-running loop in the current scope: any failure or defect is logged to the
 * `daemon` channel and the loop restarts with backoff. Interruption (shutdown) ends it.
 */
export const supervise = <R>(name: string, loop: Effect.Effect<unknown, unknown, R>) =>
  loop.pipe(
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.failCause(cause)
        : Effect.logError(`${name} stopped unexpectedly; restarting`, cause).pipe(
          inChannel("daemon"),
          Effect.zipRight(Effect.fail(cause))
        )
    ),
    Effect.retry(restartBackoff),
    Effect.annotateLogs("fiber", name),
    Effect.forkScoped
  )
