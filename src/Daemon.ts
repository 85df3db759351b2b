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
import { ImportWorkerLive } from "./fibers/ImportWorker.ts"
import { LogRetentionLive } from "./fibers/LogRetention.ts"
import { WatchFolderLive } from "./fibers/WatchFolder.ts"
import { makeHttpApp } from "./http/ApiLive.ts"
import { type BodyLimitRule, makeBodyLimit, uploadBodyRules } from "./http/BodyLimits.ts"
import { DirectAnswers, makeDirectSlot, makeNodeServer } from "./http/NodeListener.ts"
import { ParseWorker } from "./services/import/ParseWorker.ts"
import { ActivityReads } from "./services/activities/ActivityReads.ts"
import { ActivityRepo } from "./services/activities/ActivityRepo.ts"
import { ActivityRemoval } from "./services/activities/ActivityRemoval.ts"
import { ApiKey } from "./services/platform/ApiKey.ts"
import { AppConfig } from "./services/platform/AppConfig.ts"
import { DatabaseLive } from "./services/platform/Database.ts"
import { ReadConnection } from "./services/platform/ReadConnection.ts"
import { FileImportReads } from "./services/import/FileImportReads.ts"
import { FileImportRepo } from "./services/import/FileImportRepo.ts"
import { GearRepo } from "./services/activities/GearRepo.ts"
import { ImageStore } from "./services/activities/ImageStore.ts"
import { ExportMetadata } from "./services/import/ExportMetadata.ts"
import { ImportQueue } from "./services/import/ImportQueue.ts"
import { ImportService } from "./services/import/ImportService.ts"
import { inChannel, LogsLive } from "./services/platform/Logs.ts"
import { StoragePaths } from "./services/platform/StoragePaths.ts"
import { Supervisor } from "./services/platform/Supervisor.ts"
import { TelemetryLive } from "./services/platform/Telemetry.ts"
import { WatchDirectory } from "./services/import/WatchDirectory.ts"
import { WeightRepo } from "./services/activities/WeightRepo.ts"
import { VERSION } from "./version.ts"

/**
 * The daemon's one composition root: configuration, storage and database, the services,
 * and the supervised tree (HTTP server and background fibers), launched as one layer.
 */

const FoundationLive = StoragePaths.Default.pipe(Layer.provideMerge(AppConfig.Default))

const StorageLive = ReadConnection.Default.pipe(Layer.provideMerge(DatabaseLive), Layer.provideMerge(FoundationLive))

const ReadsLive = Layer.merge(ActivityReads.Default, FileImportReads.Default).pipe(Layer.provideMerge(StorageLive))

const RepositoriesLive = Layer.mergeAll(
  ActivityRepo.Default,
  FileImportRepo.Default,
  GearRepo.Default,
  WeightRepo.Default,
  ApiKey.DefaultWithoutDependencies,
  ImageStore.DefaultWithoutDependencies,
  WatchDirectory.DefaultWithoutDependencies,
  ParseWorker.Default,
  ImportQueue.Default,
  ExportMetadata.Default,
  Supervisor.Default
).pipe(Layer.provideMerge(ReadsLive))

export const ServicesLive = Layer.mergeAll(ImportService.Default, ActivityRemoval.Default).pipe(Layer.provideMerge(RepositoriesLive))

const LoggingLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const paths = yield* StoragePaths
    return LogsLive({ logsDir: paths.logsDir, format: config.logFormat, level: config.logLevel })
  })
).pipe(Layer.provide(FoundationLive))

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
    WatchFolderLive,
    ImportWorkerLive,
    StravaModeLive
  ).pipe(
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
        NodeHttpServer.layer(() => makeNodeServer(limitOf, slot.answer), address),
        Layer.succeed(DirectAnswers, options.direct === false ? { install: () => {} } : slot)
      )
    })
  )

const ListenerLive = Layer.unwrapEffect(Effect.map(AppConfig, (config) => makeListener({ port: config.port, host: config.host })))

export const DaemonLive = makeDaemon(ListenerLive)
