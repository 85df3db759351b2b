import { Command } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LogLevel from "effect/LogLevel"
import { WahooConnectorLive } from "../connectors/wahoo/WahooConnector.ts"
import { WahooConfig, wahooConfig, type WahooLogLevel } from "../connectors/wahoo/WahooConfig.ts"
import { checkSettings } from "../services/platform/Settings.ts"
import { describeStartupFailure } from "../services/platform/StartupFailure.ts"
import { VERSION } from "../services/platform/version.ts"
import { commandLine } from "./CommandLine.ts"
import { consoleLogging } from "./ConsoleLogging.ts"
import { announceStop, failingWith, runProgram, sayOnConsole } from "./EntryPoint.ts"

/**
 * The Wahoo connector as a program: it runs until stopped, its configuration checked first,
 * its lines on stdout from LOG_LEVEL up in the daemon's text format; `help` or `--help`
 * prints its usage.
 */

const WAHOO = "waymark-wahoo"

const LEVELS: Record<WahooLogLevel, LogLevel.LogLevel> = {
  DEBUG: LogLevel.Debug,
  INFO: LogLevel.Info,
  WARNING: LogLevel.Warning,
  ERROR: LogLevel.Error
}

const LoggingLive = Layer.unwrapEffect(Effect.map(WahooConfig, (config) => consoleLogging("text", LEVELS[config.logLevel]))).pipe(
  Layer.provide(WahooConfig.Default)
)

const wahoo = Command.make("wahoo", {}, () =>
  Effect.gen(function*() {
    const config = yield* checkSettings(wahooConfig)
    yield* Layer.launch(WahooConnectorLive.pipe(Layer.provide(LoggingLive))).pipe(
      failingWith((cause) =>
        describeStartupFailure(cause, {
          port: config.port,
          host: config.host,
          storageDir: config.stateDir,
          watchDir: config.watchDir,
          program: "The Wahoo connector"
        })
      ),
      announceStop(`waymark Wahoo connector v${VERSION}`, sayOnConsole(WAHOO))
    )
  })).pipe(
    Command.withDescription(
      "Wahoo connector: a dashboard over HTTPS (HOST:PORT) to connect a Wahoo account; downloads its workouts into the watch folder on SYNC_CRON (runs until stopped)"
    )
  )

/** Runs the connector's command line over the process's arguments, as the process. */
export const runWahoo = (): void =>
  runProgram(commandLine(wahoo, [], process.argv, { name: "wahoo", invocation: "node dist/wahoo.js" }), { say: sayOnConsole(WAHOO) })
