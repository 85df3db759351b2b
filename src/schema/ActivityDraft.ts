import type { ActivitySummary, ImportSource } from "./ActivityFields.ts"
import type { FileFormat } from "./ParsedActivity.ts"
import type { TrainingBasis } from "./TrainingBasis.ts"

export type { ImportSource, Location, WorldType } from "./ActivityFields.ts"

export const importSourceOfFormat = (format: FileFormat): ImportSource =>
  format === "fit" ? "fitFile" : format === "tcx" ? "tcxFile" : "gpxFile"

/** Streams, keyed by Strava stream type; every array has one entry per `time` sample. */
export interface ActivityStreams {
  /** seconds since the start */
  readonly time: Array<number>
  readonly latlng?: Array<[number, number] | null>
  readonly distance?: Array<number>
  readonly altitude?: Array<number>
  readonly velocity_smooth?: Array<number>
  readonly heartrate?: Array<number>
  readonly cadence?: Array<number>
  readonly watts?: Array<number>
  readonly temp?: Array<number>
  readonly moving?: Array<boolean>
}

export interface Lap {
  readonly lapIndex: number
  readonly name: string
  /** seconds since the activity start */
  readonly startOffsetSeconds: number
  readonly elapsedTimeInSeconds: number
  readonly movingTimeInSeconds: number
  readonly distanceInMeter: number
  readonly elevationInMeter: number
  readonly averageSpeedInKmPerHour: number
  readonly maxSpeedInKmPerHour: number
  readonly averageHeartRate: number | null
}

export interface Split {
  readonly unit: "metric" | "imperial"
  readonly splitIndex: number
  readonly distanceInMeter: number
  readonly elapsedTimeInSeconds: number
  readonly movingTimeInSeconds: number
  readonly elevationDifferenceInMeter: number
  readonly averageSpeedInKmPerHour: number
  readonly averageHeartRate: number | null
}

export interface BestEffort {
  readonly distanceInMeter: number
  readonly timeInSeconds: number
  /** seconds since the activity start where the effort begins */
  readonly startOffsetSeconds: number
}

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
