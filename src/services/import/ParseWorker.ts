import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { Worker } from "node:worker_threads"
import type { EncodedActivityDraft } from "../../schema/ActivityDraft.ts"
import type { FileFormat } from "../../schema/ParsedActivity.ts"
import type { SportType } from "../../schema/SportType.ts"
import { AppConfig } from "../platform/AppConfig.ts"
import { inChannel } from "../platform/Logs.ts"
import { ActivityFileError } from "./parsers/ActivityFileError.ts"
import { threadCpuMillis } from "./threadCpuTime.ts"
import type { ParseRequest, ParseResponse } from "./ParseWorkerThread.ts"

/**
 * How much processor time one file may take in the worker, the worker's heap, and how long a
 * worker that has parsed files may idle before it is replaced by a fresh one (its heap, grown
 * by the largest file it parsed, would otherwise stay resident while the daemon idles: hundreds
 * of MB after a bulk import). Read when a worker starts (heap, idle) and for each file (time),
 * so that tests can drive the real worker over them.
 *
 * The time is a budget of the parse thread's own processor time, `timeout` plus `timeoutPerMiB`
 * for each MiB of the file, never of the clock: on a machine whose cores are busy (the parse
 * thread yields to everything else, see ParseWorkerThread) a file takes longer by the clock
 * and exactly as much processor time, so the same file has the same outcome whatever the load.
 * The largest corpus file takes 0.4 s, a 72-hour FIT 1.5 s and a GPX of 420,000 points (58 MB)
 * 4 s of processor time; a 64 MiB file may take 42 s. Where the thread's time cannot be read
 * (not Linux), the budget is counted on the clock, tripled.
 */
export class ParseLimits extends Context.Reference<ParseLimits>()("services/import/ParseLimits", {
  defaultValue: (): {
    readonly timeout: Duration.Duration
    readonly timeoutPerMiB?: Duration.Duration
    readonly heapMb: number
    readonly recycleAfterIdle: Duration.Duration
  } => ({ timeout: Duration.seconds(10), timeoutPerMiB: Duration.millis(500), heapMb: 512, recycleAfterIdle: Duration.seconds(10) })
}) {}

/** The processor time a file of `bytes` may take: the base and a share per MiB. */
export const parseBudget = (limits: ParseLimits["Type"], bytes: number): Duration.Duration =>
  Duration.sum(limits.timeout, Duration.times(limits.timeoutPerMiB ?? Duration.zero, bytes / 1048576))

/** How often the parse thread's processor time is read while it parses. */
const BUDGET_CHECK_MS = 200

/**
 * A file may take this many times its budget by the clock before it is abandoned even though
 * its thread is within its processor time: a parse starved that long is stuck, not slow.
 */
const CLOCK_CEILING_FACTOR = 30

/**
 * Built (dist/, `npm start`), the worker runs its compiled entry directly; from source (tests,
 * tsx), a bootstrap loads the entry bundled into one module (ParseWorkerBootstrap.mjs).
 */
const fromSource = import.meta.url.endsWith(".ts")
const workerUrl = fromSource ? new URL("./ParseWorkerBootstrap.mjs", import.meta.url) : new URL("./ParseWorkerThread.js", import.meta.url)
const workerData = fromSource ? { entry: new URL("./ParseWorkerThread.ts", import.meta.url).href } : {}

interface Running {
  readonly worker: Worker
  /** resolves with the thread's system id once it started (null where it has none to read its time by) */
  readonly ready: Promise<number | null>
  /** set once the worker timed out, crashed or ran out of memory */
  lost: boolean
  /** when the worker last finished a file; null while it has parsed none */
  lastUsed: number | null
}

interface Slot {
  current: Running | null
  busy: boolean
  readonly turn: Effect.Semaphore
}

