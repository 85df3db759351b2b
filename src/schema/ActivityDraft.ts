import type { ActivitySummary, ImportSource } from "./ActivityFields.ts"
import type * as ActivityDetailModels from "./ActivityDetailModels.ts"
import type { FileFormat } from "./ParsedActivity.ts"
import type { TrainingBasis } from "./TrainingBasis.ts"

export type { ImportSource, Location, Multisport, WorldType } from "./ActivityFields.ts"

export const importSourceOfFormat = (format: FileFormat): ImportSource => `${format}File`

/**
 * Streams, under the API's names (ActivityDetailModels' `Streams`), with `moving`, which the
 * API does not show; every array has one entry per sample. `time` is absent only where the
 * samples' times are unknown (a route converted without them).
 */
export interface ActivityStreams {
  /** seconds since the start */
  readonly time?: Array<number>
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

/** How many samples the streams hold. */
export const sampleCount = (streams: ActivityStreams): number => {
  if (streams.time !== undefined) return streams.time.length
  for (const values of Object.values(streams)) if (Array.isArray(values)) return values.length
  return 0
}

/** A lap, as the API shows it (a swim lap's strokes, lengths, SWOLF and stroke where recorded). */
export type Lap = ActivityDetailModels.Lap

/** A lap's swim figures where nothing was swum: no strokes, lengths, SWOLF nor stroke. */
export const NOT_SWUM = { strokes: null, numberOfLengths: null, swolf: null, strokeType: null } as const satisfies Partial<Lap>

/** One active length of a pool swim, as the API shows it (the rests between lengths are not lengths). */
export type Length = ActivityDetailModels.Length

/** A kilometre or mile split, or for swims one of 100 metres or 100 yards, as the API shows it. */
export type Split = ActivityDetailModels.Split

/** The unit of a split. */
export type SplitUnit = Split["unit"]

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
  /** the track in the form the segments read (SegmentTrack), made with the encoded streams; null without positions */
  readonly segmentTrack?: Uint8Array | null
  readonly training: TrainingBasis
}
