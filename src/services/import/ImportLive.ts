import * as Layer from "effect/Layer"
import { ActivitiesLive } from "../activities/ActivitiesLive.ts"
import { ActivityRemoval } from "../activities/ActivityRemoval.ts"
import { GearLive } from "../gear/GearLive.ts"
import { ActivityReprocess } from "./ActivityReprocess.ts"
import { ExportMetadata } from "./archives/ExportMetadata.ts"
import { UnpackedEntries } from "./archives/UnpackedEntries.ts"
import { FileImportActions } from "./FileImportActions.ts"
import { FileImportReads } from "./FileImportReads.ts"
import { FileImportRepo } from "./FileImportRepo.ts"
import { ImportProgress } from "./ImportProgress.ts"
import { ImportQueue } from "./ImportQueue.ts"
import { ImportService } from "./ImportService.ts"
import { KeptOriginals } from "./KeptOriginals.ts"
import { ParseWorker } from "./ParseWorker.ts"
import { ReadingMarks } from "./ReadingMarks.ts"
import { WatchDirectory } from "./WatchDirectory.ts"

/**
 * The import's one layer: the watch folder, the queue and the progress of the batch it feeds,
 * the parse workers, the import itself and its log, the kept originals and archives, the
 * import log's actions (retry, removal), and the reprocessing of imported files; over the
 * activities and gear it writes. The removal of an activity is here too: it takes the
 * activity's kept original and import log row with it.
 */
export const ImportLive = Layer.mergeAll(ImportService.Default, ActivityReprocess.Default, ActivityRemoval.Default, FileImportActions.Default).pipe(
  Layer.provideMerge(KeptOriginals.Default),
  Layer.provideMerge(Layer.mergeAll(
    FileImportRepo.Default,
    WatchDirectory.DefaultWithoutDependencies,
    ReadingMarks.Default,
    UnpackedEntries.Default,
    ParseWorker.Default,
    // the queue, and the progress of the batch it feeds (which counts what waits in it)
    ImportProgress.Default.pipe(Layer.provideMerge(ImportQueue.Default)),
    ExportMetadata.Default
  )),
  Layer.provideMerge(FileImportReads.Default),
  Layer.provide(Layer.merge(ActivitiesLive, GearLive))
)
