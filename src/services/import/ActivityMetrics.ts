import polyline from "@mapbox/polyline"
import simplify from "simplify-js"
import type { ActivityDraft, ActivityStreams, Location, Multisport, SplitUnit } from "../../schema/ActivityDraft.ts"
import { importSourceOfFormat } from "../../schema/ActivityDraft.ts"
import type { ParsedActivity, ParsedRace } from "../../schema/ParsedActivity.ts"
import { bestEffortDistances, type SportType, SWIMS } from "../../schema/SportType.ts"
import { locate, passedThroughCountries, timeZoneAt } from "./Geography.ts"
import { computeBestEfforts } from "./metrics/BestEfforts.ts"
import { climbThreshold, hysteresisGain, smoothAltitude } from "./metrics/Elevation.ts"
import { computeLaps } from "./metrics/Laps.ts"
import { isValidTimeZone, localInZone, localWithOffset } from "../platform/LocalTime.ts"
import { computeMotion, MAX_RECORDING_GAP_S, movingWithinTimer, robustMaxSpeed } from "./metrics/Motion.ts"
import { cleanName, defaultName, worldTypeOf } from "./metrics/Naming.ts"
import { sportWords } from "./parsers/sportNames.ts"
import { scaleCadence, stepsFactor } from "./metrics/Cadence.ts"
import { isNum, kmh, maxOf, round, timeWeightedIntegralOf, timeWeightedMeanOf } from "./metrics/Numbers.ts"
import { sportProfile } from "./metrics/SportProfile.ts"
import { computeSplits } from "./metrics/Splits.ts"
import { trustedDistance } from "./metrics/TrustedDistance.ts"
import { buildStreams } from "./metrics/Streams.ts"
import { computeLengths, swimFigures, withDistanceOfLengths } from "./metrics/Swim.ts"
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
  /** when the file was imported (epoch ms; now when absent): the stand-in start of an activity whose date is unknown */
  readonly importedAt?: number
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

