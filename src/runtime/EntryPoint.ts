import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { ProgramFailed, UsageError } from "../services/platform/ProgramErrors.ts"
import { InvalidSettings } from "../services/platform/Settings.ts"
import { writeStdout } from "../services/platform/wholeLines.ts"

/**
 * How every program of Waymark starts and ends: the daemon, the Polar and the Wahoo
 * connectors (and the command line, through cli/CliRuntime.ts):
 * - its settings are checked first, every problem at once, exit code 1;
 * - its log lines go to stdout, in the daemon's text or JSON format;
 * - called wrongly (a usage error), it says how to call it, exit code 2;
 * - a start or run that fails says why in one sentence on stderr (a busy port named with the
 *   setting that moves it), exit code 1;
 * - SIGTERM or SIGINT stops it, and the last line of a long-running program says that it
 *   stopped cleanly and why, exit code 0.
 */

export const EXIT_OK = 0
export const EXIT_FAILURE = 1
export const EXIT_USAGE = 2

/** Where a program's own lines go: stdout or stderr by default; the daemon adds its `daemon` log. */
export type Say = (level: "INFO" | "FATAL", message: string, detail?: string) => void

export const sayOnConsole = (name: string): Say => (level, message) => {
  if (level === "FATAL") process.stderr.write(`${name}: ${message}\n`)
  else writeStdout(`${new Date().toISOString()} INFO  ${message}\n`)
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

/** A failure of `program` as `ProgramFailed` with the sentence `describe` makes of it; a stop stays a stop. */
export const failingWith = (describe: (cause: Cause.Cause<unknown>) => string) => <A, E, R>(program: Effect.Effect<A, E, R>) =>
  Effect.catchAllCause(program, (cause) =>
    Cause.isInterruptedOnly(cause) ? Effect.failCause(cause as Cause.Cause<never>) : Effect.fail(new ProgramFailed({ message: describe(cause), cause: Cause.squash(cause) })))

/** The first line of a failure's message (or of a defect's). */
export const firstLineOf = (cause: Cause.Cause<unknown>): string => {
  const error = Option.getOrUndefined(Option.orElse(Cause.failureOption(cause), () => Cause.dieOption(cause)))
  if (error === undefined) return Cause.pretty(cause).split("\n")[0]!
  const text = typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error)
  return text.split("\n")[0]!
}

export interface ProgramOptions {
  /** The program in words, e.g. "waymark v1.2.0": its stop is announced (a long-running program). */
  readonly title?: string
  readonly say: Say
  /** One sentence for a failure, said as FATAL (nothing when undefined); the first line of its message by default. */
  readonly describeFailure?: (cause: Cause.Cause<unknown>) => string | undefined
  /** The exit code of a stop by a signal; 0 by default. */
  readonly stoppedExitCode?: (signal: NodeJS.Signals | undefined) => number
  /** Runs once the program has ended, whatever the way (releasing a lock). */
  readonly finally?: () => void
}

/**
 * Runs `program` as the process: until it ends by itself (exit code 0, or `process.exitCode`),
 * is called wrongly (`UsageError`, exit code 2), fails (invalid settings listed, else one
 * sentence; exit code 1), or a signal interrupts it (a clean stop, exit code 0).
 */
export const runProgram = <E>(program: Effect.Effect<void, E>, options: ProgramOptions): void => {
  watchStopSignals()
  let code: number | undefined
  const describe = options.describeFailure ?? firstLineOf
  program.pipe(
    options.title === undefined ? (p) => p : announceStop(options.title, options.say),
    Effect.catchAllCause((cause) => {
      if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
      return Effect.sync(() => {
        const failure = Option.getOrUndefined(Cause.failureOption(cause))
        if (failure instanceof UsageError) {
          code = EXIT_USAGE
          process.stderr.write(`${failure.message}\n`)
          return
        }
        code = EXIT_FAILURE
        if (failure instanceof InvalidSettings) return options.say("FATAL", failure.message)
        const line = describe(cause)
        if (line !== undefined) options.say("FATAL", line, Cause.pretty(cause, { renderErrorCause: true }))
      })
    }),
    Effect.ensuring(Effect.sync(() => options.finally?.())),
    NodeRuntime.runMain({
      disablePrettyLogger: true,
      disableErrorReporting: true,
      // an HTTP client may keep idle connections open: the process ends when its work has
      teardown: (exit, onExit) => {
        const ended = Exit.isFailure(exit)
          ? Cause.isInterruptedOnly(exit.cause) ? options.stoppedExitCode?.(stopSignal) ?? EXIT_OK : EXIT_FAILURE
          : code ?? (typeof process.exitCode === "number" ? process.exitCode : EXIT_OK)
        onExit(ended)
        process.exit(ended)
      }
    })
  )
}