/**
 * The worker's young generation (three semi-spaces of 4 MB at most): a parse allocates its
 * records, samples and streams at a high rate, and in the daemon's minimal young generation
 * much of it was copied and promoted before it died. 8 MB semi-spaces made two workers import
 * the corpus about 10 % faster, with 10 % less CPU, than 1 MB ones; 4 MB ones keep most of that
 * (28 against 30.5 activities/s for a 5,000-activity export) and hold about 20 MB less at the
 * peak, where 8 MB ones left the daemon within 10 MB of its 400 MB bound.
 */
const YOUNG_GENERATION_MB = 12

const spawn = (heapMb: number): Running => {
  const worker = new Worker(workerUrl, {
    workerData,
    resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB }
  })
  worker.unref()
  const ready = new Promise<number | null>((resolve, reject) => {
    const onMessage = (m: unknown) => {
      if (typeof m === "object" && m !== null && "ready" in m) {
        worker.off("message", onMessage)
        const tid = (m as { tid?: unknown }).tid
        resolve(typeof tid === "number" ? tid : null)
      }
    }
    worker.on("message", onMessage)
    // on, not once: an idle worker's error must never go unheard
    worker.on("error", reject)
    worker.once("exit", (code) => reject(new Error(`parse worker exited with code ${code}`)))
  })
  ready.catch(() => undefined)
  return { worker, ready, lost: false, lastUsed: null }
}

/**
 * Turns the bytes of a FIT, TCX or GPX file into computed activities, in worker threads so
 * that the API stays responsive: IMPORT_PARSE_WORKERS of them (one per core by default), each
 * parsing one file at a time, so that a bulk import parses ahead on every core. A file that
 * takes too long or exhausts its worker's memory fails on its own; that worker is replaced and
 * the next file goes on.
 */
