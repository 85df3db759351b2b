import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as net from "node:net"
import * as path from "node:path"
import { LockHeartbeatLive } from "../fibers/LockHeartbeat.ts"
import { appConfig, type AppConfigShape } from "../services/platform/AppConfig.ts"
import { envFilePath, loadEnvFile } from "../services/platform/EnvFile.ts"
import { ProgramFailed } from "../services/platform/ProgramErrors.ts"
import { checkSettings } from "../services/platform/Settings.ts"
import { startupProblems } from "../services/platform/StartupChecks.ts"
import { describeStartupFailure, writeDaemonLog } from "../services/platform/StartupFailure.ts"
import { acquireStorageLock, acquireWatchLock, describeHolder, HeldLocks, type LockResult } from "../services/platform/StorageLock.ts"
import { VERSION } from "../services/platform/version.ts"
import { writeStdout } from "../services/platform/wholeLines.ts"
import { failingWith, runProgram, type Say } from "./EntryPoint.ts"
import { youngGenerationMayGrow } from "./leanHeap.ts"

/**
 * The daemon's start-up, one Effect: settings come from the environment, then from ./.env
 * for what the environment leaves unset; they are checked first (every problem at once, exit
 * code 1). One daemon per storage folder and per watch folder: each lock is a resource of the
 * program's scope, taken before anything is opened (a second daemon stops, naming the first)
 * and released when the daemon ends; their heartbeat runs beside the daemon. The daemon's own
 * code (a thousand modules, seconds on a busy machine) is loaded only once the settings, the
 * locks and the port are known to be good: a start that cannot run says why at once. A start that
 * fails says why in one sentence, on stderr and (once the storage folder is usable) in the
 * `daemon` log, and exits with code 1; a stop (SIGTERM) is the daemon log's last line.
 */

/** Where the daemon's own lines go once its settings are known; stderr alone before. */
interface Known {
  format: AppConfigShape["logFormat"]
  /** the `daemon` channel's folder (the StoragePaths layout), once the storage folder could be used */
  logsDir: string | undefined
}

const errorCode = (e: unknown) => (e as NodeJS.ErrnoException).code ?? (e as Error).message

/** The lock `acquire` takes, for the life of the scope; a failure in one sentence when it cannot be taken. */
const scopedLock = (
  acquire: () => LockResult,
  sentences: { readonly unusable: (code: string) => string; readonly held: (holder: string, file: string) => string },
  taken: () => void = () => {}
) =>
  Effect.acquireRelease(
    Effect.try({ try: acquire, catch: (e) => new ProgramFailed({ message: sentences.unusable(errorCode(e)) }) }).pipe(
      Effect.tap(taken),
      Effect.flatMap((lock) =>
        lock._tag === "Held" ? Effect.fail(new ProgramFailed({ message: sentences.held(describeHolder(lock.holder), lock.file) })) : Effect.succeed(lock)
      )
    ),
    (lock) => Effect.sync(lock.release)
  )

/**
 * Fails with the listener's own error (EADDRINUSE, EACCES) when `port` cannot be listened on
 * at `host`, before the daemon is loaded; the daemon's listener still says so if the port is
 * taken in between. Port 0 (any free port) is always free.
 */
const portIsFree = (port: number, host: string) =>
  port === 0 ? Effect.void : Effect.async<void, Error>((resume) => {
    const probe = net.createServer()
    probe.once("error", (e) => resume(Effect.fail(e)))
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resume(Effect.void)))
  })

const daemon = (known: Known) =>
  Effect.gen(function*() {
    yield* Effect.try({
      try: () => loadEnvFile(envFilePath()),
      catch: (e) => new ProgramFailed({ message: `${envFilePath()} cannot be read (${errorCode(e)}): fix its permissions or remove it.` })
    })
    const config = yield* checkSettings(appConfig, () => startupProblems(process.env))
    known.format = config.logFormat
    const storage = yield* scopedLock(
      () => acquireStorageLock(config.storageDir),
      {
        unusable: (code) =>
          `Cannot use the storage folder ${config.storageDir} (${code}): make it writable for this user, or set STORAGE_DIR to a writable folder.`,
        held: (holder, file) =>
          `another Waymark daemon (${holder}) already uses the storage folder ${config.storageDir}: stop it, or set STORAGE_DIR to another folder (lock file ${file}).`
      },
      // the storage folder exists: the daemon log can say why the start fails from here on
      () => void (known.logsDir = path.join(config.storageDir, "files", "logs"))
    )
    // one daemon per watch folder too: two would race for the same files
    const watch = yield* scopedLock(() => acquireWatchLock(config.watchDir), {
      unusable: (code) =>
        `Cannot use the watch folder ${config.watchDir} (${code}): make it writable for this user, or set WATCH_DIR to a writable folder.`,
      held: (holder, file) =>
        `another Waymark daemon (${holder}) already watches the folder ${config.watchDir}: stop it, or set WATCH_DIR to another folder (lock file ${file}).`
    })
    yield* portIsFree(config.port, config.host).pipe(failingWith((cause) => describeStartupFailure(cause, config)))
    if (Option.isNone(config.apiKey)) {
      process.stderr.write("waymark: SERVICE_API_KEY is not set: the API answers 401 until it is (npm run cli -- app:setup writes one into .env)\n")
    }
    const { DaemonLive } = yield* Effect.promise(() => import("./Daemon.ts"))
    const serving = DaemonLive.pipe(Layer.tap(() => Effect.sync(youngGenerationMayGrow)))
    yield* Layer.launch(Layer.merge(serving, LockHeartbeatLive)).pipe(
      Effect.provideService(HeldLocks, { storage, watch }),
      failingWith((cause) => describeStartupFailure(cause, config))
    )
  }).pipe(Effect.scoped)

/** Runs the daemon as the process (its exit code the process's). */
export const runDaemon = (): void => {
  const known: Known = { format: "text", logsDir: undefined }
  /** The daemon's own lines once its logger is gone: stdout as LOG_FORMAT says, stderr for a failure, and the `daemon` log. */
  const say: Say = (level, message, detail) => {
    if (level === "FATAL") process.stderr.write(`waymark: ${message}\n`)
    else {
      const timestamp = new Date().toISOString()
      writeStdout(
        (known.format === "json"
          ? JSON.stringify({ timestamp, level, channel: "daemon", message, annotations: {}, spans: {} })
          : `${timestamp} ${level.padEnd(5)} [daemon] ${message}`) + "\n"
      )
    }
    if (known.logsDir !== undefined) writeDaemonLog(known.logsDir, level, message, detail)
  }
  runProgram(daemon(known), { title: `waymark v${VERSION}`, say })
}
