import * as Etag from "@effect/platform/Etag"
import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpPlatform from "@effect/platform/HttpPlatform"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Path from "@effect/platform/Path"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, ConfigError, Effect, Layer, Option } from "effect"
import { createServer } from "node:http"
import { fileURLToPath } from "node:url"
import { ExternalModeLive } from "./fibers/ExternalMode.ts"
import { ImportWorkerLive } from "./fibers/ImportWorker.ts"
import { LogRetentionLive } from "./fibers/LogRetention.ts"
import { WatchFolderLive } from "./fibers/WatchFolder.ts"
import { HttpAppLive } from "./http/ApiLive.ts"
import { ActivityFiles } from "./services/ActivityFiles.ts"
import { ActivityRepo } from "./services/ActivityRepo.ts"
import { ApiKey } from "./services/ApiKey.ts"
import { AppConfig, appConfig, configProblems } from "./services/AppConfig.ts"
import { DatabaseLive } from "./services/Database.ts"
import { FileImportRepo } from "./services/FileImportRepo.ts"
import { GearRepo } from "./services/GearRepo.ts"
import { ImageStore } from "./services/ImageStore.ts"
import { ImportQueue } from "./services/ImportQueue.ts"
import { ImportService } from "./services/ImportService.ts"
import { inChannel, LogsLive } from "./services/Logs.ts"
import { StoragePaths } from "./services/StoragePaths.ts"
import { TelemetryLive } from "./services/Telemetry.ts"
import { WatchDirectory } from "./services/WatchDirectory.ts"
import { WeightRepo } from "./services/WeightRepo.ts"
import { VERSION } from "./version.ts"

/**
 * The daemon's one composition root: configuration, storage and database, the services,
 * and the supervised tree (HTTP server and background fibers), launched as one layer.
 */

const FoundationLive = StoragePaths.Default.pipe(Layer.provideMerge(AppConfig.Default))

const StorageLive = DatabaseLive.pipe(Layer.provideMerge(FoundationLive))

const RepositoriesLive = Layer.mergeAll(
  ActivityRepo.Default,
  FileImportRepo.Default,
  GearRepo.Default,
  WeightRepo.Default,
  ApiKey.DefaultWithoutDependencies,
  ImageStore.DefaultWithoutDependencies,
  WatchDirectory.DefaultWithoutDependencies,
  ActivityFiles.Default,
  ImportQueue.Default
).pipe(Layer.provideMerge(StorageLive))

export const ServicesLive = ImportService.Default.pipe(Layer.provideMerge(RepositoriesLive))

const LoggingLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const paths = yield* StoragePaths
    return LogsLive({ logsDir: paths.logsDir, format: config.logFormat, level: config.logLevel })
  })
).pipe(Layer.provide(FoundationLive))

/** The whole daemon around a given HTTP server layer (a real listener, or a test one). */
export type ServerServices = HttpServer.HttpServer | HttpPlatform.HttpPlatform | Etag.Generator | FileSystem.FileSystem | Path.Path

export const makeDaemon = <E, R>(server: Layer.Layer<ServerServices, E, R>) =>
  Layer.mergeAll(
    HttpAppLive.pipe(HttpServer.withLogAddress, Layer.provide(server)),
    LogRetentionLive,
    WatchFolderLive,
    ImportWorkerLive,
    ExternalModeLive,
    Layer.effectDiscard(Effect.logInfo(`waymark v${VERSION} started`).pipe(inChannel("daemon")))
  ).pipe(
    Layer.provide(TelemetryLive),
    Layer.provide(ServicesLive),
    Layer.provide(LoggingLive)
  )

const ListenerLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => NodeHttpServer.layer(createServer, { port: config.port, host: config.host }))
).pipe(Layer.provide(AppConfig.Default))

export const DaemonLive = makeDaemon(ListenerLive)

const isEntryPoint = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]

if (isEntryPoint) {
  const validated = Effect.runSync(Effect.either(appConfig))
  if (validated._tag === "Left") {
    const problems = ConfigError.isConfigError(validated.left) ? configProblems(validated.left) : [String(validated.left)]
    process.stderr.write(`waymark: invalid configuration (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n`)
    for (const problem of problems) process.stderr.write(`  - ${problem}\n`)
    process.exit(1)
  }
  if (Option.isNone(validated.right.apiKey)) {
    process.stderr.write("waymark: SERVICE_API_KEY is not set: the API answers 401 until it is (npm run cli -- app:api-key:generate)\n")
  }
  Layer.launch(DaemonLive).pipe(
    Effect.tapErrorCause((cause) => Effect.logFatal("waymark stopped", Cause.pretty(cause))),
    NodeRuntime.runMain({ disablePrettyLogger: true })
  )
}
