import { ACTIVITY_BOUNDS as B } from "../../../schema/ActivityLimits.ts"
import type { DeviceTotals, ParsedActivity, ParsedLap, ParsedSamples } from "../../../schema/ParsedActivity.ts"
import { formatNumber, humanDuration } from "../../activities/validateActivity.ts"
import { metresBetween } from "../metrics/GpsTrack.ts"
import { sportProfile } from "../metrics/SportProfile.ts"

/**
 * Repairs what a real recording gets wrong, sample by sample, before anything is computed from
 * it: a device's clock that leaps (years ahead after a recording gap) or reads a date before
 * 1900 or after tomorrow, a position far off the track, an altitude, heart-rate or distance
 * spike, a value no sensor can give, and device totals no activity reaches. What is impossible
 * is dropped and the activity is computed from the rest; the device's own totals stay the
 * reference wherever they are possible. Each repair is named in plain words (`repairs`), so
 * that the import says what was dropped. Sensors that recorded nothing but zeros, and totals
 * of 0 without any such data, are absent (null), not 0.
 */

/**
 * A recording gap longer than this is looked at: a real pause (a rest day of a multi-day
 * recording) or the device's clock leaping (see repairTimes).
 */
export const CLOCK_LEAP_MS = 24 * 3600 * 1000
/** A gap longer than any activity lasts (ACTIVITY_BOUNDS.maxDurationSeconds) is a leap, whatever else the file says. */
const ABSURD_GAP_MS = B.maxDurationSeconds * 1000
/** A rest resumes where it stopped: the first fix after it within this of the last fix before it (m). */
const RESUMED_WITHIN_M = 2000
/** A speed sample this far (m/s) from both neighbours, reached and left at over SPEED_SPIKE_RATE (m/s²), is a glitch. */
const SPEED_SPIKE_MS = 5
const SPEED_SPIKE_RATE = 5
/** A heart rate held unchanged longer than this (s), over at least HELD_HEART_RATE_SAMPLES samples, is no reading. */
const HELD_HEART_RATE_S = 600
const HELD_HEART_RATE_SAMPLES = 20

const possibleDate = (t: number, now: number) => t >= B.earliestStart && t <= now + B.latestStartAheadMs

type Column = keyof Omit<ParsedSamples, "segmentStarts" | "time">
const COLUMNS: ReadonlyArray<Column> = ["lat", "lng", "altitude", "distance", "speed", "heartRate", "cadence", "power", "temperature"]

const plural = (n: number, one: string, many = `${one}s`) => `${formatNumber(n)} ${n === 1 ? one : many}`

/** The samples whose keep flag is set, segment starts moved to the next kept sample. */
const keepSamples = (s: ParsedSamples, keep: Uint8Array): ParsedSamples => {
  const index = new Int32Array(keep.length + 1)
  let kept = 0
  for (let i = 0; i < keep.length; i++) {
    index[i] = kept
    if (keep[i]) kept++
  }
  index[keep.length] = kept
  const pick = <A>(values: ReadonlyArray<A>): Array<A> => {
    const out: Array<A> = []
    for (let i = 0; i < values.length; i++) if (keep[i]) out.push(values[i]!)
    return out
  }
  const starts = new Set<number>()
  for (const start of s.segmentStarts) {
    const at = index[start]!
    if (at > 0 && at < kept) starts.add(at)
  }
  const out = { time: pick(s.time), segmentStarts: [...starts].sort((a, b) => a - b) } as Record<string, unknown>
  for (const c of COLUMNS) out[c] = pick(s[c])
  return out as unknown as ParsedSamples
}

interface TimeRepair {
  readonly keep: Uint8Array
  /** samples dated before the earliest start or after tomorrow */
  readonly misdated: number
  /** samples on the far side of a clock leap, and the longest leap */
  readonly leapt: number
  readonly leapMs: number
}

/**
 * Drops samples dated outside what a recording can be, then looks at each gap longer than
 * CLOCK_LEAP_MS. It is a real pause, kept, unless it is a clock leap: an absurd jump (longer
 * than any activity lasts), samples beyond the device's own elapsed time (its session does not
 * span the gap), or, where the file has no such total, positions that do not continue (the
 * first fix after the gap far from the last before it: not where a rest resumes). Of samples
 * split by leaps, the part with the most samples is kept: the others are on the far side.
 */
