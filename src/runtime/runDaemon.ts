import { Cause, Effect, Layer, Option } from "effect"
import * as path from "node:path"
import { DaemonLive } from "./Daemon.ts"
import { LockHeartbeatLive } from "../fibers/LockHeartbeat.ts"
import { youngGenerationMayGrow } from "./leanHeap.ts"
import { checkedSettings, EXIT_FAILURE, runProgram, type Say } from "./EntryPoint.ts"
import { appConfig } from "../services/platform/AppConfig.ts"
import { envFilePath, loadEnvFile } from "../services/platform/EnvFile.ts"
import { startupProblems } from "../services/platform/StartupChecks.ts"
import { describeStartupFailure, writeDaemonLog } from "../services/platform/StartupFailure.ts"
import { acquireStorageLock, acquireWatchLock, describeHolder, HeldLocks } from "../services/platform/StorageLock.ts"
import { VERSION } from "../services/platform/version.ts"

/**
 * Starts the daemon: settings come from the environment, then from ./.env for what the
 * environment leaves unset; they are checked first (every problem at once, exit code 1).
 * One daemon per storage folder and per watch folder: a second one exits before it opens
 * anything, naming the first; the locks' heartbeat runs beside the daemon. A start that fails says why in one sentence, on stderr and in the `daemon` log,
 * and exits with code 1; a stop (SIGTERM) is the daemon log's last line.
 */

const fail = (message: string, logsDir?: string): never => {
  process.stderr.write(`waymark: ${message}\n`)
  if (logsDir !== undefined) writeDaemonLog(logsDir, "FATAL", message)
  process.exit(EXIT_FAILURE)
}

try {
  loadEnvFile(envFilePath())
} catch (e) {
  fail(`${envFilePath()} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): fix its permissions or remove it.`)
}
const config = checkedSettings("waymark", appConfig, () => startupProblems(process.env))
// where the daemon channel is written (the StoragePaths layout), usable before any layer exists
const logsDir = path.join(config.storageDir, "files", "logs")

let lock: ReturnType<typeof acquireStorageLock>
try {
  lock = acquireStorageLock(config.storageDir)
} catch (e) {
  const error = e as NodeJS.ErrnoException
  lock = fail(`Cannot use the storage folder ${config.storageDir} (${error.code ?? error.message}): make it writable for this user, or set STORAGE_DIR to a writable folder.`)
}
if (lock._tag === "Held") {
  const { holder } = lock
  fail(
    `another Waymark daemon (${describeHolder(holder)}) already uses the storage folder ${config.storageDir}: stop it, or set STORAGE_DIR to another folder (lock file ${lock.file}).`,
    logsDir
  )
}
// one daemon per watch folder too: two would race for the same files
let watchLock: ReturnType<typeof acquireStorageLock>
try {
  watchLock = acquireWatchLock(config.watchDir)
} catch (e) {
  const error = e as NodeJS.ErrnoException
  watchLock = fail(`Cannot use the watch folder ${config.watchDir} (${error.code ?? error.message}): make it writable for this user, or set WATCH_DIR to a writable folder.`, logsDir)
}
if (watchLock._tag === "Held") {
  const { holder } = watchLock
  fail(
    `another Waymark daemon (${describeHolder(holder)}) already watches the folder ${config.watchDir}: stop it, or set WATCH_DIR to another folder (lock file ${watchLock.file}).`,
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

/** The daemon's own lines once its logger is gone: stdout as LOG_FORMAT says, stderr for a failure, and the `daemon` log. */
const say: Say = (level, message, detail) => {
  if (level === "FATAL") process.stderr.write(`waymark: ${message}\n`)
  else {
    const timestamp = new Date().toISOString()
    process.stdout.write(
      (config.logFormat === "json"
        ? JSON.stringify({ timestamp, level, channel: "daemon", message, annotations: {}, spans: {} })
        : `${timestamp} ${level.padEnd(5)} [daemon] ${message}`) + "\n"
    )
  }
  writeDaemonLog(logsDir, level, message, detail)
}

const held = Layer.succeed(HeldLocks, {
  storage: lock._tag === "Acquired" ? lock : null,
  watch: watchLock._tag === "Acquired" ? watchLock : null
})

const serving = DaemonLive.pipe(Layer.tap(() => Effect.sync(youngGenerationMayGrow)))

runProgram(Layer.launch(Layer.merge(serving, LockHeartbeatLive).pipe(Layer.provide(held))), {
  title: `waymark v${VERSION}`,
  say,
  describeFailure: (cause: Cause.Cause<unknown>) => describeStartupFailure(cause, config),
  finally: release
})
