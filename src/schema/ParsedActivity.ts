import type { WorldType } from "./ActivityDraft.ts"
import type { SportType } from "./SportType.ts"
import type { StrokeType } from "./SwimStroke.ts"

/**
 * What a parser reads from one activity file, before any computation: the device's own
 * totals (null where the file has none) and the raw samples. Plain data, so that it can
 * cross a worker-thread boundary.
 */
export type FileFormat = "fit" | "tcx" | "gpx" | "kml" | "kmz"

/** Column-oriented samples, one index per sample, sorted by time. `null` = not recorded. */
export interface ParsedSamples {
  /** UTC instant of each sample, epoch milliseconds. */
  readonly time: Array<number>
  readonly lat: Array<number | null>
  readonly lng: Array<number | null>
  /** metres */
  readonly altitude: Array<number | null>
  /** cumulative metres as recorded by the device (null where the file has none) */
  readonly distance: Array<number | null>
  /** m/s as recorded by the device */
  readonly speed: Array<number | null>
  readonly heartRate: Array<number | null>
  readonly cadence: Array<number | null>
  readonly power: Array<number | null>
  readonly temperature: Array<number | null>
  /** index of the first sample of each recording segment after the first (GPX trkseg, TCX track) */
  readonly segmentStarts: Array<number>
}

export interface ParsedLap {
  /** epoch ms */
  readonly startTime: number
  readonly elapsedSeconds: number | null
  readonly timerSeconds: number | null
  readonly distanceMeters: number | null
  readonly ascentMeters: number | null
  /** m/s */
  readonly averageSpeed: number | null
  readonly maxSpeed: number | null
  readonly averageHeartRate: number | null
  readonly maxHeartRate: number | null
  readonly calories: number | null
  /** a swim lap's strokes, and its stroke when the device recorded one */
  readonly strokes?: number | null
  readonly strokeType?: StrokeType | null
}

/** One length of a pool swim as the device recorded it (a FIT `length` message). */
export interface ParsedLength {
  /** epoch ms */
  readonly startTime: number
  readonly elapsedSeconds: number
  /** false for a rest at the wall (an idle length) */
  readonly active: boolean
  readonly strokes: number | null
  readonly strokeType: StrokeType | null
}

/**
 * One part of a multisport race (a triathlon) as its file recorded it: a sport leg, or the
 * transition between two legs. Every activity of the race carries all of them.
 */
export interface ParsedRacePart {
  /** null for a transition */
  readonly sportType: SportType | null
  /** epoch ms */
  readonly startTime: number
  readonly elapsedSeconds: number
}

export interface ParsedRace {
  readonly parts: ReadonlyArray<ParsedRacePart>
  /** which of `parts` this activity is */
  readonly part: number
}

export interface DeviceTotals {
  readonly distanceMeters: number | null
  readonly elapsedSeconds: number | null
  /** FIT total_timer_time: the device's moving time */
  readonly timerSeconds: number | null
  readonly ascentMeters: number | null
  readonly calories: number | null
  /** FIT total_work, joules */
  readonly workJoules: number | null
  readonly averageHeartRate: number | null
  readonly maxHeartRate: number | null
  readonly averagePower: number | null
  readonly maxPower: number | null
  readonly averageCadence: number | null
  /** m/s */
  readonly averageSpeed: number | null
  readonly maxSpeed: number | null
  /** a swim's strokes (FIT total_cycles) */
  readonly strokes?: number | null
}

export interface ParsedActivity {
  readonly format: FileFormat
  readonly sportType: SportType
  /** name stored in the file (FIT workout name, GPX metadata/trk name); null = use the default name */
  readonly name: string | null
  readonly description: string | null
  readonly deviceName: string | null
  /** UTC instant of the start, epoch milliseconds */
  readonly startTime: number
  /** the device's own UTC offset (FIT activity.local_timestamp - timestamp), seconds */
  readonly utcOffsetSeconds: number | null
  readonly totals: DeviceTotals
  /** session start position when the device stored one */
  readonly startLatLng: readonly [number, number] | null
  readonly samples: ParsedSamples
  readonly laps: ReadonlyArray<ParsedLap>
  /** recorded on an indoor training platform (see virtualPlatform): located nowhere, in this world */
  readonly virtual?: boolean
  readonly worldType?: WorldType
  /** what was dropped from the file as impossible, in plain words (see repairSamples) */
  readonly repairs?: ReadonlyArray<string>
  /** a pool swim's pool length (m) and its lengths */
  readonly poolLengthMeters?: number | null
  readonly lengths?: ReadonlyArray<ParsedLength>
  /** the race this activity is a leg of (a multisport file) */
  readonly race?: ParsedRace
  /**
   * the samples carry no usable time (a route converted without its times): only their order is
   * known, and `time` holds the start, then one second more for each sample after it
   */
  readonly timesUnknown?: boolean
  /**
   * nothing in the file tells when it was recorded (no time in any sample, no date of the file's
   * own): `startTime` is 0, a stand-in that the computed activity replaces by when it was imported
   */
  readonly dateUnknown?: boolean
  /**
   * the file names no sport (a GPX without <type>, a TCX without Sport): `sportType` is a
   * placeholder, and the sport is read from what the samples hold (inferSport)
   */
  readonly sportUnknown?: boolean
  /** the device marked the activity a commute (Garmin's cycling/commuting sub-sport) */
  readonly commute?: boolean
}
