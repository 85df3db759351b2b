import type { FileFormat } from "./ParsedActivity.ts"
import type { SportType } from "./SportType.ts"

/**
 * A fully computed activity, ready to be stored: the output of ActivityMetrics + Geography
 * for a file, or of the Strava mapping. Plain data (crosses the worker-thread boundary).
 */
export type WorldType = "realWorld" | "zwift" | "rouvy" | "myWhoosh"
export type ImportSource = "fitFile" | "tcxFile" | "gpxFile" | "stravaApi"

export const importSourceOfFormat = (format: FileFormat): ImportSource =>
  format === "fit" ? "fitFile" : format === "tcx" ? "tcxFile" : "gpxFile"

export interface Location {
  readonly countryCode: string | null
  readonly state: string | null
  readonly city: string | null
}

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

export interface ActivityDraft {
  readonly sportType: SportType
  readonly name: string
  readonly description: string
  readonly workoutType: "race" | "workout" | "longRun" | null
  readonly worldType: WorldType
  readonly importSource: ImportSource
  /** UTC instant of the start, epoch ms */
  readonly startTime: number
  /** local wall time, `YYYY-MM-DDTHH:mm:ss` */
  readonly startDateLocal: string
  readonly distanceInMeter: number
  readonly elevationInMeter: number
  readonly movingTimeInSeconds: number
  readonly elapsedTimeInSeconds: number
  readonly averageSpeedInKmPerHour: number
  readonly maxSpeedInKmPerHour: number
  readonly calories: number | null
  readonly kilojoules: number | null
  readonly averageHeartRate: number | null
  readonly maxHeartRate: number | null
  readonly averagePower: number | null
  readonly maxPower: number | null
  readonly averageCadence: number | null
  readonly isCommute: boolean
  readonly deviceName: string | null
  readonly gearId: string | null
  readonly location: Location
  readonly passedThroughCountries: ReadonlyArray<string>
  readonly startLatLng: readonly [number, number] | null
  readonly encodedPolyline: string | null
  readonly hasGpx: boolean
  readonly streams: ActivityStreams
  readonly laps: ReadonlyArray<Lap>
  readonly splits: ReadonlyArray<Split>
  readonly bestEfforts: ReadonlyArray<BestEffort>
  /** what was dropped from its file as impossible, in plain words; absent when nothing was */
  readonly repairs?: ReadonlyArray<string>
}

/**
 * An ActivityDraft whose streams are already in their stored form (see StreamsCodec): what the
 * parse worker hands over, so that encoding a long activity's streams never blocks the daemon.
 */
export interface EncodedActivityDraft extends Omit<ActivityDraft, "streams"> {
  readonly encodedStreams: Uint8Array
}