export const computeActivity = (file: ParsedActivity, context: ComputeContext): ActivityDraft => {
  const parsed = file.dateUnknown === true ? atStandIn(file, context.importedAt ?? Date.now()) : file
  const { totals, sportType } = parsed
  const profile = sportProfile(sportType)
  const swimming = SWIMS.has(sportType)
  const poolLength = swimming && isNum(parsed.poolLengthMeters) && parsed.poolLengthMeters > 0 ? parsed.poolLengthMeters : null
  const parsedLengths = poolLength !== null ? parsed.lengths ?? [] : []
  // a pool swim's records often carry no distance: its lengths tell it
  const measured = poolLength !== null ? withDistanceOfLengths(parsed.samples, parsedLengths, poolLength) : parsed.samples
  // steps per minute on foot, whatever the device counted
  const cadenceFactor = stepsFactor(sportType, measured.cadence, totals.averageCadence)
  const samples = cadenceFactor === 1 ? measured : { ...measured, cadence: scaleCadence(measured.cadence, cadenceFactor) as Array<number | null> }
  // the activity starts at its start or at its first sample, whichever is first: its streams and laps start at 0
  const startTime = samples.time.length > 0 ? Math.min(parsed.startTime, samples.time[0]!) : parsed.startTime
  const motion = computeMotion(samples, startTime, profile)
  const { n, timeS } = motion
  const timesKnown = parsed.timesUnknown !== true
  // a swim in a pool has no altitude to climb, whatever its barometer read
  const inPool = swimming && motion.positionCount < 2
  const altitude = inPool ? new Array<number | null>(n).fill(null) : samples.altitude

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

  // local start time: device offset > zone at the start position > TZ setting > UTC; a device
  // offset of zero where the position's zone is not at UTC then is a watch left on UTC (or one
  // that writes no offset as zero), not the local time: the position places it
  const positionZone = realPlace && startLatLng ? timeZoneAt(startLatLng[0], startLatLng[1]) : null
  const deviceOffset = parsed.utcOffsetSeconds === 0 && positionZone !== null &&
      localInZone(startTime, positionZone) !== localWithOffset(startTime, 0)
    ? null
    : parsed.utcOffsetSeconds
  const startDateLocal = isNum(deviceOffset)
    ? localWithOffset(startTime, deviceOffset)
    : localInZone(
      startTime,
      positionZone ?? (isValidTimeZone(context.fallbackTimeZone) ? context.fallbackTimeZone : "UTC")
    )
  // the stand-in's hour is not the activity's: no time of day in the name of one whose date is unknown
  const name = fileName ?? (parsed.dateUnknown === true ? sportWords(sportType) : defaultName(sportType, Number(startDateLocal.slice(11, 13))))

  // a pool swim's lengths
  const swimLengths = poolLength !== null ? computeLengths(parsedLengths, poolLength, startTime) : []
  const swim = swimLengths.length > 0 ? swimFigures(swimLengths) : null

  // times
  const sampleElapsed = n > 1 ? timeS[n - 1]! - timeS[0]! : 0
  const elapsed = timesKnown ? Math.max(0, Math.round(isNum(totals.elapsedSeconds) ? totals.elapsedSeconds : sampleElapsed)) : 0
  const computedMoving = n > 0 ? motion.movingCum[n - 1]! : 0
  const timer = swim !== null
    ? swim.swumSeconds
    : motion.positionCount < 2 && movedLapsSeconds(parsed.laps) !== null
    ? movedLapsSeconds(parsed.laps)!
    : isNum(totals.timerSeconds)
    ? motion.positionCount >= 2 && n > 0
      ? movingWithinTimer(totals.timerSeconds, computedMoving, computedMoving + motion.stoppedCum[n - 1]!)
      : totals.timerSeconds
    : computedMoving
  const moving = timesKnown ? Math.min(elapsed, Math.max(0, Math.round(timer))) : 0

  // distance, elevation, speed
  const streamDistance = motion.hasDistance ? motion.distance[n - 1]! - motion.distance[0]! : 0
  // splits are computed over the distance stream, one per kilometre and mile: an absurd
  // distance (a single 1e308 sample) must stop the file here, before they are
  const absurdDistance = distanceProblem(streamDistance, "the distance recorded") ??
    distanceProblem(motion.hasDistance ? motion.distance[n - 1]! : 0, "the distance recorded")
  if (absurdDistance !== null) throw impossibleActivity(context.filename, absurdDistance)
  const distance = Math.max(0, Math.trunc(isNum(totals.distanceMeters) ? totals.distanceMeters : streamDistance))
  const smoothedAltitude = smoothAltitude(timeS, altitude, motion.segments)
  const threshold = climbThreshold(altitude, smoothedAltitude)
  const elevation = inPool
    ? 0
    : Math.max(0, Math.round(isNum(totals.ascentMeters) ? totals.ascentMeters : hysteresisGain(smoothedAltitude, 0, n, threshold)))
  // the average is over the moving time, as every platform shows it (a device's own average
  // is over its timer, which counts the stops when auto-pause is off)
  const averageSpeedKmh = moving > 0 ? kmh(distance / moving) : timesKnown && isNum(totals.averageSpeed) ? kmh(totals.averageSpeed) : 0
  // the best efforts (and a swim's best pace) are read from the distance with its GPS jumps bridged
  const trusted = motion.hasDistance ? trustedDistance(motion.distance, timeS, motion.segmentStart, profile).distance : motion.distance
  // an open-water swim's best pace is its fastest 100 m of that distance, as the swimmer reads it:
  // a fix's noise over a few seconds (which a watch's own maximum reads too) is no pace anyone swam
  const openWaterBest = swimming && motion.positionCount >= 2 && motion.hasDistance ? computeBestEfforts([100], trusted, timeS)[0] : undefined
  const maxSpeedKmh = !timesKnown
    ? 0
    : openWaterBest !== undefined
    ? Math.max(averageSpeedKmh, kmh(100 / openWaterBest.elapsedTimeInSeconds))
    : Math.max(averageSpeedKmh, isNum(totals.maxSpeed) ? kmh(totals.maxSpeed) : kmh(robustMaxSpeed(motion.velocity, profile.maxPlausible)))

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
  // the work of the power stream where the device wrote no total: each reading held as for the average
  const work = isNum(totals.workJoules)
    ? totals.workJoules
    : timesKnown
    ? timeWeightedIntegralOf(samples.power, timeS, motion.segmentStart, true, MAX_RECORDING_GAP_S, MAX_HOLD_S)?.integral ?? null
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

  const averageCadence = isNum(totals.averageCadence) && totals.averageCadence > 0
    ? Math.round(totals.averageCadence * cadenceFactor)
    : averageOf(samples.cadence, true)
  const { laps, lengths } = timesKnown
    ? computeLaps(parsed.laps, motion, smoothedAltitude, threshold, samples.heartRate, startTime, {
      elapsed,
      moving,
      distance,
      elevation,
      averageSpeedKmh,
      maxSpeedKmh,
      averageHeartRate
    }, swimming, swimLengths)
    : { laps: [], lengths: [] }
  const efforts = bestEffortDistances(sportType)
  const race = parsed.race !== undefined ? raceOf(parsed.race, startTime) : null
  const streams = buildStreams({ ...samples, altitude }, motion)
  return {
    sportType,
    name,
    description: parsed.description ?? "",
    workoutType: null,
    worldType,
    importSource: importSourceOfFormat(parsed.format),
    startTime,
    startDateLocal,
    distanceInMeter: distance,
    elevationInMeter: elevation,
    movingTimeInSeconds: moving,
    elapsedTimeInSeconds: elapsed,
    averageSpeedInKmPerHour: averageSpeedKmh,
    maxSpeedInKmPerHour: maxSpeedKmh,
    calories,
    kilojoules: isNum(work) && work > 0 ? Math.round(work / 1000) : null,
    averageHeartRate,
    maxHeartRate: intOrNull(isNum(totals.maxHeartRate) ? totals.maxHeartRate : maxOf(samples.heartRate)),
    averagePower,
    maxPower: intOrNull(isNum(totals.maxPower) ? totals.maxPower : maxOf(samples.power)),
    averageCadence,
    isCommute: parsed.commute === true,
    excludeFromRecords: false,
    deviceName: parsed.deviceName,
    gearId: null,
    location,
    passedThroughCountries: countries,
    startLatLng,
    encodedPolyline: encodePolyline(motion.positions),
    hasGpx: motion.positionCount >= 2,
    hasTimes: timesKnown,
    dateUnknown: parsed.dateUnknown === true,
    poolLengthInMeter: poolLength,
    numberOfLengths: swim?.numberOfLengths ?? null,
    strokes: swim?.strokes ?? (swimming && isNum(totals.strokes) && totals.strokes > 0 ? Math.round(totals.strokes) : null),
    swolf: swim?.swolf ?? null,
    multisport: race?.multisport ?? null,
    streams: timesKnown ? streams : withoutTimes(streams),
    laps,
    splits: timesKnown ? splitUnits(sportType).flatMap((unit) => computeSplits(unit, motion, smoothedAltitude, samples.heartRate)) : [],
    bestEfforts: timesKnown && efforts.length > 0 && motion.hasDistance ? computeBestEfforts(efforts, trusted, timeS) : [],
    ...(lengths.length > 0 ? { lengths } : {}),
    ...(race !== null ? { racePart: race.part } : {}),
    ...(parsed.repairs !== undefined && parsed.repairs.length > 0 ? { repairs: parsed.repairs } : {})
  }
}

