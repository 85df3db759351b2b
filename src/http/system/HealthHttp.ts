import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { lastEvaluation } from "./lastEvaluation.ts"
import { configuredSecrets } from "../RequestLog.ts"
import type { ServedRoutes } from "../RouteTable.ts"
import { ServedAnswers } from "../ServedAnswers.ts"
import { ImportQueue } from "../../services/import/ImportQueue.ts"
import { ParseWorker } from "../../services/import/ParseWorker.ts"
import { WatchDirectory } from "../../services/import/WatchDirectory.ts"
import { AppConfig } from "../../services/platform/AppConfig.ts"
import { ReadConnection } from "../../services/platform/ReadConnection.ts"
import { StoragePaths } from "../../services/platform/StoragePaths.ts"
import { type FiberReport, reasonOf, Supervisor } from "../../services/platform/Supervisor.ts"

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

/**
 * How long a check may take before it counts as failed (a disk that hangs, a dead network
 * mount). No probe waits for it (they are answered from the last evaluation): it only bounds how
 * long a hung check goes unreported, and leaves room for the few turns of an event loop busy
 * with a thousand connections that a folder's check needs (at 2 s, such a loop made a healthy
 * daemon answer 503).
 */
const CHECK_TIMEOUT = Duration.seconds(10)

/**
 * How long one evaluation of the checks answers every probe: a thousand probes a second make
 * one evaluation a second.
 */
const CHECKS_FRESH_FOR = Duration.seconds(1)

/**
 * How long a probe that found the last evaluation older than CHECKS_FRESH_FOR waits for the one
 * it starts: a quiet daemon evaluates in a few milliseconds, and the probe says what is true now.
 */
const CHECKS_WAITED_FOR = Duration.millis(20)

/**
 * How old an evaluation may be and still answer a probe whose own evaluation is late, while
 * that one goes on in the background. A probe never waits long for the checks (files written
 * through libuv's threads, behind a burst of uploads' writes and flushes, or an event loop
 * busy with a thousand connections: seconds, where an orchestrator gives a probe one), except
 * the first after a long silence: an orchestrator probing every 10 or 30 seconds of a busy
 * daemon is answered from the evaluation its previous probe started. Nothing is evaluated
 * while nobody probes (no file written every second on a disk that would rather sleep).
 */
const CHECKS_ANSWER_FOR = Duration.minutes(1)

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
 * every time: no probe, nor a thousand, leaves anything behind. The folders are tried in turn:
 * the first that does not take a file is the one named (the watch folder before its `.uploads`,
 * on the same full disk), whichever answers first.
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
    }), { discard: true })

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
    const db = yield* ReadConnection
    const paths = yield* StoragePaths
    const parseWorker = yield* ParseWorker
    const supervisor = yield* Supervisor
    const config = yield* AppConfig
    const queue = yield* ImportQueue
    const watch = yield* WatchDirectory
    const served = yield* ServedAnswers

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

    const checks = yield* lastEvaluation(Effect.all({
      // the read connection: a probe never waits behind an import's commit
      database: check(Effect.try(() => db.rows("SELECT count(*) FROM sqlite_master", []))),
      storage: check(writable([path.dirname(paths.databaseFile), paths.logsDir, paths.imagesDir, paths.originalsDir])),
      watchFolder: check(Effect.suspend(() => {
        // what the watcher found wrong (unmounted, replaced, taken) though the folder may take a file
        const problem = watch.problem()
        return problem === null ? writable([paths.watchDir, paths.uploadsDir]) : Effect.fail(new Error(problem))
      })),
      parseWorker: check(Effect.filterOrFail(parseWorker.alive, (up) => up, () => new Error("the parse worker thread is not running")))
    }, { concurrency: "unbounded" }), { freshFor: CHECKS_FRESH_FOR, waitFor: CHECKS_WAITED_FOR, answerFor: CHECKS_ANSWER_FOR })

    // both answered in front of the app (ServedAnswers): a probe waits behind no fiber of the app
    yield* served.get(
      router,
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

    yield* served.get(router, STATUS_PATH, Effect.succeed(HttpServerResponse.unsafeJson({ status: "ok" }, { headers: noStore })))
  })
)

export const HealthRoutes: ServedRoutes<never, Layer.Layer.Context<typeof HealthHttpLive>> = {
  routes: [{ method: "GET", path: HEALTHZ_PATH }, { method: "GET", path: STATUS_PATH }],
  live: HealthHttpLive
}
