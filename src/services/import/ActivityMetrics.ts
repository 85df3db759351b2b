import polyline from "@mapbox/polyline"
import simplify from "simplify-js"
import type { ActivityDraft, Location } from "../../schema/ActivityDraft.ts"
import { importSourceOfFormat } from "../../schema/ActivityDraft.ts"
import type { ParsedActivity } from "../../schema/ParsedActivity.ts"
import { bestEffortDistances } from "../../schema/SportType.ts"
import { locate, passedThroughCountries, timeZoneAt } from "./Geography.ts"
import { computeBestEfforts } from "./metrics/BestEfforts.ts"
import { climbThreshold, hysteresisGain, smoothAltitude } from "./metrics/Elevation.ts"
import { computeLaps } from "./metrics/Laps.ts"
import { isValidTimeZone, localInZone, localWithOffset } from "./metrics/LocalTime.ts"
import { computeMotion, MAX_RECORDING_GAP_S, movingWithinTimer, robustMaxSpeed } from "./metrics/Motion.ts"
import { cleanName, defaultName, worldTypeOf } from "./metrics/Naming.ts"
import { isNum, kmh, maxOf, round, timeWeightedMeanOf } from "./metrics/Numbers.ts"
import { sportProfile } from "./metrics/SportProfile.ts"
import { computeSplits } from "./metrics/Splits.ts"
import { buildStreams } from "./metrics/Streams.ts"
import { distanceProblem } from "../activities/validateActivity.ts"
import { ActivityFileError } from "./parsers/ActivityFileError.ts"

/**
 * ParsedActivity -> ActivityDraft.
 * `computeActivity` is pure and synchronous so that it can run inside the import worker thread;
 * the `ActivityMetrics` service wraps it in a span.
 *
 * Rules in short: device totals win (distance, total_ascent, elapsed, averages); otherwise
 * values come from the samples: distance from the device distance stream, else from the
 * smoothed GPS track (metrics/GpsTrack.ts), else integrated speed; elevation gain from
 * smoothed altitude with a hysteresis suited to the altimeter (metrics/Elevation.ts); averages
 * weighted by time. Moving time: the intervals ≤ 60 s at or above the sport's stop speed
 * (metrics/SportProfile.ts), the speed read from the GPS track whenever there is one, so that
 * the same ride has one moving time as FIT, GPX or TCX; a device timer (total_timer_time,
 * which leaves the pauses out but counts standing still when auto-pause is off) bounds it
 * (movingWithinTimer); without GPS (pool swim, treadmill, trainer) the timer is the moving
 * time. Moving time never exceeds elapsed time.
 */
export interface ComputeContext {
  readonly filename: string
  /** last-resort IANA zone (the TZ setting) for files without offset or position */
  readonly fallbackTimeZone: string
}

/** Douglas-Peucker tolerance in degrees for the summary polyline. */
export const POLYLINE_TOLERANCE_DEG = 0.0001
/** A sensor's reading stands for at most this long (s) across samples without one. */
const MAX_HOLD_S = 60
/** A sensor that read during less than this share of the recorded time gives no average. */
const MIN_SENSOR_COVERAGE = 0.1
/** Device and stream average power further apart than this: the stream average wins. */
const POWER_MISMATCH = 0.1

const NO_LOCATION: Location = { countryCode: null, state: null, city: null }

/** The error of a file whose activity is impossible as computed (see validateActivity), `reason` saying why. */
export const impossibleActivity = (filename: string, reason: string) =>
  new ActivityFileError({ message: `"${filename}" cannot be imported: ${reason}.`, reason })

const intOrNull = (v: number | null): number | null => (isNum(v) ? Math.round(v) : null)

export const encodePolyline = (positions: ReadonlyArray<[number, number] | null>): string | null => {
  const points: Array<{ x: number; y: number }> = []
  for (const p of positions) if (p) points.push({ x: p[1], y: p[0] })
  if (points.length === 0) return null
  const simplified = points.length > 2 ? simplify(points, POLYLINE_TOLERANCE_DEG, true) : points
  return polyline.encode(simplified.map((p) => [p.y, p.x] as [number, number]), 5)
}