const repairTimes = (
  time: ReadonlyArray<number>,
  now: number,
  elapsedSeconds: number | null,
  lat: ReadonlyArray<number | null>,
  lng: ReadonlyArray<number | null>
): TimeRepair => {
  const keep = new Uint8Array(time.length)
  let misdated = 0
  for (let i = 0; i < time.length; i++) {
    if (possibleDate(time[i]!, now)) keep[i] = 1
    else misdated++
  }
  // a file dated wholly outside them has nothing to keep: its date is refused as it stands
  if (misdated === time.length) return { keep: keep.fill(1), misdated: 0, leapt: 0, leapMs: 0 }
  // the parts between long gaps, as [from, to) over the kept samples (time is sorted)
  const parts: Array<{ from: number; to: number; count: number }> = []
  let last = -1
  for (let i = 0; i < time.length; i++) {
    if (!keep[i]) continue
    if (last === -1 || time[i]! - time[last]! > CLOCK_LEAP_MS) parts.push({ from: i, to: i + 1, count: 0 })
    const part = parts[parts.length - 1]!
    part.to = i + 1
    part.count++
    last = i
  }
  if (parts.length <= 1) return { keep, misdated, leapt: 0, leapMs: 0 }
  const main = parts.reduce((best, p, k) => (p.count > parts[best]!.count ? k : best), 0)
  const fix = (i: number) => (keep[i] && lat[i] !== null && lng[i] !== null ? [lat[i]!, lng[i]!] as const : null)
  const lastFix = (p: { from: number; to: number }) => {
    for (let i = p.to - 1; i >= p.from; i--) if (fix(i) !== null) return fix(i)
    return null
  }
  const firstFix = (p: { from: number; to: number }) => {
    for (let i = p.from; i < p.to; i++) if (fix(i) !== null) return fix(i)
    return null
  }
  /** Whether the gap between parts a and a+1 is a clock leap. */
  const leapAfter = (a: number): boolean => {
    const before = parts[a]!
    const after = parts[a + 1]!
    const gap = time[after.from]! - time[before.to - 1]!
    if (gap > ABSURD_GAP_MS) return true
    if (elapsedSeconds !== null) {
      // the main part and this gap together: within the device's session, or beyond it
      const from = Math.min(time[parts[main]!.from]!, time[before.from]!)
      const to = Math.max(time[parts[main]!.to - 1]!, time[after.to - 1]!)
      return (to - from) / 1000 > elapsedSeconds + Math.max(600, elapsedSeconds * 0.05)
    }
    const p = lastFix(before)
    const q = firstFix(after)
    return p !== null && q !== null && metresBetween(p[0], p[1], q[0], q[1]) > RESUMED_WITHIN_M
  }
  // the parts joined by real pauses make one recording; the one holding the main part is kept
  let from = main
  while (from > 0 && !leapAfter(from - 1)) from--
  let to = main
  while (to + 1 < parts.length && !leapAfter(to)) to++
  let leapt = 0
  let leapMs = 0
  for (const [k, p] of parts.entries()) {
    if (k >= from && k <= to) continue
    leapt += p.count
    for (let i = p.from; i < p.to; i++) keep[i] = 0
    // the gap on this part's side towards the part kept
    const gap = k < from ? time[parts[k + 1]!.from]! - time[p.to - 1]! : time[p.from]! - time[parts[k - 1]!.to - 1]!
    leapMs = Math.max(leapMs, gap)
  }
  return { keep, misdated, leapt, leapMs }
}

/** Nulls values outside [min, max]; the number nulled. */
const clip = (values: Array<number | null>, min: number, max: number): number => {
  let nulled = 0
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (v !== null && v !== undefined && !(v >= min && v <= max)) {
      values[i] = null
      nulled++
    }
  }
  return nulled
}

/**
 * Nulls isolated spikes: a value further than `jump` from both recorded neighbours, on the
 * same side, at more than `rate` per second, while the neighbours agree with each other.
 */
const despike = (values: Array<number | null>, time: ReadonlyArray<number>, jump: number, rate: number): number => {
  const at: Array<number> = []
  for (let i = 0; i < values.length; i++) if (values[i] !== null) at.push(i)
  const spikes: Array<number> = []
  for (let k = 1; k + 1 < at.length; k++) {
    // three reads, not a destructured array: this runs for every sample of every stream
    const a = values[at[k - 1]!]!
    const b = values[at[k]!]!
    const c = values[at[k + 1]!]!
    const up = b - a
    const down = b - c
    if (Math.abs(up) <= jump || Math.abs(down) <= jump || Math.sign(up) !== Math.sign(down) || Math.abs(a - c) > jump / 2) continue
    const before = Math.max(1, (time[at[k]!]! - time[at[k - 1]!]!) / 1000)
    const after = Math.max(1, (time[at[k + 1]!]! - time[at[k]!]!) / 1000)
    if (Math.abs(up) / before > rate && Math.abs(down) / after > rate) spikes.push(at[k]!)
  }
  for (const i of spikes) values[i] = null
  return spikes.length
}