/**
 * The timer of the laps that moved, when some lap did not (0 m while the timer ran: a rest at a
 * pool's wall, a standing rest between intervals on a treadmill); null otherwise. Without GPS to
 * tell the stops, those laps are the device's own account of them.
 */
const movedLapsSeconds = (laps: ReadonlyArray<ParsedActivity["laps"][number]>): number | null => {
  let moved = 0
  let movedAny = false
  let restAny = false
  for (const lap of laps) {
    const seconds = lap.timerSeconds ?? lap.elapsedSeconds
    if (!isNum(seconds) || seconds <= 0 || !isNum(lap.distanceMeters)) continue
    if (lap.distanceMeters > 0) {
      moved += seconds
      movedAny = true
    } else restAny = true
  }
  return movedAny && restAny ? moved : null
}

/** The splits of a sport: a swim's per 100 m and 100 yd, everything else's per kilometre and mile. */
export const splitUnits = (sport: SportType): ReadonlyArray<SplitUnit> => (SWIMS.has(sport) ? ["100m", "100yd"] : ["km", "mile"])

/**
 * An activity whose date is unknown moved to its stand-in start, `at` rounded to the second (its
 * samples keep their order and spacing): the start columns must hold an instant, and it is not
 * counted by date anyway (the activity's dateUnknown).
 */
const atStandIn = (parsed: ParsedActivity, at: number): ParsedActivity => {
  const shift = Math.floor(at / 1000) * 1000 - parsed.startTime
  return { ...parsed, startTime: parsed.startTime + shift, samples: { ...parsed.samples, time: parsed.samples.time.map((t) => t + shift) } }
}

/** The streams of samples whose times are unknown: what depends on time (the times, speeds, moving) left out. */
const withoutTimes = ({ time: _time, velocity: _velocity, moving: _moving, ...rest }: ActivityStreams): ActivityStreams => rest

/** The race of a leg with its parts' times counted from the race's start, and which part the leg is. */
const raceOf = (race: ParsedRace, legStart: number): { readonly multisport: Multisport; readonly part: number } => {
  const raceStart = Math.min(race.parts[0]?.startTime ?? legStart, legStart)
  return {
    part: race.part,
    multisport: {
      parts: race.parts.map((p) => ({
        kind: p.sportType === null ? "transition" : "leg",
        activityId: null,
        sportType: p.sportType,
        startOffsetInSeconds: Math.round((p.startTime - raceStart) / 1000),
        elapsedTimeInSeconds: Math.round(p.elapsedSeconds)
      }))
    }
  }
}
