import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as LogLevel from "effect/LogLevel"
import * as Scheduler from "effect/Scheduler"
import * as Stream from "effect/Stream"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { formatOf } from "../services/import/files/ActivityFileName.ts"
import type { StoredStatus } from "../services/import/FileImportRepo.ts"
import { type Handled, ImportProgress } from "../services/import/ImportProgress.ts"
import { ImportQueue } from "../services/import/ImportQueue.ts"
import type { ImportOutcome } from "../services/import/ImportOutcome.ts"
import { ImportRetryPolicy } from "../services/import/ImportRetryPolicy.ts"
import { ImportService, type PreparedEntry } from "../services/import/ImportService.ts"
import { isStorageFull } from "../services/import/isStorageFull.ts"
import type { OriginalNotKept } from "../services/import/KeptOriginals.ts"
import { ParseWorker } from "../services/import/ParseWorker.ts"
import { WatchDirectory } from "../services/import/WatchDirectory.ts"
import { AppConfig } from "../services/platform/AppConfig.ts"
import { inChannel } from "../services/platform/Logs.ts"
import { recordImport } from "../services/platform/Metrics.ts"
import { annotateOutcome, type ImportSpan, startImportSpan } from "./ImportSpan.ts"
import { supervise } from "../services/platform/supervise.ts"

/**
 * Imports queued files in queue order, one commit at a time, while the parse workers already
 * parse the next files: a file's first stage (read, hash, parse) runs ahead on every parse
 * worker, and the commits follow in queue order. A failing file never stops the others: a file whose import stops on an unexpected
 * error goes back to the end of the queue after a short pause and, once ImportRetryPolicy's
 * attempts are spent, ends as `failed` with a reference that the `errors` log repeats with the
 * stack trace. A full disk is not the file's fault: it stays queued and is tried again until
 * there is room. A file whose original cannot be copied into storage stays in the watch folder
 * and is tried again later. Whatever is tried again, or looked at again, settles first.
 */