/**
 * Nulls positions off the track: one that is more than a kilometre from both neighbouring
 * fixes at a speed the sport cannot reach, while the neighbours are within reach of each other
 * (at the ends of the track, the fix whose only neighbour is out of reach of it).
 */
const offTrack = (s: ParsedSamples, limit: number): number => {
  const at: Array<number> = []
  for (let i = 0; i < s.lat.length; i++) if (s.lat[i] !== null && s.lng[i] !== null) at.push(i)
  const metres = (i: number, j: number) => metresBetween(s.lat[i]!, s.lng[i]!, s.lat[j]!, s.lng[j]!)
  const perSecond = (d: number, i: number, j: number) => d / Math.max(1, Math.abs(s.time[j]! - s.time[i]!) / 1000)
  const far = (i: number, j: number) => {
    const d = metres(i, j)
    return d > 1000 && perSecond(d, i, j) > limit
  }
  const off: Array<number> = []
  for (let k = 0; k < at.length; k++) {
    const prev = k > 0 ? at[k - 1]! : null
    const next = k + 1 < at.length ? at[k + 1]! : null
    const i = at[k]!
    if (prev !== null && next !== null) {
      if (far(prev, i) && far(i, next) && perSecond(metres(prev, next), prev, next) <= limit) off.push(i)
    } else if (prev === null && next !== null && k + 2 < at.length) {
      if (far(i, next) && !far(next, at[k + 2]!)) off.push(i)
    } else if (next === null && prev !== null && k >= 2) {
      if (far(prev, i) && !far(at[k - 2]!, prev)) off.push(i)
    }
  }
  for (const i of off) {
    s.lat[i] = null
    s.lng[i] = null
  }
  return off.length
}

/**
 * Nulls runs of one heart rate held unchanged for over HELD_HEART_RATE_S and at least
 * HELD_HEART_RATE_SAMPLES samples: no heart beats that evenly; an exporter fills the time
 * without a reading so (Strava writes a swim's first reading over the whole swim). The number nulled.
 */
const heldHeartRate = (values: Array<number | null>, time: ReadonlyArray<number>): number => {
  let nulled = 0
  let from = 0
  for (let i = 1; i <= values.length; i++) {
    if (i < values.length && values[i] === values[from]) continue
    const value = values[from]
    if (value !== null && value !== undefined && i - from >= HELD_HEART_RATE_SAMPLES && (time[i - 1]! - time[from]!) / 1000 > HELD_HEART_RATE_S) {
      for (let k = from; k < i; k++) values[k] = null
      nulled += i - from
    }
    from = i
  }
  return nulled
}

/** Nulls a column that recorded nothing but zeros (a sensor field written without the sensor). */
const absentIfNoReading = (values: Array<number | null>): boolean => {
  const read = values.some((v) => v !== null && v !== 0)
  if (!read) values.fill(null)
  return read
}

type TotalKey = Exclude<keyof DeviceTotals, "strokes">
const TOTAL_BOUNDS: ReadonlyArray<readonly [TotalKey, string, string, number]> = [
  ["distanceMeters", "distance", " m", B.maxDistanceMeters],
  ["elapsedSeconds", "elapsed time", " s", B.maxDurationSeconds],
  ["timerSeconds", "timer time", " s", B.maxDurationSeconds],
  ["ascentMeters", "ascent", " m", B.maxElevationGainMeters],
  ["calories", "calories", " kcal", B.maxCalories],
  ["workJoules", "work", " J", B.maxKilojoules * 1000],
  ["averageHeartRate", "average heart rate", " bpm", B.maxHeartRate],
  ["maxHeartRate", "maximum heart rate", " bpm", B.maxHeartRate],
  ["averagePower", "average power", " W", B.maxPowerWatts],
  ["maxPower", "maximum power", " W", B.maxPowerWatts],
  ["averageCadence", "average cadence", " rpm", B.maxCadence],
  ["averageSpeed", "average speed", " m/s", B.maxSpeedKmh / 3.6],
  ["maxSpeed", "maximum speed", " m/s", B.maxSpeedKmh / 3.6]
]