export class ParseWorker extends Effect.Service<ParseWorker>()("services/import/ParseWorker", {
  scoped: Effect.gen(function*() {
    const config = yield* AppConfig
    const size = config.importParseWorkers
    /** One slot per worker thread: the thread it runs (none until its first file) and its turn. */
    const slots = yield* Effect.forEach(Array.from({ length: size }), () =>
      Effect.map(Effect.makeSemaphore(1), (turn): Slot => ({ current: null, busy: false, turn })))
    // a file takes the first free slot, so that the first workers serve the files one by one
    // and the others start only when files come faster; the time limit counts only a file's own parse
    const free = yield* Effect.makeSemaphore(size)
    let nextId = 1

    yield* Effect.addFinalizer(() =>
      Effect.forEach(slots, (slot) => slot.current ? Effect.promise(() => slot.current!.worker.terminate()) : Effect.void, { discard: true })
    )

    // started with the first file, not with the daemon: an idle daemon (most of its life) does
    // not hold the workers' heaps and the parsers they load
    const worker = (slot: Slot) => Effect.gen(function*() {
      if (slot.current !== null) return slot.current
      const running = spawn((yield* ParseLimits).heapMb)
      slot.current = running
      return running
    })

    /** `use` with a free slot, held by this file alone; the slot is given back afterwards. */
    const withSlot = <A, E, R>(use: (slot: Slot) => Effect.Effect<A, E, R>) =>
      free.withPermits(1)(Effect.acquireUseRelease(
        Effect.sync(() => {
          const slot = slots.find((s) => !s.busy)!
          slot.busy = true
          return slot
        }),
        (slot) => slot.turn.withPermits(1)(use(slot)),
        (slot) => Effect.sync(() => (slot.busy = false))
      ))

    const tooLong = (filename: string, budget: Duration.Duration) =>
      `"${filename}" took more than ${Duration.format(Duration.millis(Math.ceil(Duration.toMillis(budget))))} of processor time to parse and was abandoned.`

    const discard = (slot: Slot, running: Running) =>
      Effect.gen(function*() {
        if (slot.current === running) slot.current = null
        yield* Effect.promise(() => running.worker.terminate().catch(() => 0))
      })

    /**
     * Sends the file and waits for the answer; the parse thread's processor time is read every
     * BUDGET_CHECK_MS, and past `budget` the answer is the failure saying so (the thread is
     * then lost, replaced by the caller).
     */
    const exchange = (running: Running, request: ParseRequest, tid: number | null, budget: Duration.Duration) =>
      Effect.gen(function*() {
        const answer = yield* Deferred.make<ReadonlyArray<EncodedActivityDraft>, ActivityFileError>()
        const overBudget = () => {
          running.lost = true
          Deferred.unsafeDone(answer, Effect.fail(new ActivityFileError({ message: tooLong(request.filename, budget) })))
        }
        const cpuAtStart = tid === null ? null : threadCpuMillis(tid)
        let watch: NodeJS.Timeout | undefined
        const onMessage = (m: ParseResponse) => {
          if (m.id !== request.id) return
          // the time is read once more at the answer: a parse over its budget fails even when
          // it ended between two readings, so the same file has the same outcome at any load
          const now = tid === null ? null : threadCpuMillis(tid)
          if (cpuAtStart !== null && now !== null && now - cpuAtStart > Duration.toMillis(budget)) return overBudget()
          Deferred.unsafeDone(answer, "drafts" in m ? Effect.succeed(m.drafts) : Effect.fail(new ActivityFileError({ message: m.error })))
        }
        const onError = (e: Error) => {
          running.lost = true
          const outOfMemory = (e as NodeJS.ErrnoException).code === "ERR_WORKER_OUT_OF_MEMORY"
          Deferred.unsafeDone(answer, Effect.fail(new ActivityFileError({
            message: outOfMemory
              ? `"${request.filename}" is too large or too complex to import (the parser ran out of memory).`
              : `"${request.filename}" could not be imported: the parser failed (${e.message}).`
          })))
        }
        const onExit = () => {
          running.lost = true
          Deferred.unsafeDone(answer, Effect.fail(new ActivityFileError({ message: `"${request.filename}" could not be imported: the parser stopped.` })))
        }
        // by the clock: the budget itself where the thread's time cannot be read, else a ceiling far above it
        const clockLimit = Duration.times(budget, cpuAtStart === null ? 3 : CLOCK_CEILING_FACTOR)
        return yield* Effect.acquireUseRelease(
          Effect.sync(() => {
            running.worker.on("message", onMessage)
            running.worker.on("error", onError)
            running.worker.on("exit", onExit)
            running.worker.ref()
            if (cpuAtStart !== null) {
              watch = setInterval(() => {
                const now = threadCpuMillis(tid!)
                if (now !== null && now - cpuAtStart > Duration.toMillis(budget)) overBudget()
              }, BUDGET_CHECK_MS)
            }
            // the bytes move to the worker (the caller keeps no use for them) unless they are a
            // view into a larger buffer, which is then copied
            const own = request.bytes.byteOffset === 0 && request.bytes.byteLength === request.bytes.buffer.byteLength
            running.worker.postMessage(request, own ? [request.bytes.buffer as ArrayBuffer] : [])
          }),
          () =>
            Deferred.await(answer).pipe(
              Effect.timeoutFail({
                duration: clockLimit,
                onTimeout: () => {
                  running.lost = true
                  return new ActivityFileError({ message: tooLong(request.filename, budget) })
                }
              })
            ),
          () =>
            Effect.sync(() => {
              clearInterval(watch)
              running.worker.off("message", onMessage)
              running.worker.off("error", onError)
              running.worker.off("exit", onExit)
              running.worker.unref()
            })
        )
      })

    /**
     * The computed activities of a file, their streams encoded; `sportType`, the sport the
     * athlete chose for it (a Strava export's, or one changed by hand), is its sport from the
     * start: of the file's one activity, or of the one starting nearest `sportAt` (epoch ms).
     * `interactive`: a person waits for it, it is parsed at the daemon's own priority where the
     * system allows it. The bytes are handed over to the worker: the caller must not use them
     * afterwards.
     */
    const parse = Effect.fn("ParseWorker.parse")(function*(
      bytes: Uint8Array,
      format: FileFormat,
      filename: string,
      sportType?: SportType,
      sportAt?: number,
      interactive = false
    ) {
      return yield* withSlot((slot) => parseAlone(slot, bytes, format, filename, sportType, sportAt, interactive))
    })

    /**
     * `parse` that never fails, with the time the worker spent on the file alone (not the wait
     * for the file before it): what an import logs and a slow file is judged by.
     */
    const parseTimed = Effect.fn("ParseWorker.parseTimed")(function*(bytes: Uint8Array, format: FileFormat, filename: string, sportType?: SportType) {
      const [duration, result] = yield* withSlot((slot) => Effect.timed(Effect.either(parseAlone(slot, bytes, format, filename, sportType))))
      return { result, millis: Math.round(Duration.toMillis(duration)) }
    })

    const parseAlone = (
      slot: Slot,
      bytes: Uint8Array,
      format: FileFormat,
      filename: string,
      sportType: SportType | undefined,
      sportAt?: number,
      interactive = false
    ) => Effect.gen(function*() {
      const limits = yield* ParseLimits
      const running = yield* worker(slot)
      const tid = yield* Effect.tryPromise({
        try: () => running.ready,
        catch: (e) => new ActivityFileError({ message: `"${filename}" could not be imported: the parser did not start (${String(e)}).` })
      }).pipe(Effect.tapError(() => discard(slot, running)))
      const request: ParseRequest = { id: nextId++, bytes, format, filename, fallbackTimeZone: config.timeZone, sportType, sportAt, interactive }
      return yield* exchange(running, request, tid, parseBudget(limits, bytes.byteLength)).pipe(
        // after a timeout, a crash or running out of memory the worker is not reused
        Effect.tapError((e) =>
          running.lost || running.worker.threadId === -1
            ? discard(slot, running).pipe(
              Effect.zipRight(Effect.logWarning(`parse worker replaced: ${e.message}`).pipe(inChannel("daemon")))
            )
            : Effect.void
        ),
        Effect.onInterrupt(() => discard(slot, running)),
        Effect.ensuring(Effect.sync(() => {
          running.lastUsed = Date.now()
        }))
      )
    })

    /**
     * Whether the worker threads are up: each one started (or, after a crash, its fresh
     * replacement) has started and not exited. A worker that cannot start is discarded so that
     * the next call tries again.
     */
    const alive = Effect.forEach(slots, (slot) =>
      Effect.gen(function*() {
        // none yet: one starts with the slot's first file, and asking must not start it
        if (slot.current === null) return true
        const running = yield* worker(slot)
        const started = yield* Effect.promise(() => running.ready.then(() => true, () => false))
        if (!started) yield* discard(slot, running)
        return started && !running.lost && running.worker.threadId !== -1
      })).pipe(Effect.map((up) => up.every(Boolean)))

    // a worker idle after work is replaced between two files (its turn is held): the first one
    // by a fresh worker started at once, so that the next file does not wait for it, the others
    // by none until files come faster again
    const recycleAfterIdle = Duration.toMillis((yield* ParseLimits).recycleAfterIdle)
    const recycleIfIdle = (slot: Slot, index: number) => slot.turn.withPermits(1)(Effect.gen(function*() {
      const running = slot.current
      if (running === null || running.lastUsed === null) return
      if (Date.now() - running.lastUsed < recycleAfterIdle) return
      yield* discard(slot, running)
      if (index === 0) yield* worker(slot)
      yield* Effect.logDebug("parse worker recycled after idle").pipe(inChannel("daemon"))
    }))
    yield* Effect.forEach(slots, recycleIfIdle, { discard: true }).pipe(
      Effect.repeat(Schedule.spaced(Duration.millis(Math.min(2000, recycleAfterIdle)))),
      Effect.forkScoped
    )

    return { parse, parseTimed, alive, size } as const
  })
}) {}
