import type { ActivitySummary, ImportSource } from "./ActivityFields.ts"
import type * as ActivityDetailModels from "./ActivityDetailModels.ts"
import type { FileFormat } from "./ParsedActivity.ts"
import type { TrainingBasis } from "./TrainingBasis.ts"

export type { ImportSource, Location, WorldType } from "./ActivityFields.ts"

export const importSourceOfFormat = (format: FileFormat): ImportSource =>
  format === "fit" ? "fitFile" : format === "tcx" ? "tcxFile" : "gpxFile"

/**
 * Streams, under the API's names (ActivityDetailModels' `Streams`), with `moving`, which the
 * API does not show; every array has one entry per `time` sample.
 */
export interface ActivityStreams {
  /** seconds since the start */
  readonly time: Array<number>
  readonly latlng?: Array<[number, number] | null>
  readonly distance?: Array<number>
  readonly altitude?: Array<number>
  /** metres per second */
  readonly velocity?: Array<number>
  readonly heartrate?: Array<number>
  readonly cadence?: Array<number>
  readonly watts?: Array<number>
  /** degrees Celsius */
  readonly temperature?: Array<number>
  readonly moving?: Array<boolean>
}

/** A lap, as the API shows it. */
export type Lap = ActivityDetailModels.Lap

/** A kilometre or mile split, as the API shows it. */
export type Split = ActivityDetailModels.Split

/** A best effort as the API shows it, without what follows from it (its name and end). */
export type BestEffort = Omit<ActivityDetailModels.BestEffort, "name" | "endOffsetInSeconds">

/**
 * A fully computed activity, ready to be stored: the output of ActivityMetrics + Geography
 * for a file, or of the Strava mapping. Plain data (crosses the worker-thread boundary). Its
 * summary fields are those of ActivityFields (the startTime in epoch ms, the startDateLocal as
 * `YYYY-MM-DDTHH:mm:ss`); the rest is stored in tables of their own.
 */
export interface ActivityDraft extends ActivitySummary {
  readonly streams: ActivityStreams
  readonly laps: ReadonlyArray<Lap>
  readonly splits: ReadonlyArray<Split>
  readonly bestEfforts: ReadonlyArray<BestEffort>
  /** what was dropped from its file as impossible, in plain words; absent when nothing was */
  readonly repairs?: ReadonlyArray<string>
  /** its training basis when computed before its streams were thinned for storage (else from the stored streams) */
  readonly training?: TrainingBasis
}

/**
 * An ActivityDraft whose streams are already in their stored form (see StreamsCodec): what the
 * parse worker hands over, so that encoding a long activity's streams never blocks the daemon.
 */
export interface EncodedActivityDraft extends Omit<ActivityDraft, "streams" | "training"> {
  readonly encodedStreams: Uint8Array
  readonly training: TrainingBasis
}
