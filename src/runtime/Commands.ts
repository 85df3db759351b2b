import { backupCommand } from "../cli/BackupCommand.ts"
import { logsCommand } from "../cli/LogsCommand.ts"
import { reprocessCommand } from "../cli/ReprocessCommand.ts"
import { Command } from "@effect/cli"
import { Console } from "effect"
import { stravaCommands } from "../connectors/strava/StravaCommands.ts"
import { generateApiKey } from "../services/platform/ApiKey.ts"
import { setupCommand } from "../cli/SetupCommand.ts"

/** Every command of `npm run cli -- <command>`. */

const apiKeyGenerate = Command.make("app:api-key:generate", {}, () => Console.log(generateApiKey())).pipe(
  Command.withDescription("Print a fresh API key (wmk_ + 64 hex characters) to put in SERVICE_API_KEY; writes nothing (app:setup writes .env)")
)

export const commands = [setupCommand, apiKeyGenerate, backupCommand, reprocessCommand, logsCommand, ...stravaCommands] as const

/** The names a user types after `npm run cli --`. */
export const commandNames: ReadonlyArray<string> = (commands as ReadonlyArray<Command.Command<any, any, any, any>>).flatMap((c) => [...Command.getNames(c)])

export const rootCommand = Command.make("waymark").pipe(Command.withSubcommands(commands))
