import type { ActivitySummary, ImportSource } from "./ActivityFields.ts"
import type { FileFormat } from "./ParsedActivity.ts"
import type { TrainingBasis } from "./TrainingBasis.ts"
import type { StrokeType } from "./SwimStroke.ts"

export type { ImportSource, Location, Multisport, WorldType } from "./ActivityFields.ts"

export const importSourceOfFormat = (format: FileFormat): ImportSource => `${format}File`

/**
 * Streams, keyed by Strava stream type; every array has one entry per sample. `time` is absent
 * only where the samples' times are unknown (a route converted without them).
 */
export interface ActivityStreams {
  /** seconds since the start */
  readonly time?: Array<number>
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

/** How many samples the streams hold. */
export const sampleCount = (streams: ActivityStreams): number => {
  if (streams.time !== undefined) return streams.time.length
  for (const values of Object.values(streams)) if (Array.isArray(values)) return values.length
  return 0
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
  /** a swim lap's strokes, active lengths, SWOLF (seconds plus strokes per length) and stroke, where recorded */
  readonly strokes?: number | null
  readonly numberOfLengths?: number | null
  readonly swolf?: number | null
  readonly strokeType?: StrokeType | null
}

/** One active length of a pool swim (the rests between lengths are not lengths). */
export interface Length {
  readonly lengthIndex: number
  /** the lap it belongs to */
  readonly lapIndex: number
  /** seconds since the activity start */
  readonly startOffsetSeconds: number
  readonly elapsedTimeInSeconds: number
  readonly distanceInMeter: number
  readonly averageSpeedInKmPerHour: number
  readonly strokes: number | null
  readonly strokeType: StrokeType | null
  /** seconds plus strokes; null without strokes */
  readonly swolf: number | null
}

/** The unit of a split: a kilometre or a mile, or for swims 100 metres or 100 yards. */
export type SplitUnit = "metric" | "imperial" | "100m" | "100yd"

export interface Split {
  readonly unit: SplitUnit
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
  /** a pool swim's lengths */
  readonly lengths?: ReadonlyArray<Length>
  /** what was dropped from its file as impossible, in plain words; absent when nothing was */
  readonly repairs?: ReadonlyArray<string>
  /** its training basis when computed before its streams were thinned for storage (else from the stored streams) */
  readonly training?: TrainingBasis
  /**
   * which part of `multisport` this activity is: the import names the activity of each leg there
   * once it has given them their ids (see linkRaceLegs)
   */
  readonly racePart?: number
}

/**
 * An ActivityDraft whose streams are already in their stored form (see StreamsCodec): what the
 * parse worker hands over, so that encoding a long activity's streams never blocks the daemon.
 */
export interface EncodedActivityDraft extends Omit<ActivityDraft, "streams" | "training"> {
  readonly encodedStreams: Uint8Array
  readonly training: TrainingBasis
}
