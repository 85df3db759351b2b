import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ParseWorker } from "../services/import/ParseWorker.ts"
import { ActivityReads } from "../services/activities/ActivityReads.ts"
import { ActivityRepo } from "../services/activities/ActivityRepo.ts"
import { ActivityRemoval } from "../services/activities/ActivityRemoval.ts"
import { ShareRequests } from "../http/ShareRequests.ts"
import { WrongKeys } from "../http/WrongKeys.ts"
import { ApiKey } from "../services/platform/ApiKey.ts"
import { AppConfig } from "../services/platform/AppConfig.ts"
import { DatabaseLive } from "../services/platform/Database.ts"
import { ReadConnection } from "../services/platform/ReadConnection.ts"
import { FileImportReads } from "../services/import/FileImportReads.ts"
import { FileImportRepo } from "../services/import/FileImportRepo.ts"
import { GearRepo } from "../services/activities/GearRepo.ts"
import { GearComponents } from "../services/gear/GearComponents.ts"
import { ImageStore } from "../services/activities/ImageStore.ts"
import { ExportMetadata } from "../services/import/archives/ExportMetadata.ts"
import { ImportProgress } from "../services/import/ImportProgress.ts"
import { ImportQueue } from "../services/import/ImportQueue.ts"
import { ActivityReprocess } from "../services/import/ActivityReprocess.ts"
import { ImportService } from "../services/import/ImportService.ts"
import { KeptOriginals } from "../services/import/KeptOriginals.ts"
import { ReadingMarks } from "../services/import/ReadingMarks.ts"
import { UnpackedEntries } from "../services/import/archives/UnpackedEntries.ts"
import { LogsLive } from "../services/platform/Logs.ts"
import { StoragePaths } from "../services/platform/StoragePaths.ts"
import { Supervisor } from "../services/platform/Supervisor.ts"
import { WatchDirectory } from "../services/import/WatchDirectory.ts"
import { WeightRepo } from "../services/activities/WeightRepo.ts"
import { ThresholdsRepo } from "../services/training/ThresholdsRepo.ts"
import { TrainingRecompute } from "../services/training/TrainingRecompute.ts"
import { TrainingStore } from "../services/training/TrainingStore.ts"
import { CardRenderer } from "../services/sharing/CardRenderer.ts"
import { PrivacyZones } from "../services/sharing/PrivacyZones.ts"
import { SharedActivity } from "../services/sharing/SharedActivity.ts"
import { ShareLinks } from "../services/sharing/ShareLinks.ts"
import { SegmentStore } from "../services/segments/SegmentStore.ts"

/**
 * The services every program over the storage folder shares, composed once: configuration,
 * storage and database, reads, repositories and the import. The daemon runs its supervised
 * tree on them; the command line (reprocess, the Strava commands) opens them for one command.
 */

export const FoundationLive = StoragePaths.Default.pipe(Layer.provideMerge(AppConfig.Default))

const StorageLive = ReadConnection.Default.pipe(Layer.provideMerge(DatabaseLive), Layer.provideMerge(FoundationLive))

const ReadsLive = Layer.merge(ActivityReads.Default, FileImportReads.Default).pipe(Layer.provideMerge(StorageLive))

// the training analysis' and the segments' writers, which the activities' repository writes through
const TrainingLive = ThresholdsRepo.Default.pipe(
  Layer.provideMerge(TrainingRecompute.Default),
  Layer.provideMerge(Layer.merge(TrainingStore.Default, SegmentStore.Default)),
  Layer.provideMerge(StorageLive)
)

// share links, and what they show of an activity under the privacy zones
const SharingLive = SharedActivity.Default.pipe(
  Layer.provideMerge(Layer.mergeAll(PrivacyZones.Default, ShareLinks.Default, CardRenderer.Default, ShareRequests.Default))
)

const RepositoriesLive = Layer.mergeAll(
  ActivityRepo.Default,
  FileImportRepo.Default,
  GearRepo.Default,
  GearComponents.Default,
  WeightRepo.Default,
  ApiKey.DefaultWithoutDependencies,
  WrongKeys.Default,
  ImageStore.DefaultWithoutDependencies,
  WatchDirectory.DefaultWithoutDependencies,
  ReadingMarks.Default,
  UnpackedEntries.Default,
  ParseWorker.Default,
  // the queue, and the progress of the batch it feeds (which counts what waits in it)
  ImportProgress.Default.pipe(Layer.provideMerge(ImportQueue.Default)),
  ExportMetadata.Default,
  Supervisor.Default,
  SharingLive
).pipe(Layer.provideMerge(ReadsLive), Layer.provideMerge(TrainingLive))

export const ServicesLive = Layer.mergeAll(ImportService.Default, ActivityRemoval.Default, ActivityReprocess.Default).pipe(
  Layer.provideMerge(KeptOriginals.Default),
  Layer.provideMerge(RepositoriesLive)
)

/** The daemon's logging: stdout at LOG_LEVEL as LOG_FORMAT says, and the channel files under the storage folder. */
export const LoggingLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const paths = yield* StoragePaths
    return LogsLive({ logsDir: paths.logsDir, format: config.logFormat, level: config.logLevel })
  })
).pipe(Layer.provide(FoundationLive))
