import { type ActivityDraft, type ActivityStreams, type EncodedActivityDraft, sampleCount } from "../../schema/ActivityDraft.ts"
import { thinStreams } from "./thinStreams.ts"
import {
  ACTIVITY_BOUNDS as B,
  MAX_DESCRIPTION_LENGTH,
  MAX_DEVICE_NAME_LENGTH,
  MAX_NAME_LENGTH,
  MAX_SAMPLES,
  MAX_SPLITS,
  truncateText
} from "../../schema/ActivityLimits.ts"

/**
 * The one check of a computed activity before it is stored, whether it comes from a file (in
 * the parse worker thread, so plain code without the Effect runtime) or from the external
 * platform: every number finite, every value within what a real activity can reach
 * (ACTIVITY_BOUNDS), the counts of laps, splits, best efforts and samples bounded. Texts too
 * long are cut, streams longer than what is stored are thinned (thinStreams), never refused.
 * A file's impossible samples were dropped before (repairSamples): what is refused here is an
 * activity with nothing usable left. Anything else makes the activity impossible, with the reason
 * naming the value ("the distance 1.8e308 m is impossible ...").
 */
export type ActivityCheck<D> =
  | { readonly _tag: "Valid"; readonly draft: D }
  | { readonly _tag: "Impossible"; readonly reason: string }

/** A number as a person reads it in a message: grouped digits, or an exponent when huge. */
export const formatNumber = (v: number): string => {
  if (!Number.isFinite(v)) return String(v)
  if (Math.abs(v) >= 1e9) return v.toExponential(1).replace(".0e", "e").replace("e+", "e")
  return v.toLocaleString("en-US", { maximumFractionDigits: 1 })
}

const DAY_S = 86_400
/** A duration in the largest unit that fits: "2,000 years", "12.5 days", "3.2 h". */
export const humanDuration = (seconds: number): string =>
  !Number.isFinite(seconds)
    ? String(seconds)
    : Math.abs(seconds) >= 365 * DAY_S
    ? `${formatNumber(seconds / (365.25 * DAY_S))} years`
    : Math.abs(seconds) >= DAY_S
    ? `${formatNumber(seconds / DAY_S)} days`
    : `${formatNumber(seconds / 3600)} h`

const within = (v: number, min: number, max: number): boolean => Number.isFinite(v) && v >= min && v <= max

/** The reason a distance is impossible, or null. Also used before splits are computed over it. */
export const distanceProblem = (meters: number, what = "the distance"): string | null =>
  within(meters, 0, B.maxDistanceMeters)
    ? null
    : `${what} ${formatNumber(meters)} m is impossible (at most ${formatNumber(B.maxDistanceMeters / 1000)} km)`

const durationProblem = (seconds: number, what: string): string | null =>
  within(seconds, 0, B.maxDurationSeconds)
    ? null
    : `${what} ${formatNumber(seconds)} s${Number.isFinite(seconds) && seconds > 0 ? ` (${humanDuration(seconds)})` : ""} is impossible (at most ${humanDuration(B.maxDurationSeconds)})`

const rangeProblem = (v: number, what: string, unit: string, min: number, max: number): string | null =>
  within(v, min, max) ? null : `${what} ${formatNumber(v)}${unit} is impossible (${formatNumber(min)} to ${formatNumber(max)}${unit})`

/** Any finite number from 0 up: for values derived from positions, which a single bad fix inflates. */
const nonNegative = (v: number, what: string, unit: string): string | null =>
  within(v, 0, Number.MAX_VALUE) ? null : `${what} ${formatNumber(v)}${unit} is impossible`

const optionalRange = (v: number | null, what: string, unit: string, max: number): string | null =>
  v === null ? null : rangeProblem(v, what, unit, 0, max)

const startProblem = (startTime: number, now: number): string | null => {
  if (!Number.isFinite(startTime)) return `its start time ${startTime} is not a date`
  if (startTime < B.earliestStart) return `it starts in the year ${new Date(startTime).getUTCFullYear()} (activities start in 1900 or later)`
  if (startTime > now + B.latestStartAheadMs) {
    return `it starts on ${new Date(startTime).toISOString().slice(0, 10)}, in the future`
  }
  return null
}

const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/

const first = (...problems: ReadonlyArray<() => string | null>): string | null => {
  for (const problem of problems) {
    const found = problem()
    if (found !== null) return found
  }
  return null
}