export const computeActivity = (parsed: ParsedActivity, context: ComputeContext): ActivityDraft => {
  const { samples, totals, sportType } = parsed
  const profile = sportProfile(sportType)
  const motion = computeMotion(samples, parsed.startTime, profile)
  const { n, timeS } = motion

  // identity
  const fileName = cleanName(parsed.name)
  const worldType = parsed.worldType ?? worldTypeOf(parsed.deviceName, [parsed.name, context.filename])
  const firstPosition = motion.positions.find((p) => p !== null) ?? null
  const startLatLng: readonly [number, number] | null =
    parsed.startLatLng && !(parsed.startLatLng[0] === 0 && parsed.startLatLng[1] === 0)
      ? [round(parsed.startLatLng[0], 6), round(parsed.startLatLng[1], 6)]
      : firstPosition
      ? [round(firstPosition[0], 6), round(firstPosition[1], 6)]
      : null
  const realPlace = parsed.virtual !== true && worldType === "realWorld" && !sportType.startsWith("Virtual")

  // local start time: device offset > zone at the start position > TZ setting > UTC
  const positionZone = realPlace && startLatLng ? timeZoneAt(startLatLng[0], startLatLng[1]) : null
  const startDateLocal = isNum(parsed.utcOffsetSeconds)
    ? localWithOffset(parsed.startTime, parsed.utcOffsetSeconds)
    : localInZone(
      parsed.startTime,
      positionZone ?? (isValidTimeZone(context.fallbackTimeZone) ? context.fallbackTimeZone : "UTC")
    )
  const name = fileName ?? defaultName(sportType, Number(startDateLocal.slice(11, 13)))

  // times
  const sampleElapsed = n > 1 ? timeS[n - 1]! - timeS[0]! : 0
  const elapsed = Math.max(0, Math.round(isNum(totals.elapsedSeconds) ? totals.elapsedSeconds : sampleElapsed))
  const computedMoving = n > 0 ? motion.movingCum[n - 1]! : 0
  const timer = isNum(totals.timerSeconds)
    ? motion.positionCount >= 2 && n > 0
      ? movingWithinTimer(totals.timerSeconds, computedMoving, computedMoving + motion.stoppedCum[n - 1]!)
      : totals.timerSeconds
    : computedMoving
  const moving = Math.min(elapsed, Math.max(0, Math.round(timer)))

  // distance, elevation, speed
  const streamDistance = motion.hasDistance ? motion.distance[n - 1]! - motion.distance[0]! : 0
  // splits are computed over the distance stream, one per kilometre and mile: an absurd
  // distance (a single 1e308 sample) must stop the file here, before they are
  const absurdDistance = distanceProblem(streamDistance, "the distance recorded") ??
    distanceProblem(motion.hasDistance ? motion.distance[n - 1]! : 0, "the distance recorded")
  if (absurdDistance !== null) throw impossibleActivity(context.filename, absurdDistance)
  const distance = Math.max(0, Math.trunc(isNum(totals.distanceMeters) ? totals.distanceMeters : streamDistance))
  const smoothedAltitude = smoothAltitude(timeS, samples.altitude, motion.segments)
  const threshold = climbThreshold(samples.altitude, smoothedAltitude)
  const elevation = Math.max(0, Math.round(isNum(totals.ascentMeters) ? totals.ascentMeters : hysteresisGain(smoothedAltitude, 0, n, threshold)))
  const averageSpeedKmh = isNum(totals.averageSpeed)
    ? kmh(totals.averageSpeed)
    : moving > 0
    ? kmh(distance / moving)
    : 0
  const maxSpeedKmh = isNum(totals.maxSpeed) ? kmh(totals.maxSpeed) : kmh(robustMaxSpeed(motion.velocity, profile.maxPlausible))

  // physiology and power
  const averageOf = (values: ReadonlyArray<number | null>, keepZeros: boolean) =>
    timeWeightedMeanOf(values, timeS, motion.segmentStart, keepZeros, MAX_RECORDING_GAP_S, MAX_HOLD_S, MIN_SENSOR_COVERAGE)
  const streamAvgPower = averageOf(samples.power, true)
  const averagePower = isNum(totals.averagePower)
    ? streamAvgPower !== null && totals.averagePower > 0 &&
        Math.abs(streamAvgPower - totals.averagePower) / totals.averagePower > POWER_MISMATCH
      ? streamAvgPower
      : Math.round(totals.averagePower)
    : streamAvgPower
  const averageHeartRate = isNum(totals.averageHeartRate) ? Math.round(totals.averageHeartRate) : averageOf(samples.heartRate, false)
  const lapCalories = parsed.laps.filter((l) => isNum(l.calories)).map((l) => l.calories!)
  const calories = isNum(totals.calories)
    ? Math.round(totals.calories)
    : lapCalories.length > 0
    ? Math.round(lapCalories.reduce((a, b) => a + b, 0))
    : null

  // geography
  // whatever the sport: a Workout or a court game recorded with GPS was somewhere
  const geocode = realPlace && motion.positionCount > 0
  const location = geocode && startLatLng ? locate(startLatLng[0], startLatLng[1]) : NO_LOCATION
  const countries = geocode ? passedThroughCountries(motion.positions) : []
  if (geocode && location.countryCode && countries[0] !== location.countryCode) {
    const i = countries.indexOf(location.countryCode)
    if (i > 0) countries.splice(i, 1)
    countries.unshift(location.countryCode)
  }

  const efforts = bestEffortDistances(sportType)
  return {
    sportType,
    name,
    description: parsed.description ?? "",
    workoutType: null,
    worldType,
    importSource: importSourceOfFormat(parsed.format),
    startTime: parsed.startTime,
    startDateLocal,
    distanceInMeter: distance,
    elevationInMeter: elevation,
    movingTimeInSeconds: moving,
    elapsedTimeInSeconds: elapsed,
    averageSpeedInKmPerHour: averageSpeedKmh,
    maxSpeedInKmPerHour: maxSpeedKmh,
    calories,
    kilojoules: parsed.format === "fit" && isNum(totals.workJoules) ? Math.round(totals.workJoules / 1000) : null,
    averageHeartRate,
    maxHeartRate: intOrNull(isNum(totals.maxHeartRate) ? totals.maxHeartRate : maxOf(samples.heartRate)),
    averagePower,
    maxPower: intOrNull(isNum(totals.maxPower) ? totals.maxPower : maxOf(samples.power)),
    averageCadence: isNum(totals.averageCadence) ? Math.round(totals.averageCadence) : averageOf(samples.cadence, true),
    isCommute: false,
    deviceName: parsed.deviceName,
    gearId: null,
    location,
    passedThroughCountries: countries,
    startLatLng,
    encodedPolyline: encodePolyline(motion.positions),
    hasGpx: motion.positionCount >= 2,
    streams: buildStreams(samples, motion),
    laps: computeLaps(parsed.laps, motion, smoothedAltitude, threshold, samples.heartRate, parsed.startTime, {
      elapsed,
      moving,
      distance,
      elevation,
      averageSpeedKmh,
      maxSpeedKmh,
      averageHeartRate
    }),
    splits: [
      ...computeSplits("km", motion, smoothedAltitude, samples.heartRate),
      ...computeSplits("mile", motion, smoothedAltitude, samples.heartRate)
    ],
    bestEfforts: efforts.length > 0 && motion.hasDistance ? computeBestEfforts(efforts, motion.distance, timeS) : [],
    ...(parsed.repairs !== undefined && parsed.repairs.length > 0 ? { repairs: parsed.repairs } : {})
  }
}
