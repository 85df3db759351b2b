import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { inChannel } from "../services/platform/Logs.ts"
import { ReadConnection } from "../services/platform/ReadConnection.ts"
import { TrainingRecompute } from "../services/training/TrainingRecompute.ts"
import { supervise } from "../services/platform/supervise.ts"

/**
 * Keeps the training analysis current in the background (TrainingRecompute): at start (the
 * activities stored before the analysis existed, a recompute cut short by a stop), when a set of
 * thresholds changes (woken at once), and whenever loads were left to recompute by another
 * change (an edit of an activity's sport, a reprocess, even by another process: seen within a
 * second, the read connection's look at what is pending costing microseconds). The `daemon` log
 * says how many activities each run recomputed.
 */

const POLL = Duration.seconds(1)
const ANY_PENDING = `SELECT 1 WHERE EXISTS (SELECT 1 FROM training_pending)
  OR EXISTS (SELECT 1 FROM activity_training INDEXED BY activity_training_stale WHERE stale IS NOT NULL)`

const count = (n: number, what: string) => `${n.toLocaleString("en-US")} ${n === 1 ? what : `${what.replace(/y$/, "ie")}s`}`

export const TrainingUpkeepLive = Layer.scopedDiscard(Effect.gen(function*() {
  const recompute = yield* TrainingRecompute
  const db = yield* ReadConnection

  const pass = Effect.gen(function*() {
    const { analysed, recomputed, millis } = yield* recompute.run()
    const took = Duration.format(Duration.millis(millis))
    if (analysed > 0) yield* Effect.logInfo(`training analysis computed from the stored streams of ${count(analysed, "activity")} (${took})`).pipe(inChannel("daemon"))
    if (recomputed > 0) yield* Effect.logInfo(`training load recomputed for ${count(recomputed, "activity")} (${took})`).pipe(inChannel("daemon"))
  })

  const loop = Effect.gen(function*() {
    yield* pass
    for (;;) {
      const woken = yield* Effect.timeoutOption(recompute.woken, POLL)
      if (Option.isSome(woken) || db.rows(ANY_PENDING, []).length > 0) yield* pass
    }
  })
  yield* supervise("TrainingRecompute", loop)
}))
