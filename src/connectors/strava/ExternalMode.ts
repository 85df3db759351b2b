import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Layer } from "effect"
import { StravaClient } from "./StravaClient.ts"
import { StravaImport } from "./StravaImport.ts"
import { WebhookEventRepo } from "./WebhookEventRepo.ts"
import { ExternalImportLive } from "./ExternalImport.ts"
import { WebhookDrainLive } from "./WebhookDrain.ts"

export { WebhookRoutesLive } from "./WebhookRoutes.ts"

/** The Strava client over undici (STRAVA_BASE_URL from AppConfig). */
export const StravaClientLive = StravaClient.Default.pipe(Layer.provide(NodeHttpClient.layerUndici))

/**
 * The services of externalApi mode: StravaImport (with its lock and status) and the webhook
 * event store. Requires AppConfig, SqlClient, ActivityRepo, GearRepo, ImageStore.
 */
export const ExternalServicesLive = Layer.mergeAll(StravaImport.Default, WebhookEventRepo.Default).pipe(
  Layer.provideMerge(StravaClientLive)
)

/**
 * Both loops of externalApi mode (each does nothing in files mode / with webhooks off):
 * the scheduled full import and the webhook drain, sharing one StravaImport (one lock).
 */
export const ExternalModeLive = Layer.mergeAll(ExternalImportLive, WebhookDrainLive).pipe(
  Layer.provide(ExternalServicesLive)
)
