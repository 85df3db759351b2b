import { Command } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Console, Effect } from "effect"
import { externalCommands } from "./connectors/strava/ExternalCommands.ts"
import { setupCommand } from "./cli/SetupCommand.ts"
import { generateApiKey } from "./services/platform/ApiKey.ts"
import { envFilePath, loadEnvFile } from "./services/platform/EnvFile.ts"
import { VERSION } from "./version.ts"

/** Command-line entry: `npm run cli -- <command>`. */

const apiKeyGenerate = Command.make("app:api-key:generate", {}, () =>
  Console.log(generateApiKey())
).pipe(Command.withDescription("Print a fresh API key (wmk_ + 64 hex characters) to put in SERVICE_API_KEY"))

export const rootCommand = Command.make("waymark").pipe(
  Command.withSubcommands([setupCommand, apiKeyGenerate, ...externalCommands])
)

// the commands read the same settings as the daemon: the environment, then ./.env
loadEnvFile(envFilePath())

const cli = Command.run(rootCommand, { name: "waymark", version: `v${VERSION}` })

cli(process.argv).pipe(Effect.provide(NodeContext.layer), NodeRuntime.runMain({ disablePrettyLogger: true }))
