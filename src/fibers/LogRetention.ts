import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { inChannel, pruneLogs } from "../services/platform/Logs.ts"
import { StoragePaths } from "../services/platform/StoragePaths.ts"
import { supervise } from "../services/platform/supervise.ts"

/** Removes channel log files older than 5 days, at start and every hour. */
export const LogRetentionLive = Layer.scopedDiscard(Effect.gen(function*() {
  const paths = yield* StoragePaths
  const prune = Effect.gen(function*() {
    const removed = pruneLogs(paths.logsDir, new Date(yield* Effect.clockWith((c) => c.currentTimeMillis)))
    if (removed.length > 0) yield* Effect.logInfo(`removed old log files: ${removed.join(", ")}`).pipe(inChannel("daemon"))
  })
  yield* supervise("LogRetention", prune.pipe(Effect.repeat(Schedule.spaced("1 hour"))))
}))
