import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import { AppConfig } from "../../services/platform/AppConfig.ts"
import { inChannel } from "../../services/platform/Logs.ts"
import { type ImportReport, StravaImport } from "./StravaImport.ts"
import { type WebhookEvent, StravaWebhookEventRepo } from "./StravaWebhookEventRepo.ts"
import { supervise } from "../../services/platform/supervise.ts"
import type { CycleResult } from "../kit/Poller.ts"
import { countStravaCycle, cycleResultOf } from "./StravaCycle.ts"
import { StravaFirstDrain } from "./StravaFirstDrain.ts"

/**
 * Processes the queued webhook events every WEBHOOKS_CHECK_INTERVAL_MINUTES (externalApi mode
 * with webhooks enabled only), under the import lock: deleted activities are deleted, created
 * and updated ones go through one partial import. While Strava access is blocked (401 /
 * inactive) or a run is in progress, the events stay queued. Events of a run cut short by a
 * rate limit are queued again. The first pass is made at start, before the scheduled import's
 * first run (StravaFirstDrain). Each pass counts as one of the connector's cycles in the metrics
 * (connector="strava"), unless the import held the lock.
 */

export type DrainResult =
  | { readonly _tag: "Idle" }
  | { readonly _tag: "Busy" }
  | { readonly _tag: "Blocked"; readonly message: string }
  | { readonly _tag: "Processed"; readonly deleted: number; readonly imported: ReadonlyArray<number>; readonly report: ImportReport | null }

const log = (message: string) => Effect.logInfo(message).pipe(inChannel("daemon"))

/** A pass as a connector cycle; none when an import held the lock (the pass did nothing). */
const drainResultOf = (result: DrainResult): CycleResult | undefined => {
  switch (result._tag) {
    case "Idle":
      return "completed"
    case "Busy":
      return undefined
    case "Blocked":
      return "failed"
    case "Processed":
      return result.report === null ? "completed" : cycleResultOf(result.report.outcome)
  }
}

/** One pass over the queued events (exported for tests and one-off runs). */
export const drainWebhookEvents = Effect.gen(function*() {
  const strava = yield* StravaImport
  const events = yield* StravaWebhookEventRepo
  const status = yield* strava.status
  if (status._tag === "Blocked") {
    return { _tag: "Blocked", message: status.message } satisfies DrainResult as DrainResult
  }
  const outcome = yield* strava.tryWithLock(Effect.gen(function*() {
    const batch = yield* events.grab()
    if (batch.length === 0) return { _tag: "Idle" } satisfies DrainResult as DrainResult
    const deletes = batch.filter((e) => e.aspectType === "delete").map((e) => e.objectId)
    const upserts = batch.filter((e) => e.aspectType !== "delete")
    yield* log(`processing ${batch.length} webhook events: ${upserts.length} created or updated, ${deletes.length} deleted`)
    const deleted = deletes.length > 0 ? yield* strava.deleteExternal(deletes) : 0
    const ids = upserts.map((e) => Number(e.objectId)).filter((n) => Number.isSafeInteger(n))
    const report = ids.length > 0 ? yield* strava.runUnlocked({ full: false, ids }) : null
    if (report !== null && (report.outcome === "rateLimited" || report.outcome === "blocked")) {
      yield* requeue(upserts)
    }
    return { _tag: "Processed", deleted, imported: ids, report } satisfies DrainResult as DrainResult
  }))
  return outcome._tag === "Some" ? outcome.value : ({ _tag: "Busy" } satisfies DrainResult as DrainResult)
}).pipe(Effect.withSpan("StravaWebhookDrain.drain"))

/** Puts events back in the queue (an event that arrived since keeps its place). */
const requeue = (batch: ReadonlyArray<WebhookEvent>) =>
  Effect.gen(function*() {
    const events = yield* StravaWebhookEventRepo
    let dropped = 0
    for (const event of batch) if ((yield* events.store(event)) === "full") dropped++
    yield* log(`${batch.length - dropped} webhook events queued again for the next check`)
    if (dropped > 0) {
      yield* Effect.logWarning(`${dropped} webhook events dropped: the queue is full; the next full import catches up`).pipe(inChannel("daemon"))
    }
  })

export const StravaWebhookDrainLive = Layer.scopedDiscard(Effect.gen(function*() {
  const config = yield* AppConfig
  if (config.importMode !== "externalApi" || !config.webhooksEnabled) return
  const lastBlocked = yield* Ref.make<string | null>(null)
  const firstDrain = yield* StravaFirstDrain
  const tick = drainWebhookEvents.pipe(
    countStravaCycle(drainResultOf),
    // the scheduled import starts its schedule once the first pass is over
    Effect.ensuring(firstDrain.passed),
    Effect.tap((result) =>
      Effect.gen(function*() {
        const previous = yield* Ref.getAndSet(lastBlocked, result._tag === "Blocked" ? result.message : null)
        if (result._tag === "Blocked" && previous !== result.message) {
          yield* Effect.logWarning(`webhook events stay queued: ${result.message}`).pipe(inChannel("daemon"))
        }
      })
    )
  )
  yield* log(`webhook events are processed every ${config.webhooksCheckIntervalMinutes} minutes`)
  yield* supervise(
    "StravaWebhookDrain",
    tick.pipe(Effect.repeat(Schedule.spaced(`${config.webhooksCheckIntervalMinutes} minutes`)))
  )
}))
