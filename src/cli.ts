import { commands, rootCommand } from "./runtime/Commands.ts"
import { runCommandLine } from "./runtime/CommandLine.ts"
import { envFilePath, loadEnvFile } from "./services/platform/EnvFile.ts"

/** Command-line entry: `npm run cli -- <command>`; settings as for the daemon (the environment, then ./.env). */
loadEnvFile(envFilePath())
runCommandLine(rootCommand, commands, process.argv)
