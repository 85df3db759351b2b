import { Command } from "@effect/cli"
import { Effect, Layer } from "effect"
import { commandLine } from "./runtime/CommandLine.ts"
import { WahooConnectorLive } from "./connectors/wahoo/WahooConnector.ts"
import { wahooConfig } from "./connectors/wahoo/WahooConfig.ts"
import { announceStop, failingWith, runProgram, sayOnConsole, settings } from "./runtime/EntryPoint.ts"
import { describeStartupFailure } from "./services/platform/StartupFailure.ts"
import { VERSION } from "./services/platform/version.ts"

/**
 * Entry of the Wahoo connector: `node dist/wahoo.js` runs it until stopped (SIGTERM or
 * SIGINT, exit code 0); `help` or `--help` prints its usage. Started as every Waymark program
 * is (EntryPoint): the configuration checked first (every problem at once, exit code 1), a
 * failed start said in one sentence (a busy port named with PORT, exit code 1), an unknown
 * argument a usage error (exit code 2).
 */

const WAHOO = "waymark-wahoo"

const wahoo = Command.make("wahoo", {}, () =>
  Effect.gen(function*() {
    const config = yield* settings(wahooConfig)
    yield* Layer.launch(WahooConnectorLive).pipe(
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

runProgram(commandLine(wahoo, [], process.argv, { name: "wahoo", invocation: "node dist/wahoo.js" }), { say: sayOnConsole(WAHOO) })
