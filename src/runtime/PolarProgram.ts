import { Command } from "@effect/cli"
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import { checkedPolarConfig, makePolarSubcommands, POLAR, type WithPolarServices } from "../connectors/polar/PolarCommands.ts"
import type { PolarConfigShape } from "../connectors/polar/PolarConfig.ts"
import { PolarServicesLive, runProcess } from "../connectors/polar/PolarDaemon.ts"
import { applyProcessSettings } from "../connectors/polar/ProcessSettings.ts"
import { ProgramFailed } from "../services/platform/ProgramErrors.ts"
import { describeStartupFailure } from "../services/platform/StartupFailure.ts"
import { VERSION } from "../services/platform/version.ts"
import { commandLine } from "./CommandLine.ts"
import { consoleLogging } from "./ConsoleLogging.ts"
import { announceStop, failingWith, runProgram, sayOnConsole } from "./EntryPoint.ts"

/**
 * The Polar connector as a program: without a subcommand it runs the process until stopped;
 * its subcommands run on the connector's services. Every command checks the configuration
 * first and logs on stdout at LOG_LEVEL, as LOG_FORMAT says.
 */

const LEVELS: Record<PolarConfigShape["logLevel"], LogLevel.LogLevel> = {
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  critical: LogLevel.Fatal
}

const loggingFor = (config: Pick<PolarConfigShape, "logLevel" | "logFormat">) => consoleLogging(config.logFormat, LEVELS[config.logLevel])

const withServices: WithPolarServices = (program) =>
  Effect.gen(function*() {
    const config = yield* checkedPolarConfig
    for (const note of applyProcessSettings(config)) yield* Effect.logInfo(note)
    return yield* program(config).pipe(
      Effect.provide(PolarServicesLive),
      Effect.mapError((e): ProgramFailed => e instanceof ProgramFailed ? e : new ProgramFailed({ message: e.message })),
      Effect.provide(loggingFor(config))
    )
  })

/** The connector's own sentence for a failed run: a busy port named with HTTP_ADDR. */
const runFailure = (config: PolarConfigShape) => (cause: Cause.Cause<unknown>) =>
  describeStartupFailure(cause, {
    port: Option.match(config.httpAddr, { onNone: () => 0, onSome: (a) => a.port }),
    host: Option.match(config.httpAddr, { onNone: () => "", onSome: (a) => a.host }),
    storageDir: config.stateDir,
    watchDir: config.watchDir,
    program: "The Polar connector",
    listenSetting: { name: "HTTP_ADDR", holds: "host:port (or off)" }
  })

const subcommands = makePolarSubcommands(withServices)

const polarCommand = Command.make("polar", {}, () =>
  Effect.gen(function*() {
    const config = yield* checkedPolarConfig
    const notes = applyProcessSettings(config)
    yield* Effect.forEach(notes, (note) => Effect.logInfo(note)).pipe(
      Effect.zipRight(runProcess),
      failingWith(runFailure(config)),
      announceStop(`the Polar connector v${VERSION}`, sayOnConsole(POLAR)),
      Effect.provide(loggingFor(config))
    )
  })).pipe(
    Command.withDescription("Polar connector: delivers Polar exercises into the watch folder (runs until stopped)"),
    Command.withSubcommands(subcommands)
  )

/** Runs the connector's command line over the process's arguments, as the process. */
export const runPolar = (): void =>
  runProgram(commandLine(polarCommand, subcommands, process.argv, { name: "polar", invocation: "node dist/polar.js" }), { say: sayOnConsole(POLAR) })
