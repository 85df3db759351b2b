import { SqlClient } from "@effect/sql"
import { Effect, Queue } from "effect"
import type { ActivityStreams } from "../../schema/ActivityDraft.ts"
import { parseStream, type StoredKey, storedStreams } from "../activities/StreamsCodec.ts"
import { TRAINING_BASIS_VERSION, trainingBasisOf } from "./TrainingBasis.ts"
import { thresholdsOn, trainingFigures } from "./TrainingFigures.ts"
import { SUMMARY_COLUMNS, summaryOf, THRESHOLD_COLUMNS, thresholdSetOf } from "./TrainingRows.ts"
import { TrainingStore } from "./TrainingStore.ts"

/**
 * The background work that keeps every activity's training analysis current, never in a
 * request's path:
 * - the training load of each activity marked `stale` (a set of thresholds changed over its day,
 *   or its sport, day, moving time or average heart rate did) is computed again from its stored
 *   basis, in batches, each in a transaction of its own, the event loop served between them;
 * - an activity without an analysis of the current version (stored before the analysis
 *   existed, or by an older computation) is analysed from its stored streams.
 * A batch's row is written only if it is still marked as it was read: one marked again meanwhile
 * is computed again by the next batch, with the thresholds of then.
 */

/** Activities whose load is computed again per transaction. */
const LOAD_BATCH = 500
/** Activities analysed from their streams per transaction (each decodes its streams). */
const BASIS_BATCH = 20

/** The streams the basis reads. */
const BASIS_STREAMS: ReadonlyArray<StoredKey> = ["time", "watts", "heartrate", "distance", "altitude"]

/** Lets the event loop serve what waits (requests, timers) before the next batch. */
const yieldToEventLoop = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

/**
 * The streams of a stored blob that the basis reads, parsed (the others are left as text); none
 * when there are none, or when the blob is damaged (its streams answer an error of their own).
 */
export const basisStreams = (data: Uint8Array | null): ActivityStreams => {
  if (data === null) return { time: [] }
  try {
    const stored = storedStreams(data)
    const out: Record<string, unknown> = {}
    for (const key of BASIS_STREAMS) {
      const stream = stored.streams.get(key)
      if (stream !== undefined && stream.length === stored.samples) out[key] = parseStream(stream)
    }
    return { time: [], ...out } as ActivityStreams
  } catch {
    return { time: [] }
  }
}

export class TrainingRecompute extends Effect.Service<TrainingRecompute>()("services/training/TrainingRecompute", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const store = yield* TrainingStore
    const signal = yield* Effect.acquireRelease(Queue.sliding<void>(1), Queue.shutdown)

    const allSets = Effect.map(
      sql`SELECT ${sql.literal(THRESHOLD_COLUMNS)} FROM athlete_thresholds ORDER BY "on"`.values,
      (rows) => rows.map(thresholdSetOf)
    )

    /** Computes the load of every stale activity again; the number done. */
    const loads = Effect.gen(function*() {
      let done = 0
      for (;;) {
        const rows = yield* sql`SELECT t.activity_id, t.stale, t.power_seconds, t.normalized_power, ${sql.literal(SUMMARY_COLUMNS.split(", ").map((c) => `a.${c}`).join(", "))}
          FROM activity_training t INDEXED BY activity_training_stale CROSS JOIN activities a ON a.id = t.activity_id
          WHERE t.stale IS NOT NULL LIMIT ${LOAD_BATCH}`.values
        if (rows.length === 0) return done
        // read after the rows: a set changed since marked them again
        const sets = yield* allSets
        const written = yield* sql.withTransaction(Effect.forEach(rows, ([id, stale, seconds, np, ...summaryValues]) => {
          const summary = summaryOf(summaryValues)
          const power = typeof seconds === "number" ? { seconds, normalizedPower: typeof np === "number" ? np : null } : null
          const figures = trainingFigures(power, summary, thresholdsOn(sets, summary.day))
          return Effect.map(
            sql`UPDATE activity_training SET day = ${summary.day}, training_load = ${figures.trainingLoad},
              training_load_source = ${figures.trainingLoadSource}, stale = NULL WHERE activity_id = ${id as string} AND stale = ${stale as number}
              RETURNING 1`.values,
            (changed) => changed.length
          )
        }))
        const count = written.reduce((a, b) => a + b, 0)
        done += count
        // every row marked again meanwhile: the next pass (woken by that change) takes them
        if (count === 0) return done
        yield* yieldToEventLoop
      }
    })

    /** Analyses from their stored streams the activities without a current analysis; the number done. */
    const bases = Effect.gen(function*() {
      let done = 0
      for (;;) {
        const rows = yield* sql`SELECT a.id, ${sql.literal(SUMMARY_COLUMNS.split(", ").map((c) => `a.${c}`).join(", "))}, s.data
          FROM activities a LEFT JOIN activity_training t ON t.activity_id = a.id LEFT JOIN activity_streams s ON s.activity_id = a.id
          WHERE t.activity_id IS NULL OR t.version < ${TRAINING_BASIS_VERSION} LIMIT ${BASIS_BATCH}`.values
        if (rows.length === 0) return done
        for (const [id, ...rest] of rows) {
          const data = rest.pop() as Uint8Array | null
          const basis = trainingBasisOf(basisStreams(data))
          yield* sql.withTransaction(store.write(id as string, basis, summaryOf(rest)))
          done++
          yield* yieldToEventLoop
        }
      }
    })

    /** Everything pending: analyses missing, then loads stale; what was done and how long it took. */
    const run = Effect.fn("TrainingRecompute.run")(function*() {
      const started = Date.now()
      const analysed = yield* bases
      const recomputed = yield* loads
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
