import type { WorldType } from "./ActivityDraft.ts"
import type { SportType } from "./SportType.ts"

/**
 * What a parser reads from one activity file, before any computation: the device's own
 * totals (null where the file has none) and the raw samples. Plain data, so that it can
 * cross a worker-thread boundary.
 */
export type FileFormat = "fit" | "tcx" | "gpx"

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
}
