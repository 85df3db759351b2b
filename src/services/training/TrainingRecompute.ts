import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type { TrainingBasis } from "../../schema/TrainingBasis.ts"
import { TRAINING_BASIS_VERSION } from "./TrainingBasis.ts"
import { scopedBasisWorker } from "./TrainingBasisWorker.ts"
import { type ThresholdSet, thresholdsOn, trainingFigures } from "./TrainingFigures.ts"
import { SUMMARY_COLUMNS, summaryOf, THRESHOLD_COLUMNS, thresholdSetOf } from "./TrainingRows.ts"
import { TrainingStore } from "./TrainingStore.ts"

/**
 * The background work that keeps every activity's training analysis current, never in a
 * request's path:
 * - the training loads of the days a change of thresholds left pending, and of each activity
 *   marked `stale` (its sport, day, moving time or average heart rate changed), are computed
 *   again from their stored basis, in batches, each written by one statement in a transaction
 *   of its own, the event loop served between them;
 * - an activity without an analysis of the current version (stored before the analysis
 *   existed, or by an older computation) is analysed from its stored streams, in a worker thread.
 * A stale row is cleared only if it is still marked as it was read: one marked again meanwhile is
 * computed again by the next pass; a change of thresholds during a pass leaves its own days
 * pending for the next one.
 */

/**
 * Activities whose load is computed again per transaction: about a millisecond of the event loop
 * each (10,000 loads take 110 ms of CPU in all), so that a request waits at most that long.
 */
const LOAD_BATCH = 100
/** Activities analysed from their streams per transaction (each decodes its streams). */
const BASIS_BATCH = 20

/** Lets the event loop serve what waits (requests, timers) before the next batch. */
const yieldToEventLoop = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