export const ImportWorkerLive = Layer.scopedDiscard(Effect.gen(function*() {
  const queue = yield* ImportQueue
  const imports = yield* ImportService
  const watchDir = yield* WatchDirectory
  const scope = yield* Effect.scope
  const settleTime = (yield* AppConfig).watchSettle
  // files prepared ahead of the commits: a large file at the head of the queue (a triathlon
  // parses for half a second) must not leave the other workers idle behind it; what waits read
  // but not yet parsed is bounded in bytes (ImportReader)
  const preparedAhead = 4 * (yield* ParseWorker).size

  yield* imports.recoverAtStart()

  /** Names taken from the queue and not yet done: released if the loop stops, so that a rescan offers them again. */
  const inFlight = new Set<string>()
  const done = (filename: string, offeredLater = false) => Effect.suspend(() => (inFlight.delete(filename), queue.done(filename, offeredLater)))
  const releaseAll = Effect.suspend(() => Effect.forEach([...inFlight], (filename) => done(filename), { discard: true }))
  /** Unexpected failures so far of the files being retried (kept in memory: a restart starts over). */
  const failures = new Map<string, number>()

  const progress = (yield* ImportProgress).batch
  const logLines = (lines: ReadonlyArray<string>) =>
    Effect.forEach(lines, (line) => Effect.logInfo(line).pipe(inChannel("daemon")), { discard: true })

  const take = Effect.tap(queue.take, (filename) =>
    Effect.gen(function*() {
      inFlight.add(filename)
      yield* logLines(progress.taken(yield* Clock.currentTimeMillis, yield* queue.size))
    }))

  /**
   * The batch closes once nothing has waited for its grace time: its summary, unless files arrived
   * meanwhile. Forked from a commit's finalizer, the fiber would inherit its uninterruptibility:
   * a stop within the grace time would wait it out (5 s and more after every import).
   */
  const closeLater = Effect.sleep(Duration.millis(progress.graceMs)).pipe(
    Effect.zipRight(Effect.flatMap(Clock.currentTimeMillis, (now) => logLines(progress.close(now)))),
    Effect.interruptible,
    Effect.forkIn(scope),
    Effect.asVoid
  )

  /** The batch's progress; once nothing waits, its summary after the grace time. */
  const progressed = (what: Handled | null) =>
    Effect.gen(function*() {
      const waiting = yield* queue.size
      yield* logLines(progress.handledOne(yield* Clock.currentTimeMillis, what, waiting))
      if (waiting === 0) yield* closeLater
    })

  /**
   * The name is done (`offeredLater`: to be tried again later; it still waits, and the batch is
   * not over; otherwise a name without a row `status` leaves the batch as done): progress and,
   * once nothing waits, the batch's summary.
   */
  const handled = (filename: string, status: StoredStatus | null, offeredLater: boolean) =>
    done(filename, offeredLater).pipe(Effect.zipRight(progressed(status ?? (offeredLater ? null : "other"))))

  /** What the worker does with a failed row's file held in the folder in case it grows: looked at again later. */
  const holdIfAsked = (filename: string, outcome: ImportOutcome | null) =>
    outcome?.held === undefined
      ? Effect.void
      : Effect.sync(() => watchDir.hold(filename, outcome.held!.identity)).pipe(Effect.zipRight(offerLater(filename, outcome.held.after, false)))

  /** A file whose original could not be copied into storage stays in the folder, and is tried again later: answers when. */
  const keptBack = (e: OriginalNotKept): Effect.Effect<Duration.Duration> =>
    Effect.gen(function*() {
      const policy = yield* ImportRetryPolicy
      failures.delete(e.filename)
      yield* Effect.logWarning(
        `"${e.filename}" stays in the watch folder: its copy could not be kept in storage (${e.reason}). It is tried again in ${
          Duration.format(policy.storageFullDelay)
        }.`
      ).pipe(inChannel("daemon"))
      return policy.storageFullDelay
    })

  const prepare = (filename: string) =>
    Effect.gen(function*() {
      const startedAt = yield* Clock.currentTimeMillis
      const trace = yield* startImportSpan(filename, yield* queue.origin(filename))
      return { filename, exit: yield* Effect.exit(trace.within(imports.prepareEntry(filename))), trace, startedAt }
    })

  /** The outcome in the import metrics, timed from `startedAt` (taken off the queue) when known. */
  const count = (filename: string, status: StoredStatus, startedAt: number | null) =>
    Effect.map(Clock.currentTimeMillis, (now) =>
      recordImport(status, formatOf(filename) ?? "other", startedAt === null ? null : (now - startedAt) / 1000))

  const report = (filename: string, outcome: ImportOutcome | null, parseMillis: number | null, startedAt: number | null) =>
    outcome === null
      ? Effect.void
      : count(filename, outcome.status, startedAt).pipe(Effect.zipRight(Effect.logWithLevel(
        // a file that could not be imported is something to look at: a warning, not news
        outcome.status === "failed" ? LogLevel.Warning : LogLevel.Info,
        `imported "${filename}": ${outcome.status}${outcome.errorMessage ? ` (${outcome.errorMessage})` : ""}`
      ).pipe(
        Effect.annotateLogs({
          fileImportId: outcome.fileImportId,
          activityIds: outcome.activityIds.join(","),
          ...(parseMillis !== null ? { parseMs: parseMillis } : {})
        }),
        inChannel("daemon"),
        Effect.zipRight(annotateOutcome(outcome))
      )))

  /**
   * Hands the file back to the watch folder after `delay`, to be offered once it has held still
   * for the settle time (it may be being written again); the fiber lives with the layer. A file
   * to be tried again (`waits`) counts as waiting until then, unless it leaves the folder
   * meanwhile: then it is no longer waited for (it would never be offered).
   */
  const offerLater = (filename: string, delay: Duration.Duration, waits: boolean) =>
    Effect.sleep(delay).pipe(
      Effect.zipRight(watchDir.settleAgain(filename)),
      Effect.zipRight(waits ? waitedForUntilOffered(filename) : Effect.void),
      Effect.forkIn(scope),
      Effect.asVoid
    )

  /** Looks every settle time whether `filename`, waiting to be offered again, is still in the folder, until it is offered. */
  const waitedForUntilOffered = (filename: string): Effect.Effect<void> =>
    Effect.gen(function*() {
      const full = path.join(watchDir.watchDir, filename)
      while (yield* queue.waitsLater(filename)) {
        if (!fs.existsSync(full)) {
          yield* queue.forget(filename)
          return yield* progressed("other")
        }
        yield* Effect.sleep(settleTime)
      }
    })

  /**
   * Handles a file whose import stopped on an unexpected error; returns when to offer it again,
   * if ever (`ended`: the status of the row it ends with, once its attempts are spent).
   */
  const onUnexpected = (filename: string, cause: Cause.Cause<unknown>, ended: (status: StoredStatus) => void): Effect.Effect<Duration.Duration | null> =>
    Effect.gen(function*() {
      const policy = yield* ImportRetryPolicy
      if (isStorageFull(cause)) {
        yield* Effect.logWarning(
          `"${filename}" could not be stored: the disk is full. It stays queued and is tried again in ${Duration.format(policy.storageFullDelay)}.`
        ).pipe(inChannel("daemon"))
        return policy.storageFullDelay
      }
      const attempt = (failures.get(filename) ?? 0) + 1
      failures.set(filename, attempt)
      if (attempt < policy.attempts) {
        const delay = policy.backoff(attempt)
        yield* Effect.logWarning(
          `import of "${filename}" stopped unexpectedly (attempt ${attempt} of ${policy.attempts}); tried again in ${Duration.format(delay)}`,
          cause
        ).pipe(inChannel("daemon"))
        return delay
      }
      // the same 8-hex reference as the HTTP 500s: the message shown names it, the errors log
      // holds the stack trace under it
      const reference = randomUUID().replaceAll("-", "").slice(0, 8)
      yield* Effect.logError(`${reference} - import of "${filename}" failed ${attempt} times`).pipe(
        Effect.annotateLogs({ reference, filename }),
        Effect.annotateLogs("stack", Cause.pretty(cause, { renderErrorCause: true })),
        inChannel("errors")
      )
      const abandoned = yield* Effect.either(imports.abandon(filename, `"${filename}" could not be stored (${attempt} attempts); reference ${reference}.`))
      if (Either.isLeft(abandoned)) return yield* keptBack(abandoned.left)
      const outcome = abandoned.right
      if (outcome !== null) ended(outcome.status)
      failures.delete(filename)
      yield* report(filename, outcome, null, null)
      return null
    }).pipe(
      Effect.catchAllCause((again) =>
        Effect.logError(`import of "${filename}" could not be recorded as failed; it stays in the watch folder for the next rescan`, again).pipe(
          inChannel("daemon"),
          Effect.as(null)
        )
      )
    )

  const commit = ({ exit, filename, startedAt, trace }: {
    readonly filename: string
    readonly exit: Exit.Exit<PreparedEntry, OriginalNotKept>
    readonly trace: ImportSpan
    readonly startedAt: number
  }) => {
    let status: StoredStatus | null = null
    let retried = false
    return Effect.gen(function*() {
      const entry = yield* exit
      const outcome: ImportOutcome | null = entry._tag === "Handled" ? entry.outcome : yield* imports.commit(entry.prepared)
      failures.delete(filename)
      status = outcome?.status ?? null
      yield* report(filename, outcome, entry._tag === "Prepared" ? entry.prepared.parseMillis : null, startedAt)
      // a young file that failed as cut short stays in the folder a while, in case it was still being written
      yield* holdIfAsked(filename, outcome)
      return null
    }).pipe(
      Effect.catchTag("OriginalNotKept", keptBack),
      Effect.catchAllCause((cause) => onUnexpected(filename, cause, (ended) => void (status = ended))),
      Effect.tap((retryAfter) => void (retried = retryAfter !== null)),
      // offered again only once handled, so that the queue takes the name back
      Effect.ensuring(Effect.suspend(() => handled(filename, status, retried))),
      Effect.flatMap((retryAfter) => (retryAfter === null ? Effect.void : offerLater(filename, retryAfter, true))),
      trace.within,
      Effect.onExit(trace.end)
    )
  }

  yield* supervise(
    "ImportWorker",
    Stream.repeatEffect(take).pipe(
      Stream.mapEffect(prepare, { concurrency: preparedAhead }),
      Stream.runForEach(commit),
      Effect.ensuring(releaseAll),
      Effect.withScheduler(IMPORT_SCHEDULER),
      Effect.withMaxOpsBeforeYield(IMPORT_OPS_BEFORE_YIELD)
    )
  )
}))

/**
 * The import's fibers give way to the event loop's I/O between their steps: the default
 * scheduler runs ready fibers from microtask to microtask for up to 2,048 turns before it lets
 * a request in, and during a bulk import the prepares and commits of the files ahead are always
 * ready, which held `GET /status` for a hundred milliseconds and more. Here each batch of fiber
 * steps runs in its own macrotask (setImmediate, after the I/O the loop has collected).
 */
const IMPORT_SCHEDULER = Scheduler.makeBatched((runBatch) => setImmediate(runBatch))
const IMPORT_OPS_BEFORE_YIELD = 256
