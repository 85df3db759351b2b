import {
  type ActivityDraft,
  type ActivityStreams as DraftStreams,
  type Lap as DraftLap,
  type Location,
  NOT_SWUM,
  type Split as DraftSplit
} from "../../schema/ActivityDraft.ts"
import { bestEffortDistances, isSportType } from "../../schema/SportType.ts"
import { platformGearId } from "../../services/activities/GearRepo.ts"
import { encodePolyline } from "../../services/import/ActivityMetrics.ts"
import { locate, passedThroughCountries } from "../../services/import/Geography.ts"
import { computeBestEfforts } from "../../services/import/metrics/BestEfforts.ts"
import { worldTypeOf } from "../../services/import/metrics/Naming.ts"
import { isNum, kmh, round } from "../../services/import/metrics/Numbers.ts"
import type { ActivityStreams, DetailedActivity, Lap, Split } from "./StravaSchemas.ts"

/**
 * Strava detail + streams -> ActivityDraft (the same stored model as file imports), pure.
 * Mapping: start_date_local is the wall time taken literally; speeds
 * m/s -> km/h; calories 0 when absent; workout_type 1/11 race, 3/12 workout, 2 longRun.
 */

export const activityIdOf = (stravaId: number | string) => `activity-${stravaId}`

export const workoutTypeOf = (value: number | undefined): ActivityDraft["workoutType"] => {
  switch (value) {
    case 1:
    case 11:
      return "race"
    case 3:
    case 12:
      return "workout"
    case 2:
      return "longRun"
    default:
      return null
  }
}

/** `2024-06-01T10:00:00Z` (Strava writes the local wall time with a Z) -> `2024-06-01T10:00:00`. */
export const wallTime = (startDateLocal: string): string => {
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})/.exec(startDateLocal)
  return m ? `${m[1]}T${m[2]}` : startDateLocal.replace(/(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/, "").slice(0, 19)
}

const NO_LOCATION: Location = { countryCode: null, state: null, city: null }

const latLngOf = (value: ReadonlyArray<number> | undefined): readonly [number, number] | null =>
  value !== undefined && value.length >= 2 && isNum(value[0]) && isNum(value[1]) && !(value[0] === 0 && value[1] === 0)
    ? [round(value[0], 6), round(value[1], 6)]
    : null

const intOrNull = (v: number | undefined): number | null => (isNum(v) ? Math.round(v) : null)

/** Strava streams (key_by_type) -> ActivityStreams; every array is cut to the `time` length. */
export const mapStreams = (streams: ActivityStreams): DraftStreams & { readonly time: Array<number> } => {
  const time = [...(streams.time?.data ?? [])]
  const n = time.length
  if (n === 0) return { time: [] }
  const fit = <A>(data: ReadonlyArray<A> | undefined): Array<A> | undefined =>
    data === undefined || data.length === 0 ? undefined : data.slice(0, n)
  const latlng = fit(streams.latlng?.data)?.map((p): [number, number] | null =>
    p.length >= 2 && isNum(p[0]) && isNum(p[1]) ? [p[0], p[1]] : null
  )
  const watts = fit(streams.watts?.data)?.map((w) => (isNum(w ?? undefined) ? w! : 0))
  const out: { -readonly [K in keyof DraftStreams]: DraftStreams[K] } & { time: Array<number> } = { time }
  if (latlng) out.latlng = latlng
  const distance = fit(streams.distance?.data)
  if (distance) out.distance = distance
  const altitude = fit(streams.altitude?.data)
  if (altitude) out.altitude = altitude
  // Strava's stream types, under the API's names
  const velocity = fit(streams.velocity_smooth?.data)
  if (velocity) out.velocity = velocity
  const heartrate = fit(streams.heartrate?.data)
  if (heartrate) out.heartrate = heartrate
  const cadence = fit(streams.cadence?.data)
  if (cadence) out.cadence = cadence
  if (watts) out.watts = watts
  const temperature = fit(streams.temp?.data)
  if (temperature) out.temperature = temperature
  const moving = fit(streams.moving?.data)
  if (moving) out.moving = moving
  return out
}

export const mapLaps = (laps: ReadonlyArray<Lap>, startTime: number, time: ReadonlyArray<number>): Array<DraftLap> =>
  laps.map((lap, i) => {
    const byIndex = isNum(lap.start_index) ? time[lap.start_index] : undefined
    const byDate = lap.start_date !== undefined ? (Date.parse(lap.start_date) - startTime) / 1000 : undefined
    return {
      lapIndex: isNum(lap.lap_index) ? lap.lap_index : i + 1,
      name: lap.name ?? `Lap ${i + 1}`,
      startOffsetInSeconds: Math.max(0, Math.round(isNum(byIndex) ? byIndex : isNum(byDate) ? byDate : 0)),
      elapsedTimeInSeconds: lap.elapsed_time,
      movingTimeInSeconds: lap.moving_time ?? lap.elapsed_time,
      distanceInMeter: lap.distance,
      elevationInMeter: lap.total_elevation_gain ?? 0,
      averageSpeedInKmPerHour: kmh(lap.average_speed ?? (lap.moving_time ? lap.distance / lap.moving_time : 0)),
      maxSpeedInKmPerHour: kmh(lap.max_speed ?? 0),
      averageHeartRate: intOrNull(lap.average_heartrate),
      ...NOT_SWUM
    }
  })

