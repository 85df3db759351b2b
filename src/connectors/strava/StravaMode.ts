import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Layer from "effect/Layer"
import { StravaClient } from "./StravaClient.ts"
import { StravaFirstDrain } from "./StravaFirstDrain.ts"
import { StravaImport } from "./StravaImport.ts"
import { StravaWebhookEventRepo } from "./StravaWebhookEventRepo.ts"
import { StravaScheduledImportLive } from "./StravaScheduledImport.ts"
import { StravaWebhookDrainLive } from "./StravaWebhookDrain.ts"

/** The Strava client over undici (STRAVA_BASE_URL from AppConfig). */
export const StravaClientLive = StravaClient.Default.pipe(Layer.provide(NodeHttpClient.layerUndici))

/**
 * The services of externalApi mode: StravaImport (with its lock and status) and the webhook
 * event store. Requires AppConfig, SqlClient, ActivityRepo, GearRepo, ImageStore.
 */
export const StravaServicesLive = Layer.mergeAll(StravaImport.Default, StravaWebhookEventRepo.Default).pipe(
  Layer.provideMerge(StravaClientLive)
)

/**
 * Both loops of externalApi mode (each does nothing in files mode / with webhooks off):
 * the scheduled full import and the webhook drain, sharing one StravaImport (one lock) and the
 * drain's first pass, which the scheduled import waits for.
 */
export const StravaModeLive = Layer.mergeAll(StravaScheduledImportLive, StravaWebhookDrainLive).pipe(
  Layer.provide(Layer.merge(StravaServicesLive, StravaFirstDrain.Default))
)
