import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { SqlClient } from "@effect/sql"
import { Duration, Effect, type Layer } from "effect"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { configuredSecrets } from "./RequestLog.ts"
import type { ServedRoutes } from "./RouteTable.ts"
import { ImportQueue } from "../services/import/ImportQueue.ts"
import { ParseWorker } from "../services/import/ParseWorker.ts"
import { WatchDirectory } from "../services/import/WatchDirectory.ts"
import { AppConfig } from "../services/platform/AppConfig.ts"
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

interface CheckResult {
  readonly ok: boolean
  readonly error?: string
}

const noStore = { "cache-control": "no-store" }

/** Writes and removes a dot-file (ignored by the watch folder) in each folder. */
const writable = (dirs: ReadonlyArray<string>) =>
  Effect.forEach(dirs, (dir) =>
    Effect.tryPromise(async () => {
      const probe = path.join(dir, `.healthz-${randomUUID()}`)
      await fs.writeFile(probe, "ok")
      await fs.rm(probe, { force: true })
    }).pipe(Effect.mapError(() => new Error(`the ${path.basename(dir)} folder does not take a file`))), { concurrency: "unbounded", discard: true })

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

const HEALTHZ_PATH = "/healthz"
const STATUS_PATH = "/status"

const HealthHttpLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
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

    const checks = Effect.all({
      database: check(sql`SELECT count(*) AS n FROM sqlite_master`),
      storage: check(writable([path.dirname(paths.databaseFile), paths.logsDir, paths.imagesDir, paths.originalsDir])),
      watchFolder: check(Effect.suspend(() => {
        // what the watcher found wrong (unmounted, replaced, taken) though the folder may take a file
        const problem = watch.problem()
        return problem === null ? writable([paths.watchDir, paths.uploadsDir]) : Effect.fail(new Error(problem))
      })),
      parseWorker: check(Effect.filterOrFail(parseWorker.alive, (up) => up, () => new Error("the parse worker thread is not running")))
    }, { concurrency: "unbounded" })

    yield* router.get(
      HEALTHZ_PATH,
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

    yield* router.get(STATUS_PATH, Effect.succeed(HttpServerResponse.unsafeJson({ status: "ok" }, { headers: noStore })))
  })
)

export const HealthRoutes: ServedRoutes<never, Layer.Layer.Context<typeof HealthHttpLive>> = {
  routes: [{ method: "GET", path: HEALTHZ_PATH }, { method: "GET", path: STATUS_PATH }],
  live: HealthHttpLive
}
