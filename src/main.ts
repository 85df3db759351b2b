import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, ConfigError, Effect, Layer, Option } from "effect"
import { DaemonLive } from "./Daemon.ts"
import { appConfig, configProblems } from "./services/platform/AppConfig.ts"
import { envFilePath, loadEnvFile } from "./services/platform/EnvFile.ts"

/**
 * Starts the daemon: settings come from the environment, then from ./.env for what the
 * environment leaves unset; they are checked first (every problem at once, exit code 1).
 */
loadEnvFile(envFilePath())
const validated = Effect.runSync(Effect.either(appConfig))
if (validated._tag === "Left") {
  const problems = ConfigError.isConfigError(validated.left) ? configProblems(validated.left) : [String(validated.left)]
  process.stderr.write(`waymark: invalid configuration (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n`)
  for (const problem of problems) process.stderr.write(`  - ${problem}\n`)
  process.exit(1)
}
if (Option.isNone(validated.right.apiKey)) {
  process.stderr.write("waymark: SERVICE_API_KEY is not set: the API answers 401 until it is (npm run cli -- app:setup writes one into .env)\n")
}
Layer.launch(DaemonLive).pipe(
  Effect.tapErrorCause((cause) => Effect.logFatal("waymark stopped", Cause.pretty(cause))),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