export class TrainingRecompute extends Effect.Service<TrainingRecompute>()("services/training/TrainingRecompute", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const store = yield* TrainingStore
    const signal = yield* Effect.acquireRelease(Queue.sliding<void>(1), Queue.shutdown)

    const allSets = Effect.map(
      sql`SELECT ${sql.literal(THRESHOLD_COLUMNS)} FROM athlete_thresholds ORDER BY "on"`.values,
      (rows) => rows.map(thresholdSetOf)
    )

    const summaryColumns = sql.literal(SUMMARY_COLUMNS.split(", ").map((c) => `a.${c}`).join(", "))

    /**
     * The loads of `rows` (activity id, mark, power seconds, NP, then the summary's columns),
     * computed under the thresholds in force on each one's day, as the VALUES rows of one UPDATE:
     * (id, day, load, source, mark).
     */
    const valuesOf = (rows: ReadonlyArray<ReadonlyArray<unknown>>, sets: ReadonlyArray<ThresholdSet>) =>
      rows.map(([id, mark, seconds, np, ...summaryValues]) => {
        const summary = summaryOf(summaryValues)
        const power = typeof seconds === "number" ? { seconds, normalizedPower: typeof np === "number" ? np : null } : null
        const figures = trainingFigures(power, summary, thresholdsOn(sets, summary.day))
        return sql`(${id as string}, ${summary.day}, ${figures.trainingLoad}, ${figures.trainingLoadSource}, ${mark as number | null})`
      })

    /**
     * Writes a batch's loads in one statement (hundreds of statements would hold the event loop
     * for as long): a stale row only if it is still marked as it was read, a row of a range
     * whatever its mark (a mark stays for the stale pass). The number written.
     */
    const writeLoads = (values: ReturnType<typeof valuesOf>, stale: boolean) =>
      Effect.map(
        stale
          ? sql`UPDATE activity_training SET day = v.column2, training_load = v.column3, training_load_source = v.column4, stale = NULL
              FROM (VALUES ${sql.csv(values)}) AS v WHERE activity_training.activity_id = v.column1 AND activity_training.stale = v.column5 RETURNING 1`.values
          : sql`UPDATE activity_training SET day = v.column2, training_load = v.column3, training_load_source = v.column4
              FROM (VALUES ${sql.csv(values)}) AS v WHERE activity_training.activity_id = v.column1 RETURNING 1`.values,
        (written) => written.length
      )

    /** Computes the load of every activity marked stale again; the number done. */
    const staleLoads = Effect.gen(function*() {
      let done = 0
      for (;;) {
        const rows = yield* sql`SELECT t.activity_id, t.stale, t.power_seconds, t.normalized_power, ${summaryColumns}
          FROM activity_training t INDEXED BY activity_training_stale CROSS JOIN activities a ON a.id = t.activity_id
          WHERE t.stale IS NOT NULL LIMIT ${LOAD_BATCH}`.values
        if (rows.length === 0) return done
        // read after the rows: a set changed since then left its days pending
        const written = yield* sql.withTransaction(Effect.flatMap(allSets, (sets) => writeLoads(valuesOf(rows, sets), true)))
        done += written
        // every row marked again meanwhile: the pass this change wakes takes them
        if (written === 0) return done
        yield* yieldToEventLoop
      }
    })

    /** Computes again the loads of the days each change of thresholds left pending, oldest change first; the number done. */
    const pendingLoads = Effect.gen(function*() {
      let done = 0
      for (;;) {
        const [pending] = yield* sql`SELECT id, from_day, to_day FROM training_pending ORDER BY id LIMIT 1`.values
        if (pending === undefined) return done
        const [id, from, to] = pending as [number, string, string | null]
        // walked in rowid order from a cursor: each batch a short transaction of its own
        let after = -1
        for (;;) {
          const rows = yield* sql`SELECT t.activity_id, NULL, t.power_seconds, t.normalized_power, ${summaryColumns}, t.rowid
            FROM activity_training t CROSS JOIN activities a ON a.id = t.activity_id
            WHERE t.rowid > ${after} AND t.day >= ${from} ${to === null ? sql.literal("") : sql`AND t.day < ${to}`}
            ORDER BY t.rowid LIMIT ${LOAD_BATCH}`.values
          if (rows.length === 0) break
          after = rows.at(-1)!.at(-1) as number
          done += yield* sql.withTransaction(Effect.flatMap(allSets, (sets) => writeLoads(valuesOf(rows.map((r) => r.slice(0, -1)), sets), false)))
          yield* yieldToEventLoop
        }
        yield* sql`DELETE FROM training_pending WHERE id = ${id}`
      }
    })

    /**
     * Analyses from their stored streams the activities without a current analysis, in a worker
     * thread started for the run; the number done.
     */
    const bases = Effect.scoped(Effect.gen(function*() {
      let done = 0
      let analyse: ((data: Uint8Array | null) => Effect.Effect<TrainingBasis>) | undefined
      for (;;) {
        const rows = yield* sql`SELECT a.id, ${summaryColumns}, s.data
          FROM activities a LEFT JOIN activity_training t ON t.activity_id = a.id LEFT JOIN activity_streams s ON s.activity_id = a.id
          WHERE t.activity_id IS NULL OR t.version < ${TRAINING_BASIS_VERSION} LIMIT ${BASIS_BATCH}`.values
        if (rows.length === 0) return done
        analyse ??= yield* scopedBasisWorker
        // the batch handed over at once: the thread works through it while the writes go on
        const analysed = yield* Effect.forEach(rows, (row) => analyse!(row.at(-1) as Uint8Array | null), { concurrency: "unbounded" })
        for (const [i, [id, ...rest]] of rows.entries()) {
          yield* sql.withTransaction(store.write(id as string, analysed[i]!, summaryOf(rest.slice(0, -1))))
          done++
          yield* yieldToEventLoop
        }
      }
    }))

    /** Everything pending: analyses missing, then loads stale; what was done and how long it took. */
    const run = Effect.fn("TrainingRecompute.run")(function*() {
      const started = Date.now()
      const analysed = yield* bases
      const recomputed = (yield* pendingLoads) + (yield* staleLoads)
      return { analysed, recomputed, millis: Date.now() - started }
    }, Effect.orDie)

    return {
      run,
      /** Asks the background loop to run now (a set of thresholds changed). */
      wake: Queue.offer(signal, undefined).pipe(Effect.asVoid),
      /** Waits for `wake`. */
      woken: Queue.take(signal)
    } as const
  })
}) {}
