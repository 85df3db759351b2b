import * as Etag from "@effect/platform/Etag"
import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpPlatform from "@effect/platform/HttpPlatform"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Path from "@effect/platform/Path"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer } from "effect"
import { StravaModeLive, StravaWebhookRoutesLive } from "./connectors/strava/StravaMode.ts"
import { HttpServerRegistrationLive } from "./fibers/HttpServerRegistration.ts"
import { WEBHOOK_MAX_BODY, WEBHOOK_PATH } from "./connectors/strava/StravaWebhookRoutes.ts"
import { GearMaintenanceLive } from "./fibers/GearMaintenance.ts"
import { ImportWorkerLive } from "./fibers/ImportWorker.ts"
import { LogRetentionLive } from "./fibers/LogRetention.ts"
import { TrainingUpkeepLive } from "./fibers/TrainingUpkeep.ts"
import { WatchFolderLive } from "./fibers/WatchFolder.ts"
import { makeHttpApp } from "./http/ApiLive.ts"
import { DaemonMetricsLive, observeRequest } from "./http/MetricsHttp.ts"
import { type BodyLimitRule, makeBodyLimit, uploadBodyRules } from "./http/BodyLimits.ts"
import { DirectAnswers, makeDirectSlot, makeNodeServer } from "./http/NodeListener.ts"
import { AppConfig } from "./services/platform/AppConfig.ts"
import { inChannel } from "./services/platform/Logs.ts"
import { LoggingLive, ServicesLive } from "./Layers.ts"
import { TelemetryLive } from "./services/platform/Telemetry.ts"
import { VERSION } from "./version.ts"

/**
 * The daemon's composition root: the shared services (src/Layers.ts) under the supervised
 * tree (HTTP server and background fibers), launched as one layer by the entry point.
 */

/** The whole daemon around a given HTTP server layer (a real listener, or a test one). */
export type ServerServices = HttpServer.HttpServer | HttpPlatform.HttpPlatform | Etag.Generator | FileSystem.FileSystem | Path.Path | DirectAnswers

/** Body limits of the routes that other features add to the HTTP app. */
const featureBodyLimits: ReadonlyArray<BodyLimitRule> = [
  { method: "POST", path: new RegExp(`^${WEBHOOK_PATH}/?$`), maxBytes: WEBHOOK_MAX_BODY, streamed: false }
]

export const makeDaemon = <E, R>(server: Layer.Layer<ServerServices, E, R>) =>
  Layer.mergeAll(
    // "started" only once the listener is up: a port in use never shows it
    Layer.effectDiscard(Effect.logInfo(`waymark v${VERSION} started`).pipe(inChannel("daemon"))).pipe(
      Layer.provideMerge(
        Layer.merge(makeHttpApp(StravaWebhookRoutesLive, featureBodyLimits), HttpServerRegistrationLive).pipe(HttpServer.withLogAddress, Layer.provide(server))
      )
    ),
    LogRetentionLive,
    GearMaintenanceLive,
    WatchFolderLive,
    ImportWorkerLive,
    TrainingUpkeepLive,
    StravaModeLive
  ).pipe(
    Layer.provide(DaemonMetricsLive),
    Layer.provide(TelemetryLive),
    Layer.provide(ServicesLive),
    Layer.provide(LoggingLive)
  )

/**
 * The Node listener at `address`: the body limits, and the direct routes in front of the app
 * (installed by the app; `direct: false` leaves every request to the app, for tests comparing both).
 */
export const makeListener = (address: { readonly port: number; readonly host?: string }, options: { readonly direct?: boolean } = {}) =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const config = yield* AppConfig
      const slot = makeDirectSlot()
      const limitOf = makeBodyLimit([...uploadBodyRules(config.postMaxSize), ...featureBodyLimits])
      return Layer.merge(
        NodeHttpServer.layer(() => makeNodeServer(limitOf, slot.answer, observeRequest), address),
        Layer.succeed(DirectAnswers, options.direct === false ? { install: () => {} } : slot)
      )
    })
  )

const ListenerLive = Layer.unwrapEffect(Effect.map(AppConfig, (config) => makeListener({ port: config.port, host: config.host })))

export const DaemonLive = makeDaemon(ListenerLive)
