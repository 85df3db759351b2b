import CheapRuler from "cheap-ruler"
import type { DeviceTotals, ParsedActivity, ParsedLap, ParsedSamples } from "../../../../src/schema/ParsedActivity.ts"
import type { SportType } from "../../../../src/schema/SportType.ts"

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
export const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

export const NO_TOTALS: DeviceTotals = {
  distanceMeters: null, elapsedSeconds: null, timerSeconds: null, ascentMeters: null, calories: null,
  workJoules: null, averageHeartRate: null, maxHeartRate: null, averagePower: null, maxPower: null,
  averageCadence: null, averageSpeed: null, maxSpeed: null
}

export interface TrackOptions {
  readonly sportType?: SportType
  readonly format?: ParsedActivity["format"]
  /** ISO instant of the first sample */
  readonly start?: string
  readonly samples?: number
  /** seconds between samples */
  readonly interval?: number
  /** m/s for sample i (0 = standing still) */
  readonly speed?: (i: number) => number
  readonly origin?: readonly [number, number]
  /** heading in degrees (0 = north, 90 = east) */
  readonly bearing?: number
  readonly altitude?: (i: number, distance: number) => number | null
  readonly heartRate?: (i: number) => number | null
  readonly power?: (i: number) => number | null
  readonly cadence?: (i: number) => number | null
  readonly withPositions?: boolean
  readonly withDeviceDistance?: boolean
  /** extra seconds added before sample i (a pause / gap) */
  readonly pauseBefore?: ReadonlyMap<number, number>
  readonly segmentStarts?: ReadonlyArray<number>
  readonly totals?: Partial<DeviceTotals>
  readonly laps?: ReadonlyArray<ParsedLap>
  readonly name?: string | null
  readonly description?: string | null
  readonly deviceName?: string | null
  readonly utcOffsetSeconds?: number | null
}

/** A straight synthetic track: ParsedActivity with columnar samples built in code. */
export const syntheticActivity = (o: TrackOptions = {}): ParsedActivity => {
  const n = o.samples ?? 600
  const interval = o.interval ?? 1
  const t0 = Date.parse(o.start ?? "2024-06-01T08:00:00Z")
  const [lat0, lng0] = o.origin ?? [51.2093, 3.2247]
  const bearingDeg = o.bearing ?? 90
  const speed = o.speed ?? (() => 5)
  const samples: { [K in keyof ParsedSamples]: Array<any> } = {
    time: [], lat: [], lng: [], altitude: [], distance: [], speed: [], heartRate: [], cadence: [], power: [],
    temperature: [], segmentStarts: [...(o.segmentStarts ?? [])]
  }
  let t = t0
  let d = 0
  let lat = lat0
  let lng = lng0
  for (let i = 0; i < n; i++) {
    if (i > 0) {
      const step = speed(i) * interval
      d += step
      // on the ellipsoid, as the metrics measure it
      ;[lng, lat] = new CheapRuler(lat, "meters").destination([lng, lat], step, bearingDeg)
      t += interval * 1000 + (o.pauseBefore?.get(i) ?? 0) * 1000
    }
    samples.time.push(t)
    samples.lat.push(o.withPositions === false ? null : lat)
    samples.lng.push(o.withPositions === false ? null : lng)
    samples.altitude.push(o.altitude ? o.altitude(i, d) : null)
    samples.distance.push(o.withDeviceDistance ? d : null)
    samples.speed.push(null)
    samples.heartRate.push(o.heartRate ? o.heartRate(i) : null)
    samples.cadence.push(o.cadence ? o.cadence(i) : null)
    samples.power.push(o.power ? o.power(i) : null)
    samples.temperature.push(null)
  }
  return {
    format: o.format ?? "gpx",
    sportType: o.sportType ?? "Ride",
    name: o.name === undefined ? null : o.name,
    description: o.description === undefined ? null : o.description,
    deviceName: o.deviceName === undefined ? null : o.deviceName,
    startTime: t0,
    utcOffsetSeconds: o.utcOffsetSeconds === undefined ? null : o.utcOffsetSeconds,
    totals: { ...NO_TOTALS, ...o.totals },
    startLatLng: null,
    samples: samples as ParsedSamples,
    laps: o.laps ?? []
  }
}

export const context = { filename: "activity.gpx", fallbackTimeZone: "Europe/Brussels" } as const
