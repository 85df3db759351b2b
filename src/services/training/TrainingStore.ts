import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import type { EncodedActivityDraft } from "../../schema/ActivityDraft.ts"
import type { TrainingBasis } from "../../schema/TrainingBasis.ts"
import { type ActivitySummaryForTraining, type ThresholdSet, trainingFigures } from "./TrainingFigures.ts"
import { basisRow, histogramsRow, THRESHOLD_COLUMNS, thresholdSetOf } from "./TrainingRows.ts"

/**
 * Writes an activity's training analysis: its basis (with its histograms and power curve, each in
 * a table of its own) and its training load under
 * the thresholds in force on its local day. The caller owns the transaction (an import writes
 * it with the activity).
 */
export class TrainingStore extends Effect.Service<TrainingStore>()("services/training/TrainingStore", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** The set of thresholds in force on `day`, or null. */
    const thresholdsOn = (day: string) =>
      Effect.map(
        sql`SELECT ${sql.literal(THRESHOLD_COLUMNS)} FROM athlete_thresholds WHERE "on" <= ${day} ORDER BY "on" DESC LIMIT 1`.values,
        (rows): ThresholdSet | null => (rows[0] === undefined ? null : thresholdSetOf(rows[0]))
      )

    /** Replaces the activity's analysis with `basis`, its load computed under the thresholds of its day. */
    const write = Effect.fn("TrainingStore.write")(function*(id: string, basis: TrainingBasis, summary: ActivitySummaryForTraining & { readonly day: string }) {
      const set = yield* thresholdsOn(summary.day)
      const figures = trainingFigures(basis.power, summary, set)
      yield* sql`DELETE FROM activity_training WHERE activity_id = ${id}`
      yield* sql`DELETE FROM activity_power_curve WHERE activity_id = ${id}`
      yield* sql`DELETE FROM activity_histograms WHERE activity_id = ${id}`
      yield* sql`INSERT INTO activity_training ${sql.insert({
        activity_id: id,
        day: summary.day,
        ...basisRow(basis),
        training_load: figures.trainingLoad,
        training_load_source: figures.trainingLoadSource,
        stale: null
      })}`
      yield* sql`INSERT INTO activity_histograms ${sql.insert({ activity_id: id, ...histogramsRow(basis) })}`
      const curve = basis.power?.curve ?? []
      if (curve.length > 0) {
        yield* sql`INSERT INTO activity_power_curve ${sql.insert(curve.map(([duration, watts]) => ({ activity_id: id, duration, watts, sport_type: summary.sportType })))}`
      }
    }, Effect.orDie)

    /** The analysis of a draft just stored as activity `id`. */
    const insert = (id: string, draft: EncodedActivityDraft) =>
      write(id, draft.training, {
        sportType: draft.sportType,
        day: draft.startDateLocal.slice(0, 10),
        movingTimeInSeconds: draft.movingTimeInSeconds,
        averageHeartRate: draft.averageHeartRate,
        dateUnknown: draft.dateUnknown
      })

    return { write, insert } as const
  })
}) {}
