import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, ConfigError, Effect, Layer, Option } from "effect"
import * as path from "node:path"
import { DaemonLive } from "./Daemon.ts"
import { appConfig, configProblems } from "./services/platform/AppConfig.ts"
import { envFilePath, loadEnvFile } from "./services/platform/EnvFile.ts"
import { startupProblems } from "./services/platform/StartupChecks.ts"
import { describeStartupFailure, writeDaemonLog } from "./services/platform/StartupFailure.ts"
import { acquireStorageLock, WATCH_LOCK_FILE_NAME } from "./services/platform/StorageLock.ts"

/**
 * Starts the daemon: settings come from the environment, then from ./.env for what the
 * environment leaves unset; they are checked first (every problem at once, exit code 1).
 * One daemon per storage folder and per watch folder: a second one exits before it opens anything. A start that
 * fails says why in one sentence, on stderr and in the `daemon` log, and exits with code 1.
 */

const stop = (message: string, logsDir?: string, detail?: string): never => {
  process.stderr.write(`waymark: ${message}\n`)
  if (logsDir !== undefined) writeDaemonLog(logsDir, "FATAL", message, detail)
  process.exit(1)
}

try {
  loadEnvFile(envFilePath())
} catch (e) {
  stop(`${envFilePath()} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): fix its permissions or remove it.`)
}
const validated = Effect.runSync(Effect.either(appConfig))
const problems = [
  ...(validated._tag === "Left" ? (ConfigError.isConfigError(validated.left) ? configProblems(validated.left) : [String(validated.left)]) : []),
  ...startupProblems(process.env)
]
if (validated._tag === "Left" || problems.length > 0) {
  process.stderr.write(`waymark: invalid configuration (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n`)
  for (const problem of problems) process.stderr.write(`  - ${problem}\n`)
  process.exit(1)
}
const config = validated.right
// where the daemon channel is written (the StoragePaths layout), usable before any layer exists
const logsDir = path.join(config.storageDir, "files", "logs")

let lock: ReturnType<typeof acquireStorageLock>
try {
  lock = acquireStorageLock(config.storageDir)
} catch (e) {
  const error = e as NodeJS.ErrnoException
  lock = stop(`Cannot use the storage folder ${config.storageDir} (${error.code ?? error.message}): make it writable for this user, or set STORAGE_DIR to a writable folder.`)
}
if (lock._tag === "Held") {
  const { holder } = lock
  stop(
    `another Waymark daemon (pid ${holder.pid}${holder.startedAt ? `, started ${holder.startedAt}` : ""}) already uses the storage folder ${config.storageDir}: stop it, or set STORAGE_DIR to another folder (lock file ${lock.file}).`,
    logsDir
  )
}
// one daemon per watch folder too: two would race for the same files
let watchLock: ReturnType<typeof acquireStorageLock>
try {
  watchLock = acquireStorageLock(config.watchDir, WATCH_LOCK_FILE_NAME)
} catch (e) {
  const error = e as NodeJS.ErrnoException
  watchLock = stop(`Cannot use the watch folder ${config.watchDir} (${error.code ?? error.message}): make it writable for this user, or set WATCH_DIR to a writable folder.`, logsDir)
}
if (watchLock._tag === "Held") {
  const { holder } = watchLock
  stop(
    `another Waymark daemon (pid ${holder.pid}${holder.hostname ? ` on ${holder.hostname}` : ""}${holder.startedAt ? `, started ${holder.startedAt}` : ""}) already watches the folder ${config.watchDir}: stop it, or set WATCH_DIR to another folder (lock file ${watchLock.file}).`,
    logsDir
  )
}
const release = () => {
  if (lock._tag === "Acquired") lock.release()
  if (watchLock._tag === "Acquired") watchLock.release()
}

if (Option.isNone(config.apiKey)) {
  process.stderr.write("waymark: SERVICE_API_KEY is not set: the API answers 401 until it is (npm run cli -- app:setup writes one into .env)\n")
}

Layer.launch(DaemonLive).pipe(
  Effect.catchAllCause((cause) =>
    Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.sync(() => {
      const message = describeStartupFailure(cause, config)
      process.stderr.write(`waymark: ${message}\n`)
      writeDaemonLog(logsDir, "FATAL", message, Cause.pretty(cause, { renderErrorCause: true }))
    }).pipe(Effect.zipRight(Effect.failCause(cause)))
  ),
  Effect.ensuring(Effect.sync(release)),
  NodeRuntime.runMain({ disablePrettyLogger: true, disableErrorReporting: true })
)