const LAP_BOUNDS: ReadonlyArray<readonly [Exclude<keyof ParsedLap, "strokes" | "strokeType">, number]> = [
  ["elapsedSeconds", B.maxDurationSeconds],
  ["timerSeconds", B.maxDurationSeconds],
  ["distanceMeters", B.maxDistanceMeters],
  ["ascentMeters", B.maxElevationGainMeters],
  ["averageSpeed", B.maxSpeedKmh / 3.6],
  ["maxSpeed", B.maxSpeedKmh / 3.6],
  ["averageHeartRate", B.maxHeartRate],
  ["maxHeartRate", B.maxHeartRate],
  ["calories", B.maxCalories]
]

const within = (v: number, max: number) => Number.isFinite(v) && v >= 0 && v <= max

/** A device's elapsed time, when it is one an activity can have. */
const possibleTotal = (seconds: number | null): number | null =>
  seconds !== null && within(seconds, B.maxDurationSeconds) ? seconds : null

/** Whether anything of an activity remains to be imported. */
export const isUsable = (a: ParsedActivity): boolean =>
  a.samples.time.length > 0 || a.totals.elapsedSeconds !== null || a.totals.timerSeconds !== null

/** `parsed` with its impossible samples and totals dropped, and `repairs` naming them. */
export const repairActivity = (parsed: ParsedActivity, now: number = Date.now()): ParsedActivity => {
  const repairs: Array<string> = [...(parsed.repairs ?? [])]
  const times = repairTimes(parsed.samples.time, now, possibleTotal(parsed.totals.elapsedSeconds), parsed.samples.lat, parsed.samples.lng)
  const timesDropped = times.misdated + times.leapt
  const samples = timesDropped > 0 ? keepSamples(parsed.samples, times.keep) : copyColumns(parsed.samples)
  if (times.leapt > 0) {
    repairs.push(`dropped ${plural(times.leapt, "sample")} recorded across a clock leap of ${humanDuration(times.leapMs / 1000)}`)
  }
  if (times.misdated > 0) {
    repairs.push(`dropped ${plural(times.misdated, "sample")} dated before ${new Date(B.earliestStart).getUTCFullYear()} or after tomorrow`)
  }

  // values no sensor gives
  const ranges: ReadonlyArray<readonly [Column, string, number, number]> = [
    ["altitude", "altitude", B.minAltitudeMeters, B.maxAltitudeMeters],
    ["distance", "distance", 0, B.maxDistanceMeters],
    ["speed", "speed", 0, B.maxSpeedKmh / 3.6],
    ["heartRate", "heart-rate", 0, B.maxHeartRate],
    ["cadence", "cadence", 0, B.maxCadence],
    ["power", "power", 0, B.maxPowerWatts],
    ["temperature", "temperature", B.minTemperatureCelsius, B.maxTemperatureCelsius]
  ]
  for (const [column, what, min, max] of ranges) {
    const nulled = clip(samples[column], min, max)
    if (nulled > 0) repairs.push(`ignored ${plural(nulled, `impossible ${what} value`)}`)
  }
  // spikes: a barometer does not climb 100 m at 20 m/s and come back; nor a heart 60 bpm in seconds
  const altitudeSpikes = despike(samples.altitude, samples.time, 100, 20)
  if (altitudeSpikes > 0) repairs.push(`ignored ${plural(altitudeSpikes, "altitude spike")}`)
  const held = heldHeartRate(samples.heartRate, samples.time)
  if (held > 0) repairs.push(`ignored ${plural(held, "heart-rate sample")} held unchanged for over ${HELD_HEART_RATE_S / 60} minutes (no reading)`)
  const heartSpikes = despike(samples.heartRate, samples.time, 60, 15)
  if (heartSpikes > 0) repairs.push(`ignored ${plural(heartSpikes, "heart-rate spike")}`)
  const distanceSpikes = despike(samples.distance, samples.time, 1000, B.maxSpeedKmh / 3.6)
  if (distanceSpikes > 0) repairs.push(`ignored ${plural(distanceSpikes, "distance spike")}`)
  // nor does anything ridden, run or paddled gain 5 m/s (18 km/h) at over 5 m/s² and lose it
  // again: a GPS glitch, which would otherwise be the maximum speed
  const speedSpikes = despike(samples.speed, samples.time, SPEED_SPIKE_MS, SPEED_SPIKE_RATE)
  if (speedSpikes > 0) repairs.push(`ignored ${plural(speedSpikes, "speed spike")}`)
  const profile = sportProfile(parsed.sportType)
  // a route whose times are unknown has no speed between its points to judge them by
  const off = parsed.timesUnknown === true ? 0 : offTrack(samples, Math.max(2 * profile.maxPlausible, 50))
  if (off > 0) repairs.push(`ignored ${plural(off, "position")} off the track`)

  // absent sensors are null, not 0
  const hasHeartRate = absentIfNoReading(samples.heartRate)
  const hasPower = absentIfNoReading(samples.power)
  const hasCadence = absentIfNoReading(samples.cadence)

  // device totals: the reference where possible
  const totals: { -readonly [K in keyof DeviceTotals]: DeviceTotals[K] } = { ...parsed.totals }
  for (const [key, what, unit, max] of TOTAL_BOUNDS) {
    const v = totals[key]
    if (v !== null && !within(v, max)) {
      repairs.push(`ignored the device's ${what} (${formatNumber(v)}${unit}), which is impossible`)
      totals[key] = null
    }
  }
  const zeroIsAbsent = (key: TotalKey, recorded: boolean) => {
    if (totals[key] === 0 && !recorded) totals[key] = null
  }
  zeroIsAbsent("averageHeartRate", hasHeartRate)
  zeroIsAbsent("maxHeartRate", hasHeartRate)
  zeroIsAbsent("averagePower", hasPower)
  zeroIsAbsent("maxPower", hasPower)
  zeroIsAbsent("averageCadence", hasCadence)
  zeroIsAbsent("calories", false)
  zeroIsAbsent("workJoules", hasPower)

  const n = samples.time.length
  const first = samples.time[0]
  const last = samples.time[n - 1]
  const span = first !== undefined && last !== undefined ? (last - first) / 1000 : 0
  // the device's elapsed time counts the leap too: the samples kept say how long it lasted
  if (times.leapt > 0 && totals.elapsedSeconds !== null && totals.elapsedSeconds > span + CLOCK_LEAP_MS / 1000) {
    totals.elapsedSeconds = Math.max(span, totals.timerSeconds ?? 0)
  }
  const duration = totals.elapsedSeconds ?? span
  if (totals.distanceMeters !== null && duration > 0 && (totals.distanceMeters / duration) * 3.6 > B.maxSpeedKmh) {
    repairs.push(`ignored the device's distance (${formatNumber(totals.distanceMeters)} m in ${humanDuration(duration)}), which is impossible`)
    totals.distanceMeters = null
  }

  // laps: within what was kept, their impossible values and absent zeros left out
  let lapsDropped = 0
  let lapValues = 0
  const laps: Array<ParsedLap> = []
  for (const lap of parsed.laps) {
    if (timesDropped > 0 && first !== undefined && last !== undefined &&
      (lap.startTime < first - CLOCK_LEAP_MS || lap.startTime > last + CLOCK_LEAP_MS)) {
      lapsDropped++
      continue
    }
    const fixed: Record<string, unknown> = { ...lap }
    for (const [key, max] of LAP_BOUNDS) {
      const v = lap[key]
      if (v !== null && !within(v, max)) {
        fixed[key] = null
        lapValues++
      }
    }
    if (lap.averageHeartRate === 0 && !hasHeartRate) fixed["averageHeartRate"] = null
    if (lap.maxHeartRate === 0 && !hasHeartRate) fixed["maxHeartRate"] = null
    if (lap.calories === 0) fixed["calories"] = null
    laps.push(fixed as unknown as ParsedLap)
  }
  if (lapsDropped > 0) repairs.push(`dropped ${plural(lapsDropped, "lap")} recorded across the clock leap`)
  if (lapValues > 0) repairs.push(`ignored ${plural(lapValues, "impossible lap value")}`)

  // the start: the device's, unless it lies on the far side of a leap
  const startTime = first !== undefined &&
      ((timesDropped > 0 && Math.abs(parsed.startTime - first) > CLOCK_LEAP_MS) || !possibleDate(parsed.startTime, now))
    ? first
    : parsed.startTime
  return { ...parsed, startTime, samples, totals, laps, repairs }
}

/** The columns copied, so that repairs never change the parser's arrays. */
const copyColumns = (s: ParsedSamples): ParsedSamples => {
  const out = { time: s.time, segmentStarts: s.segmentStarts } as Record<string, unknown>
  for (const c of COLUMNS) out[c] = s[c].slice()
  return out as unknown as ParsedSamples
}

/** One sentence over every activity of a file: what was dropped, or null when nothing was. */
export const repairNote = (repairs: ReadonlyArray<string>): string | null => {
  const unique = [...new Set(repairs)]
  if (unique.length === 0) return null
  return `Repaired: ${unique.join("; ")}.`
}