const summaryProblem = (d: ActivityDraft | EncodedActivityDraft, now: number): string | null =>
  first(
    () => startProblem(d.startTime, now),
    () => (LOCAL_DATE_TIME.test(d.startDateLocal) ? null : `its local start time "${truncateText(d.startDateLocal, 40)}" is not a date-time`),
    () => distanceProblem(d.distanceInMeter),
    () => durationProblem(d.elapsedTimeInSeconds, "the elapsed time"),
    () => durationProblem(d.movingTimeInSeconds, "the moving time"),
    () =>
      d.movingTimeInSeconds > d.elapsedTimeInSeconds
        ? `the moving time (${formatNumber(d.movingTimeInSeconds)} s) is longer than the elapsed time (${formatNumber(d.elapsedTimeInSeconds)} s)`
        : null,
    () => rangeProblem(d.averageSpeedInKmPerHour, "the average speed", " km/h", 0, B.maxSpeedKmh),
    () => rangeProblem(d.maxSpeedInKmPerHour, "the maximum speed", " km/h", 0, B.maxSpeedKmh),
    () => {
      // the distance over the whole duration: what a distance glitch leaves behind when the
      // device's own averages are absent or wrong
      if (d.elapsedTimeInSeconds <= 0) return null
      const kmh = (d.distanceInMeter / d.elapsedTimeInSeconds) * 3.6
      return kmh <= B.maxSpeedKmh
        ? null
        : `the distance ${formatNumber(d.distanceInMeter)} m in ${humanDuration(d.elapsedTimeInSeconds)} is impossible (${formatNumber(kmh)} km/h on average; at most ${formatNumber(B.maxSpeedKmh)} km/h)`
    },
    () => rangeProblem(d.elevationInMeter, "the elevation gain", " m", 0, B.maxElevationGainMeters),
    () => optionalRange(d.calories, "the calories", " kcal", B.maxCalories),
    () => optionalRange(d.kilojoules, "the work", " kJ", B.maxKilojoules),
    () => optionalRange(d.averageHeartRate, "the average heart rate", " bpm", B.maxHeartRate),
    () => optionalRange(d.maxHeartRate, "the maximum heart rate", " bpm", B.maxHeartRate),
    () => optionalRange(d.averagePower, "the average power", " W", B.maxPowerWatts),
    () => optionalRange(d.maxPower, "the maximum power", " W", B.maxPowerWatts),
    () => optionalRange(d.averageCadence, "the average cadence", " rpm", B.maxCadence),
    () => {
      const p = d.startLatLng
      if (p === null) return null
      return within(p[0], -90, 90) && within(p[1], -180, 180) ? null : `the start position [${p.map(formatNumber).join(", ")}] is impossible`
    }
  )

/** Speeds of laps and splits are not bounded: one stale GPS fix makes a short split look supersonic. */
const partsProblem = (d: ActivityDraft | EncodedActivityDraft): string | null => {
  if (d.laps.length > B.maxLaps) return `it has ${formatNumber(d.laps.length)} laps (at most ${formatNumber(B.maxLaps)})`
  if (d.splits.length > MAX_SPLITS) return `it has ${formatNumber(d.splits.length)} splits (at most ${formatNumber(MAX_SPLITS)})`
  if (d.bestEfforts.length > B.maxBestEfforts) return `it has ${formatNumber(d.bestEfforts.length)} best efforts (at most ${B.maxBestEfforts})`
  for (const lap of d.laps) {
    const what = `lap ${lap.lapIndex}`
    const found = first(
      () => durationProblem(lap.elapsedTimeInSeconds, `the elapsed time of ${what}`),
      () => durationProblem(lap.movingTimeInSeconds, `the moving time of ${what}`),
      () => rangeProblem(lap.startOffsetSeconds, `the start of ${what} at`, " s", -B.maxDurationSeconds, B.maxDurationSeconds),
      () => distanceProblem(lap.distanceInMeter, `the distance of ${what}`),
      () => rangeProblem(lap.elevationInMeter, `the elevation gain of ${what}`, " m", 0, B.maxElevationGainMeters),
      () => nonNegative(lap.averageSpeedInKmPerHour, `the average speed of ${what}`, " km/h"),
      () => nonNegative(lap.maxSpeedInKmPerHour, `the maximum speed of ${what}`, " km/h"),
      () => optionalRange(lap.averageHeartRate, `the average heart rate of ${what}`, " bpm", B.maxHeartRate)
    )
    if (found !== null) return found
  }
  const altitudeSpan = B.maxAltitudeMeters - B.minAltitudeMeters
  for (const split of d.splits) {
    const what = `${split.unit} split ${split.splitIndex}`
    const found = first(
      () => distanceProblem(split.distanceInMeter, `the distance of ${what}`),
      () => durationProblem(split.elapsedTimeInSeconds, `the elapsed time of ${what}`),
      () => durationProblem(split.movingTimeInSeconds, `the moving time of ${what}`),
      () => rangeProblem(split.elevationDifferenceInMeter, `the elevation difference of ${what}`, " m", -altitudeSpan, altitudeSpan),
      () => nonNegative(split.averageSpeedInKmPerHour, `the average speed of ${what}`, " km/h"),
      () => optionalRange(split.averageHeartRate, `the average heart rate of ${what}`, " bpm", B.maxHeartRate)
    )
    if (found !== null) return found
  }
  for (const effort of d.bestEfforts) {
    const found = first(
      () => distanceProblem(effort.distanceInMeter, "the distance of a best effort"),
      () => durationProblem(effort.timeInSeconds, `the best effort time over ${formatNumber(effort.distanceInMeter)} m`),
      () => rangeProblem(effort.startOffsetSeconds, "the start of a best effort at", " s", -B.maxDurationSeconds, B.maxDurationSeconds)
    )
    if (found !== null) return found
  }
  return null
}