export const mapSplits = (splits: ReadonlyArray<Split>, unit: DraftSplit["unit"]): Array<DraftSplit> =>
  splits.map((s) => ({
    unit,
    splitIndex: s.split,
    distanceInMeter: s.distance,
    elapsedTimeInSeconds: s.elapsed_time,
    movingTimeInSeconds: s.moving_time,
    elevationDifferenceInMeter: s.elevation_difference ?? 0,
    averageSpeedInKmPerHour: kmh(s.average_speed ?? (s.moving_time > 0 ? s.distance / s.moving_time : 0)),
    averageHeartRate: intOrNull(s.average_heartrate)
  }))

export type MappingResult =
  | { readonly _tag: "Mapped"; readonly draft: ActivityDraft }
  | { readonly _tag: "UnknownSport"; readonly sportType: string }

export const toActivityDraft = (detail: DetailedActivity, rawStreams: ActivityStreams): MappingResult => {
  const sportType = detail.sport_type
  if (!isSportType(sportType)) return { _tag: "UnknownSport", sportType }
  const startTime = Date.parse(detail.start_date)
  const streams = mapStreams(rawStreams)
  const worldType = worldTypeOf(detail.device_name ?? null, [detail.name])
  const startLatLng = latLngOf(detail.start_latlng) ??
    (streams.latlng?.find((p) => p !== null) ?? null)
  const positions = streams.latlng ?? []
  const positionCount = positions.reduce((c, p) => (p !== null ? c + 1 : c), 0)
  const realPlace = worldType === "realWorld" && !sportType.startsWith("Virtual") && detail.trainer !== true
  const geocode = realPlace && startLatLng !== null
  const location = geocode ? locate(startLatLng[0], startLatLng[1]) : NO_LOCATION
  const countries = geocode && positionCount > 0 ? passedThroughCountries(positions) : []
  if (geocode && location.countryCode) {
    const i = countries.indexOf(location.countryCode)
    if (i !== 0) {
      if (i > 0) countries.splice(i, 1)
      countries.unshift(location.countryCode)
    }
  }
  const summary = detail.map?.summary_polyline
  const encodedPolyline = summary !== undefined && summary !== "" ? summary : encodePolyline(positions)
  const efforts = bestEffortDistances(sportType)
  const distanceStream = streams.distance
  const bestEfforts = efforts.length > 0 && distanceStream !== undefined && distanceStream.length === streams.time.length
    ? computeBestEfforts(efforts, Float64Array.from(distanceStream), Float64Array.from(streams.time))
    : []
  const movingTime = detail.moving_time ?? 0
  const distance = detail.distance ?? 0
  const draft: ActivityDraft = {
    sportType,
    name: detail.name,
    description: detail.description ?? "",
    workoutType: workoutTypeOf(detail.workout_type),
    worldType,
    importSource: "stravaApi",
    startTime,
    startDateLocal: wallTime(detail.start_date_local),
    distanceInMeter: distance,
    elevationInMeter: detail.total_elevation_gain ?? 0,
    movingTimeInSeconds: movingTime,
    elapsedTimeInSeconds: detail.elapsed_time ?? movingTime,
    averageSpeedInKmPerHour: kmh(detail.average_speed ?? (movingTime > 0 ? distance / movingTime : 0)),
    maxSpeedInKmPerHour: kmh(detail.max_speed ?? 0),
    calories: isNum(detail.calories) ? Math.round(detail.calories) : 0,
    kilojoules: intOrNull(detail.kilojoules),
    averageHeartRate: intOrNull(detail.average_heartrate),
    maxHeartRate: intOrNull(detail.max_heartrate),
    averagePower: intOrNull(detail.average_watts),
    maxPower: intOrNull(detail.max_watts),
    averageCadence: intOrNull(detail.average_cadence),
    isCommute: detail.commute === true,
    excludeFromRecords: false,
    deviceName: detail.device_name ?? null,
    gearId: detail.gear_id !== undefined && detail.gear_id !== "" ? platformGearId(detail.gear_id) : null,
    location,
    passedThroughCountries: countries,
    startLatLng,
    encodedPolyline,
    hasGpx: positionCount >= 2 && streams.time.length >= 2,
    streams,
    laps: mapLaps(detail.laps ?? [], startTime, streams.time),
    splits: [...mapSplits(detail.splits_metric ?? [], "km"), ...mapSplits(detail.splits_standard ?? [], "mile")],
    bestEfforts,
    hasTimes: true,
    dateUnknown: false,
    poolLengthInMeter: null,
    numberOfLengths: null,
    strokes: null,
    swolf: null,
    multisport: null
  }
  return { _tag: "Mapped", draft }
}
