import * as Cron from "effect/Cron"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { AppConfig } from "../../services/platform/AppConfig.ts"
import { inChannel } from "../../services/platform/Logs.ts"
import { StravaImport } from "./StravaImport.ts"
import { supervise } from "../../services/platform/supervise.ts"
import { countStravaCycle, cycleResultOf } from "./StravaCycle.ts"
import { StravaFirstDrain } from "./StravaFirstDrain.ts"

/**
 * The scheduled full import of externalApi mode, on EXTERNAL_IMPORT_CRON (in TZ). It takes the
 * import lock, so it never overlaps with the webhook drain or another run; with webhooks on, its
 * schedule begins once the drain's first pass, made at start, is over (StravaFirstDrain). A run never fails
 * (rate limits and refused tokens end it with a logged reason), so the schedule keeps going.
 * Each run counts as one of the connector's cycles in the metrics (connector="strava").
 */
export const StravaScheduledImportLive = Layer.scopedDiscard(Effect.gen(function*() {
  const config = yield* AppConfig
  if (config.importMode !== "externalApi") return
  const strava = yield* StravaImport
  const firstDrain = yield* StravaFirstDrain
  const parsed = Cron.parse(config.externalImportCron, config.timeZone)
  if (Either.isLeft(parsed)) {
    return yield* Effect.logError(
      `EXTERNAL_IMPORT_CRON "${config.externalImportCron}" is not a valid cron expression: ${parsed.left.message}; no scheduled import`
    ).pipe(inChannel("daemon"))
  }
  yield* Effect.logInfo(`scheduled Strava import: "${config.externalImportCron}" (${config.timeZone})`).pipe(inChannel("daemon"))
  yield* supervise(
    "StravaScheduledImport",
    Effect.zipRight(
      config.webhooksEnabled ? firstDrain.awaitPassed : Effect.void,
      strava.run({ full: true }).pipe(
        countStravaCycle((report) => cycleResultOf(report.outcome)),
        Effect.schedule(Schedule.cron(parsed.right))
      )
    )
  )
}))
