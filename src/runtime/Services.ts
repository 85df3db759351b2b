import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ShareRequests } from "../http/sharing/ShareRequests.ts"
import { WrongKeys } from "../http/WrongKeys.ts"
import { ActivitiesLive } from "../services/activities/ActivitiesLive.ts"
import { GearLive } from "../services/gear/GearLive.ts"
import { ImportLive } from "../services/import/ImportLive.ts"
import { ApiKey } from "../services/platform/ApiKey.ts"
import { AppConfig } from "../services/platform/AppConfig.ts"
import { DatabaseLive } from "../services/platform/Database.ts"
import { LogsLive } from "../services/platform/Logs.ts"
import { ReadConnection } from "../services/platform/ReadConnection.ts"
import { StoragePaths } from "../services/platform/StoragePaths.ts"
import { Supervisor } from "../services/platform/Supervisor.ts"
import { SegmentsLive } from "../services/segments/SegmentsLive.ts"
import { SharingLive } from "../services/sharing/SharingLive.ts"
import { StatsLive } from "../services/stats/StatsLive.ts"
import { TrainingLive } from "../services/training/TrainingLive.ts"
import { AthleteYearLive } from "../services/year/AthleteYearLive.ts"

/**
 * The services every program over the storage folder shares, composed once: configuration,
 * storage and database, and each feature's one layer (its repositories and services, built
 * over the storage; a service two features use is one instance, a layer being built once in a
 * composition). The daemon runs its supervised tree on them; the command line (reprocess, the
 * Strava commands) opens them for one command.
 */

export const FoundationLive = StoragePaths.Default.pipe(Layer.provideMerge(AppConfig.Default))

/** Configuration, storage paths, the database (migrated) and the read connection: what every feature's layer is built over. */
export const StorageLive = ReadConnection.Default.pipe(Layer.provideMerge(DatabaseLive), Layer.provideMerge(FoundationLive))

export const ServicesLive = Layer.mergeAll(
  ActivitiesLive,
  ImportLive,
  TrainingLive,
  SegmentsLive,
  GearLive,
  StatsLive,
  AthleteYearLive,
  SharingLive,
  // the key, the supervisor of the background fibers, the per-client counts of wrong keys and share-link requests
  Layer.mergeAll(ApiKey.DefaultWithoutDependencies, Supervisor.Default, WrongKeys.Default, ShareRequests.Default)
).pipe(Layer.provideMerge(StorageLive))

/** The daemon's logging: stdout at LOG_LEVEL as LOG_FORMAT says, and the channel files under the storage folder. */
export const LoggingLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const paths = yield* StoragePaths
    return LogsLive({ logsDir: paths.logsDir, format: config.logFormat, level: config.logLevel })
  })
).pipe(Layer.provide(FoundationLive))
