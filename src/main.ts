import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, ConfigError, Effect, Layer, Option } from "effect"
import { DaemonLive } from "./Daemon.ts"
import { appConfig, configProblems } from "./services/platform/AppConfig.ts"
import { envFilePath, loadEnvFile } from "./services/platform/EnvFile.ts"
import { acquireStorageLock } from "./services/platform/StorageLock.ts"

/**
 * Starts the daemon: settings come from the environment, then from ./.env for what the
 * environment leaves unset; they are checked first (every problem at once, exit code 1).
 * One daemon per storage folder: a second one exits before it opens anything.
 */
loadEnvFile(envFilePath())
const validated = Effect.runSync(Effect.either(appConfig))
if (validated._tag === "Left") {
  const problems = ConfigError.isConfigError(validated.left) ? configProblems(validated.left) : [String(validated.left)]
  process.stderr.write(`waymark: invalid configuration (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n`)
  for (const problem of problems) process.stderr.write(`  - ${problem}\n`)
  process.exit(1)
}
const config = validated.right
const lock = acquireStorageLock(config.storageDir)
if (lock._tag === "Held") {
  process.stderr.write(
    `waymark: another Waymark daemon (pid ${lock.holder.pid}${lock.holder.startedAt ? `, started ${lock.holder.startedAt}` : ""}) already uses the storage folder ${config.storageDir}: stop it, or set STORAGE_DIR to another folder (lock file ${lock.file}).\n`
  )
  process.exit(1)
}
if (Option.isNone(config.apiKey)) {
  process.stderr.write("waymark: SERVICE_API_KEY is not set: the API answers 401 until it is (npm run cli -- app:setup writes one into .env)\n")
}
Layer.launch(DaemonLive).pipe(
  Effect.tapErrorCause((cause) => Effect.logFatal("waymark stopped", Cause.pretty(cause))),
  Effect.ensuring(Effect.sync(lock.release)),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
