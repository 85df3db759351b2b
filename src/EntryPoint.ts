import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, type Config, ConfigError, Effect, Either, Exit } from "effect"
import { configProblems } from "./services/platform/Settings.ts"

/**
 * How every long-running program of Waymark starts and ends (the daemon, the Polar and the
 * Wahoo connectors): its settings are checked first (every problem at once, exit code 1); a
 * start or run that fails says why in one sentence on stderr (a busy port named with the
 * setting that moves it), exit code 1; SIGTERM or SIGINT stops it, and its last line says
 * that it stopped cleanly and why, exit code 0.
 */

export const EXIT_OK = 0
export const EXIT_FAILURE = 1
export const EXIT_USAGE = 2

/** Where a program's own lines go: stdout or stderr by default; the daemon adds its `daemon` log. */
export type Say = (level: "INFO" | "FATAL", message: string, detail?: string) => void

export const sayOnConsole = (name: string): Say => (level, message) => {
  if (level === "FATAL") process.stderr.write(`${name}: ${message}\n`)
  else process.stdout.write(`${new Date().toISOString()} INFO  ${message}\n`)
}

/** The checked settings; on any problem, all of them on stderr and exit code 1. */
export const checkedSettings = <A>(
  name: string,
  config: Config.Config<A>,
  moreProblems: () => ReadonlyArray<string> = () => []
): A => {
  const validated = Effect.runSync(Effect.either(config))
  const problems = [
    ...(Either.isLeft(validated)
      ? ConfigError.isConfigError(validated.left) ? configProblems(validated.left) : [String(validated.left)]
      : []),
    ...moreProblems()
  ]
  if (Either.isLeft(validated) || problems.length > 0) {
    process.stderr.write(`${name}: invalid configuration (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n`)
    for (const problem of problems) process.stderr.write(`  - ${problem}\n`)
    process.exit(EXIT_FAILURE)
  }
  return validated.right
}

/** The signal that asked the process to stop, once one has. */
let stopSignal: NodeJS.Signals | undefined
let watching = false
/** Notes which signal stops the process (the runtime itself interrupts the program on it). */
export const watchStopSignals = () => {
  if (watching) return
  watching = true
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => (stopSignal ??= signal))
}
export const stoppedBy = (): NodeJS.Signals | undefined => stopSignal

/** The last line of a program that ended without failing: that it stopped cleanly, and why. */
export const announceStop = <A, E, R>(title: string, say: Say) => (program: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    watchStopSignals()
    const started = Date.now()
    return Effect.onExit(program, (exit) =>
      Exit.isSuccess(exit) || Cause.isInterruptedOnly(exit.cause)
        ? Effect.sync(() => {
          const why = stopSignal !== undefined ? `on ${stopSignal}` : "its work done"
          say("INFO", `${title} stopped cleanly ${why} after ${Math.round((Date.now() - started) / 1000)} s`)
        })
        : Effect.void)
  })

export interface ProgramOptions {
  /** The program in sentences, e.g. "waymark v1.2.0", "the Polar connector". */
  readonly title: string
  readonly say: Say
  /** One sentence for a failure: what to change and why. */
  readonly describeFailure: (cause: Cause.Cause<unknown>) => string
  /** Runs once the program has ended, whatever the way (releasing a lock). */
  readonly finally?: () => void
}

/**
 * Runs `program` as the process: until it ends by itself (exit code 0, or `process.exitCode`),
 * fails (its sentence, exit code 1), or a signal interrupts it (a clean stop, exit code 0).
 */
export const runProgram = <E>(program: Effect.Effect<void, E>, options: ProgramOptions): void => {
  program.pipe(
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.sync(() => {
        options.say("FATAL", options.describeFailure(cause), Cause.pretty(cause, { renderErrorCause: true }))
      }).pipe(Effect.zipRight(Effect.failCause(cause)))
    ),
    announceStop(options.title, options.say),
    Effect.ensuring(Effect.sync(() => options.finally?.())),
    NodeRuntime.runMain({
      disablePrettyLogger: true,
      disableErrorReporting: true,
      // an HTTP client may keep idle connections open: the process ends when its work has
      teardown: (exit, onExit) => {
        const failed = Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause)
        const code = failed ? EXIT_FAILURE : typeof process.exitCode === "number" ? process.exitCode : EXIT_OK
        onExit(code)
        process.exit(code)
      }
    })
  )
}
