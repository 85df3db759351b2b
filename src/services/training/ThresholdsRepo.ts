import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { inChannel } from "../platform/Logs.ts"
import type { ThresholdSet } from "./TrainingFigures.ts"
import { THRESHOLD_COLUMNS, thresholdRow, thresholdSetOf } from "./TrainingRows.ts"
import { TrainingRecompute } from "./TrainingRecompute.ts"

/**
 * The athlete's dated thresholds: a set is in force from its date until the next set's (the same
 * date replaces it). Saving or deleting a set leaves the days it governs to the background
 * recompute, in the same transaction, and wakes it: the answer never waits for the loads.
 */
export class ThresholdsRepo extends Effect.Service<ThresholdsRepo>()("services/training/ThresholdsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const recompute = yield* TrainingRecompute

    const list = Effect.fn("ThresholdsRepo.list")(function*() {
      const rows = yield* sql`SELECT ${sql.literal(THRESHOLD_COLUMNS)} FROM athlete_thresholds ORDER BY "on" DESC`.values
      return rows.map(thresholdSetOf)
    }, Effect.orDie)

    /**
     * Leaves the days the set of `on` governs (up to the next set's date) to the recompute: one
     * row, whatever the number of activities; the number of them.
     */
    const markGoverned = (on: string) =>
      Effect.gen(function*() {
        const next = (yield* sql`SELECT MIN("on") FROM athlete_thresholds WHERE "on" > ${on}`.values)[0]?.[0]
        const to = typeof next === "string" ? next : null
        yield* sql`INSERT INTO training_pending ${sql.insert({ from_day: on, to_day: to })}`
        const [count] = to === null
          ? yield* sql`SELECT COUNT(*) FROM activity_training WHERE day >= ${on}`.values
          : yield* sql`SELECT COUNT(*) FROM activity_training WHERE day >= ${on} AND day < ${to}`.values
        return Number(count?.[0] ?? 0)
      })

    const changed = (what: string, marked: number) =>
      Effect.gen(function*() {
        yield* Effect.logInfo(`${what}: the training load of ${marked.toLocaleString("en-US")} ${marked === 1 ? "activity is" : "activities are"} being recomputed`).pipe(inChannel("daemon"))
        if (marked > 0) yield* recompute.wake
      })

    const save = Effect.fn("ThresholdsRepo.save")(function*(set: ThresholdSet) {
      const marked = yield* sql.withTransaction(Effect.gen(function*() {
        const row = thresholdRow(set)
        yield* sql`INSERT INTO athlete_thresholds ${sql.insert(row)}
          ON CONFLICT("on") DO UPDATE SET cycling_ftp = excluded.cycling_ftp, running_ftp = excluded.running_ftp,
            max_heart_rate = excluded.max_heart_rate, resting_heart_rate = excluded.resting_heart_rate,
            lactate_threshold_heart_rate = excluded.lactate_threshold_heart_rate`
        return yield* markGoverned(set.on)
      }))
      yield* changed(`thresholds from ${set.on} saved`, marked)
      return set
    }, Effect.orDie)

    /** Deletes the set of `on`; false when there was none. */
    const remove = Effect.fn("ThresholdsRepo.delete")(function*(on: string) {
      const marked = yield* sql.withTransaction(Effect.gen(function*() {
        const deleted = yield* sql`DELETE FROM athlete_thresholds WHERE "on" = ${on} RETURNING 1`.values
        return deleted.length === 0 ? null : yield* markGoverned(on)
      }))
      if (marked === null) return false
      yield* changed(`thresholds from ${on} deleted`, marked)
      return true
    }, Effect.orDie)

    return { list, save, remove } as const
  })
}) {}
