import { TileRoutes } from "../http/maps/TileRoutes.ts"
import type * as Etag from "@effect/platform/Etag"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as HttpPlatform from "@effect/platform/HttpPlatform"
import * as HttpServer from "@effect/platform/HttpServer"
import type * as Path from "@effect/platform/Path"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { StravaWebhookRoutes } from "../connectors/strava/StravaWebhookRoutes.ts"
import { GearMaintenanceLive } from "../fibers/GearMaintenance.ts"
import { HttpServerRegistrationLive } from "../fibers/HttpServerRegistration.ts"
import { ImportWorkerLive } from "../fibers/ImportWorker.ts"
import { LogRetentionLive } from "../fibers/LogRetention.ts"
import { TrainingUpkeepLive } from "../fibers/TrainingUpkeep.ts"
import { SegmentUpkeepLive } from "../fibers/SegmentUpkeep.ts"
import { WatchFolderLive } from "../fibers/ImportWatchFolder.ts"
import { makeHttpApp } from "../http/ApiLive.ts"
import { DashboardRoutes } from "../http/dashboard/DashboardRoutes.ts"
import { HealthRoutes } from "../http/system/HealthHttp.ts"
import { DaemonMetricsLive, makeRequestObserver, MetricsRoutes } from "../http/system/MetricsHttp.ts"
import { DirectAnswers, makeDirectSlot, makeNodeServer } from "../http/NodeListener.ts"
import { PublicRoutes } from "../http/PublicRoutes.ts"
import { RouteTable } from "../http/RouteTable.ts"
import { SharedPageRoutes } from "../http/sharing/SharedPageHttp.ts"
import { AppConfig } from "../services/platform/AppConfig.ts"
import { inChannel } from "../services/platform/Logs.ts"
import { TelemetryLive } from "../services/platform/Telemetry.ts"
import { VERSION } from "../services/platform/version.ts"
import { TidyAfterStopLive } from "../services/import/WatchDirectory.ts"
import { LoggingLive, ServicesLive } from "./Services.ts"

/**
 * The daemon's composition root: the shared services (Services.ts) under the supervised tree
 * (HTTP server and background fibers), launched as one layer by the start-up (runDaemon.ts).
 */

/** The whole daemon around a given HTTP server layer (a real listener, or a test one). */
export type ServerServices = HttpServer.HttpServer | HttpPlatform.HttpPlatform | Etag.Generator | FileSystem.FileSystem | Path.Path | DirectAnswers

/**
 * The routes served beside the API, each feature's paths registered in the route table: the
 * probes, the OpenAPI document and the image files, the map tiles, the dashboard, the metrics,
 * the pages of share links, and Strava's webhook (it answers 404 unless externalApi mode has webhooks on).
 */
const SERVED = [HealthRoutes, PublicRoutes, TileRoutes, DashboardRoutes, MetricsRoutes, SharedPageRoutes, StravaWebhookRoutes]

/**
 * Strava's loops and their client, loaded only in externalApi mode: in files mode both loops
 * do nothing, and the client's modules (an HTTP client among them) would be held for nothing.
 */
const StravaModeLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* AppConfig
    if (config.importMode !== "externalApi") return Layer.empty
    return (yield* Effect.promise(() => import("../connectors/strava/StravaMode.ts"))).StravaModeLive
  })
)

/** One route table for the listener and the app (a layer memoised within one build). */
const RouteTableLive = RouteTable.layer(SERVED.flatMap((served) => served.routes))

export const makeDaemon = <E, R>(server: Layer.Layer<ServerServices, E, R>) =>
  Layer.mergeAll(
    // "started" only once the listener is up: a port in use never shows it
    Layer.effectDiscard(Effect.logInfo(`waymark v${VERSION} started`).pipe(inChannel("daemon"))).pipe(
      Layer.provideMerge(
        Layer.merge(makeHttpApp(SERVED), HttpServerRegistrationLive).pipe(HttpServer.withLogAddress, Layer.provide(server))
      )
    ),
    LogRetentionLive,
    // each feature's background loops, one line each, over its layer (merged in Services.ts)
    GearMaintenanceLive,
    WatchFolderLive,
    ImportWorkerLive,
    TrainingUpkeepLive,
    SegmentUpkeepLive,
    StravaModeLive
  ).pipe(
    // before any part: what a stop left in the watch folder (unfinished uploads, half-unpacked zips, files half removed)
    Layer.provide(TidyAfterStopLive),
    Layer.provide(RouteTableLive),
    Layer.provide(DaemonMetricsLive),
    Layer.provide(TelemetryLive),
    Layer.provide(ServicesLive),
    Layer.provide(LoggingLive)
  )

/**
 * The Node listener at `address`: the route table's body limits and request metrics, and the
 * direct routes in front of the app (installed by the app; `direct: false` leaves every request
 * to the app, for tests comparing both).
 */
export const makeListener = (address: { readonly port: number; readonly host?: string }, options: { readonly direct?: boolean } = {}) =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const routes = yield* RouteTable
      const slot = makeDirectSlot()
      return Layer.merge(
        NodeHttpServer.layer(() => makeNodeServer(routes, slot.answer, makeRequestObserver(routes)), address),
        Layer.succeed(DirectAnswers, options.direct === false ? { install: () => {} } : slot)
      )
    })
  ).pipe(Layer.provide(RouteTableLive))

const ListenerLive = Layer.unwrapEffect(Effect.map(AppConfig, (config) => makeListener({ port: config.port, host: config.host })))

export const DaemonLive = makeDaemon(ListenerLive)
