import { Command } from "@effect/cli"
import * as Console from "effect/Console"
import * as Layer from "effect/Layer"
import { backupCommand } from "../cli/BackupCommand.ts"
import { logsCommand } from "../cli/LogsCommand.ts"
import { makeReprocessCommand } from "../cli/ReprocessCommand.ts"
import { setupCommand } from "../cli/SetupCommand.ts"
import { CliLoggingLive, makeStravaCommands } from "../connectors/strava/StravaCommands.ts"
import { StravaServicesLive } from "../connectors/strava/StravaMode.ts"
import { ActivityReprocess } from "../services/import/ActivityReprocess.ts"
import { generateApiKey } from "../services/platform/ApiKey.ts"
import { FoundationLive, ServicesLive } from "./Services.ts"

/**
 * Every command of `npm run cli -- <command>`, each with the layers it needs, built when it
 * runs: the storage paths for the backup and the logs, the shared services for a reprocess,
 * and for the Strava commands those with the Strava client and import, logged into the
 * channel files as the daemon logs.
 */

const apiKeyGenerate = Command.make("app:api-key:generate", {}, () => Console.log(generateApiKey())).pipe(
  Command.withDescription("Print a fresh API key (wmk_ + 64 hex characters) to put in SERVICE_API_KEY; writes nothing (app:setup writes .env)")
)

const ReprocessLive = ActivityReprocess.Default.pipe(Layer.provideMerge(ServicesLive))

const StravaCommandsLive = Layer.mergeAll(StravaServicesLive, CliLoggingLive).pipe(Layer.provideMerge(ServicesLive))

export const commands = [
  setupCommand,
  apiKeyGenerate,
  Command.provide(backupCommand, FoundationLive),
  makeReprocessCommand(ReprocessLive),
  Command.provide(logsCommand, FoundationLive),
  ...makeStravaCommands(StravaCommandsLive)
] as const

/** The names a user types after `npm run cli --`. */
export const commandNames: ReadonlyArray<string> = (commands as ReadonlyArray<Command.Command<any, any, any, any>>).flatMap((c) => [...Command.getNames(c)])

export const rootCommand = Command.make("waymark").pipe(Command.withSubcommands(commands))
