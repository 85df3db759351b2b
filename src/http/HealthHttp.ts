import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Duration, Effect } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { configuredSecrets } from "./RequestLog.ts"
import { ImportQueue } from "../services/import/ImportQueue.ts"
import { ParseWorker } from "../services/import/ParseWorker.ts"
import { WatchDirectory } from "../services/import/WatchDirectory.ts"
import { AppConfig } from "../services/platform/AppConfig.ts"
import { ReadConnection } from "../services/platform/ReadConnection.ts"
import { StoragePaths } from "../services/platform/StoragePaths.ts"
import { type FiberReport, reasonOf, Supervisor } from "../services/platform/Supervisor.ts"

/**
 * The probes an orchestrator calls without the API key:
 * - `GET /status`: liveness, 200 while the process serves requests, nothing else looked at;
 * - `GET /healthz`: 200 when the daemon can do its job, 503 otherwise, with each check (the
 *   database answers, the storage and watch folders take a file, the watch folder is the one
 *   watched (not unmounted, nor taken by another daemon), the parse worker is up) and
 *   the number of files waiting in the import queue, and every supervised loop with its
 *   state. Nothing secret: no path, no setting, and the
 *   configured secrets are blanked out of error messages.
 */

const CHECK_TIMEOUT = Duration.seconds(2)

/**
 * How long one evaluation of the checks answers every probe: a thousand probes a second make
 * one evaluation a second, and probes that arrive while one runs wait for it rather than start
 * their own.
 */
const CHECKS_FRESH_FOR = Duration.seconds(1)

interface CheckResult {
  readonly ok: boolean
  readonly error?: string
}

const noStore = { "cache-control": "no-store" }

/** The one probe file of a folder: a dot-file (ignored by the watch folder), always the same name. */
const PROBE_FILE = ".healthz-probe"

/**
 * Whether each folder takes a file: a folder (not a file in its place), whose disk has room
 * (blocks and inodes), in which a small file can be written. The probe file is removed whatever
 * failed (a write that fails after its file was created, on a full disk), and has the same name
 * every time: no probe, nor a thousand, leaves anything behind.
 */
const writable = (dirs: ReadonlyArray<string>) =>
  Effect.forEach(dirs, (dir) =>
    Effect.tryPromise({
      try: async () => {
        if (!(await fs.stat(dir)).isDirectory()) throw new Error("it is not a folder")
        const room = await fs.statfs(dir)
        if (room.bavail <= 0 || (room.files > 0 && room.ffree <= 0)) throw new Error("its disk is full")
        const probe = path.join(dir, PROBE_FILE)
        try {
          await fs.writeFile(probe, "ok")
        } finally {
          await fs.rm(probe, { force: true }).catch(() => undefined)
        }
      },
      catch: (e) => new Error(`the ${path.basename(dir)} folder does not take a file${e instanceof Error && /folder|disk/.test(e.message) ? `: ${e.message}` : ""}`)
    }), { concurrency: "unbounded", discard: true })

const fiberView = (fiber: FiberReport, redact: (text: string) => string) => ({
  state: fiber.state,
  since: new Date(fiber.since).toISOString(),
  restarts: fiber.restarts,
  consecutiveFailures: fiber.consecutiveFailures,
  failing: fiber.failing,
  ...(fiber.backoffMillis !== null ? { backoffSeconds: fiber.backoffMillis / 1000 } : {}),
  ...(fiber.lastError !== null ? { lastError: redact(fiber.lastError) } : {}),
  ...(fiber.lastErrorAt !== null ? { lastErrorAt: new Date(fiber.lastErrorAt).toISOString() } : {})
})

export const HealthHttpLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const db = yield* ReadConnection
    const paths = yield* StoragePaths
    const parseWorker = yield* ParseWorker
    const supervisor = yield* Supervisor
    const config = yield* AppConfig
    const queue = yield* ImportQueue
    const watch = yield* WatchDirectory

    const secrets = configuredSecrets(config).filter((value) => value.length >= 4)
    const redact = (text: string) =>
      secrets.reduce((out, secret) => out.split(secret).join("[redacted]"), text).replace(/wmk_[a-f0-9]{64}/g, "[redacted]")

    const check = (run: Effect.Effect<unknown, unknown>): Effect.Effect<CheckResult> =>
      run.pipe(
        Effect.timeoutFail({ duration: CHECK_TIMEOUT, onTimeout: () => new Error(`no answer within ${Duration.format(CHECK_TIMEOUT)}`) }),
        Effect.sandbox,
        Effect.match({
          onFailure: (cause): CheckResult => ({ ok: false, error: redact(reasonOf(cause)) }),
          onSuccess: (): CheckResult => ({ ok: true })
        })
      )

    const checks = yield* Effect.cachedWithTTL(Effect.all({
      // the read connection: a probe never waits behind an import's commit
      database: check(Effect.try(() => db.rows("SELECT count(*) FROM sqlite_master", []))),
      storage: check(writable([path.dirname(paths.databaseFile), paths.logsDir, paths.imagesDir, paths.originalsDir])),
      watchFolder: check(Effect.suspend(() => {
        // what the watcher found wrong (unmounted, replaced, taken) though the folder may take a file
        const problem = watch.problem()
        return problem === null ? writable([paths.watchDir, paths.uploadsDir]) : Effect.fail(new Error(problem))
      })),
      parseWorker: check(Effect.filterOrFail(parseWorker.alive, (up) => up, () => new Error("the parse worker thread is not running")))
    }, { concurrency: "unbounded" }), CHECKS_FRESH_FOR)

    yield* router.get(
      "/healthz",
      Effect.gen(function*() {
        const [results, fibers, queued] = yield* Effect.all([checks, supervisor.snapshot, queue.size], { concurrency: "unbounded" })
        const healthy = Object.values(results).every((r) => r.ok) && fibers.every((f) => !f.failing)
        return HttpServerResponse.unsafeJson({
          status: healthy ? "ok" : "failing",
          checks: results,
          importQueue: { queued },
          fibers: Object.fromEntries(fibers.map((f) => [f.name, fiberView(f, redact)]))
        }, { status: healthy ? 200 : 503, headers: noStore })
      })
    )

    yield* router.get("/status", Effect.succeed(HttpServerResponse.unsafeJson({ status: "ok" }, { headers: noStore })))
  })
)
