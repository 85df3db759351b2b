import { Command } from "@effect/cli"
import { runCommandLine } from "./cli/CliRuntime.ts"
import { polarCommand, polarSubcommands } from "./connectors/polar/PolarCommands.ts"

/**
 * Entry of the Polar connector: `node dist/polar.js [login | sync-once [--dry-run] | status |
 * webhook register|show|delete | help]`; without a subcommand it runs until stopped (SIGTERM).
 * Exit codes as every Waymark command line: 0 done, 1 failed, 2 called wrongly.
 */
runCommandLine(polarCommand as Command.Command<any, any, any, any>, polarSubcommands, process.argv, {
  name: "polar",
  invocation: "node dist/polar.js"
})
