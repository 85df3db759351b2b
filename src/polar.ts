import { Command } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Effect, Exit } from "effect"
import { polarCommand } from "./connectors/polar/PolarCommands.ts"
import { VERSION } from "./version.ts"

/**
 * Entry of the Polar connector: `node dist/polar.js [login | sync-once [--dry-run] | status |
 * webhook register|show|delete]`; without a subcommand it runs until stopped (SIGTERM).
 */

const cli = Command.run(polarCommand, { name: "polar", version: `v${VERSION}` })

cli(process.argv).pipe(
  Effect.catchTag("CommandFailed", (e) =>
    Effect.sync(() => {
      process.stderr.write(`${e.message}\n`)
      process.exitCode = 1
    })),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({
    disablePrettyLogger: true,
    disableErrorReporting: false,
    // the HTTP client may keep idle connections: the process ends when its work has
    teardown: (exit, onExit) => {
      const failed = Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause)
      const code = failed ? 1 : typeof process.exitCode === "number" ? process.exitCode : 0
      onExit(code)
      process.exit(code)
    }
  })
)