const numericStream = (
  values: ReadonlyArray<number> | undefined,
  what: string,
  unit: string,
  min: number,
  max: number
): string | null => {
  if (values === undefined) return null
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!
    if (!within(v, min, max)) return `the ${what} sample ${formatNumber(v)}${unit} is impossible (${formatNumber(min)} to ${formatNumber(max)}${unit})`
  }
  return null
}

const streamsProblem = (s: ActivityStreams): string | null => {
  const n = sampleCount(s)
  if (n > MAX_SAMPLES) return `it has ${formatNumber(n)} samples (at most ${formatNumber(MAX_SAMPLES)})`
  for (const [key, values] of Object.entries(s)) {
    if (Array.isArray(values) && values.length !== n) return `its ${key} stream has ${values.length} samples for ${n} times`
  }
  if (s.latlng !== undefined) {
    for (let i = 0; i < s.latlng.length; i++) {
      const p = s.latlng[i]!
      if (p !== null && !(within(p[0], -90, 90) && within(p[1], -180, 180))) return `the position sample [${p.map(formatNumber).join(", ")}] is impossible`
    }
  }
  return first(
    () => numericStream(s.time, "time", " s", -B.maxDurationSeconds, B.maxDurationSeconds),
    () => numericStream(s.distance, "distance", " m", -B.maxDistanceMeters, B.maxDistanceMeters),
    () => numericStream(s.altitude, "altitude", " m", B.minAltitudeMeters, B.maxAltitudeMeters),
    // velocity is derived from positions: a stale first fix far away makes a spike, which the
    // summary's maximum speed filters out; only a number is required here
    () => {
      const velocity = s.velocity_smooth ?? []
      for (let i = 0; i < velocity.length; i++) {
        const found = nonNegative(velocity[i]!, "the speed sample", " m/s")
        if (found !== null) return found
      }
      return null
    },
    () => numericStream(s.heartrate, "heart rate", " bpm", 0, B.maxHeartRate),
    () => numericStream(s.cadence, "cadence", " rpm", 0, B.maxCadence),
    () => numericStream(s.watts, "power", " W", 0, B.maxPowerWatts),
    () => numericStream(s.temp, "temperature", " °C", B.minTemperatureCelsius, B.maxTemperatureCelsius)
  )
}

/**
 * Checks an activity before it is stored; `now` decides what "tomorrow" is. The streams are
 * checked when the draft still carries them (an encoded draft was checked before encoding).
 */
export const validateActivity = <D extends ActivityDraft | EncodedActivityDraft>(draft: D, now: number = Date.now()): ActivityCheck<D> => {
  const reason = summaryProblem(draft, now) ?? partsProblem(draft) ??
    ("streams" in draft ? streamsProblem((draft as ActivityDraft).streams) : null)
  if (reason !== null) return { _tag: "Impossible", reason }
  const name = truncateText(draft.name, MAX_NAME_LENGTH)
  const description = truncateText(draft.description, MAX_DESCRIPTION_LENGTH)
  const deviceName = draft.deviceName === null ? null : truncateText(draft.deviceName, MAX_DEVICE_NAME_LENGTH)
  const unchanged = name === draft.name && description === draft.description && deviceName === draft.deviceName
  const checked = unchanged ? draft : { ...draft, name, description, deviceName }
  // a long recording is stored thinned: its totals were computed from every sample
  const streams = "streams" in checked ? (checked as ActivityDraft).streams : null
  const stored = streams === null ? streams : thinStreams(streams)
  return { _tag: "Valid", draft: stored === streams ? checked : { ...checked, streams: stored } }
}
