import { parseNumber } from "./samples.ts"
import type { DeviceTotals } from "../../../schema/ParsedActivity.ts"
import { child, isNode, text, type XmlNode } from "./xml.ts"

/**
 * Activity summaries some GPX writers add to the track points:
 * `<calories>` in the track extensions, Garmin's TrackStatsExtension (the device's totals of a
 * track, as Garmin's handhelds and this service's export write them), and a FitoTrack-style
 * `Workout(...)` dump of the app's workout record in `<metadata><name>`.
 */

const MAX_EXTENSION_DEPTH = 8

/** Sum of the numeric `<calories>` elements (any namespace) under a node, searched to a bounded depth. */
const caloriesUnder = (node: unknown, depth: number): number | null => {
  if (!isNode(node) || depth > MAX_EXTENSION_DEPTH) return null
  let total: number | null = null
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith("@_")) continue
    for (const item of Array.isArray(value) ? value : [value]) {
      const found = key.toLowerCase() === "calories"
        ? parseNumber(isNode(item) ? item["#text"] : item)
        : caloriesUnder(item, depth + 1)
      if (found !== null && found >= 0) total = (total ?? 0) + found
    }
  }
  return total
}

/** Total kcal the tracks state in their `<extensions>` (summed over the tracks), or null when none does. */
export const trackCalories = (tracks: ReadonlyArray<XmlNode>): number | null => {
  let total: number | null = null
  for (const trk of tracks) {
    const found = caloriesUnder(trk["extensions"], 0)
    if (found !== null) total = (total ?? 0) + found
  }
  return total === null ? null : Math.round(total)
}

/** What a `Workout(...)` summary says; each value null when absent or implausible. */
export interface WorkoutSummary {
  readonly distanceMeters: number | null
  /** end − start */
  readonly elapsedSeconds: number | null
  /** activeDuration: the app's moving time */
  readonly timerSeconds: number | null
  readonly calories: number | null
  /** the user's comment */
  readonly description: string | null
  /** workoutTypeId: the sport the app recorded ("walking", "running") */
  readonly sport: string | null
}

const SUMMARY = /^([A-Za-z_][A-Za-z0-9_.$]*)\((.+)\)$/s
/** Splits "a=1, comment=x, y (z), b=2" before each `key=`, so values may hold commas and parentheses. */
const FIELD_SEPARATOR = /,\s*(?=[A-Za-z_][A-Za-z0-9_]*=)/
const SUMMARY_FIELDS = ["start", "end", "distance", "activeDuration"] as const
const MAX_SUMMARY_LENGTH = 4096
/** Epoch milliseconds after 2001-09-09: smaller `start`/`end` values are not millisecond timestamps. */
const MIN_EPOCH_MS = 1e12
const MAX_SECONDS = 7 * 24 * 3600
const MAX_DISTANCE_M = 1_000_000
const MAX_KCAL = 20_000
const JOULES_PER_KCAL = 4184

const fieldsOf = (body: string): Map<string, string> => {
  const fields = new Map<string, string>()
  for (const pair of body.split(FIELD_SEPARATOR)) {
    const eq = pair.indexOf("=")
    if (eq <= 0) continue
    const key = pair.slice(0, eq).trim()
    const value = pair.slice(eq + 1).trim()
    if (key !== "" && value !== "") fields.set(key, value)
  }
  return fields
}

/** A value above 0 and at most `max`, else null. */
const within = (value: number | null, max: number): number | null =>
  value !== null && value > 0 && value <= max ? value : null

/**
 * Parses a FitoTrack-style `Workout(start=…, end=…, activeDuration=…, distance=…, energy=…,
 * comment=…)` summary (times in epoch ms, durations in ms, energy in joules); null when the text
 * is not one (a plain name, another entity, none of start/end/distance/activeDuration).
 */
export const workoutSummary = (text: string | null): WorkoutSummary | null => {
  if (text === null || text.length > MAX_SUMMARY_LENGTH) return null
  const match = SUMMARY.exec(text.trim())
  if (match === null || match[1]!.toLowerCase() !== "workout") return null
  const fields = fieldsOf(match[2]!)
  if (!SUMMARY_FIELDS.some((f) => fields.has(f))) return null
  const number = (key: string): number | null => parseNumber(fields.get(key))
  const start = number("start")
  const end = number("end")
  const epochs = start !== null && end !== null && start >= MIN_EPOCH_MS && end >= MIN_EPOCH_MS
  const active = number("activeDuration")
  const energy = number("energy")
  const kcal = energy !== null ? Math.round(energy / JOULES_PER_KCAL) : null
  return {
    distanceMeters: within(number("distance"), MAX_DISTANCE_M),
    elapsedSeconds: epochs ? within(Math.round((end! - start!) / 1000), MAX_SECONDS) : null,
    timerSeconds: active !== null ? within(Math.round(active / 1000), MAX_SECONDS) : null,
    calories: within(kcal, MAX_KCAL),
    description: fields.get("comment") ?? null,
    sport: fields.get("workoutTypeId") ?? null
  }
}

/** What a Garmin TrackStatsExtension states: the recording's own totals, each null when absent or negative. */
export type TrackStats = Pick<DeviceTotals,
  "distanceMeters" | "elapsedSeconds" | "timerSeconds" | "ascentMeters" | "averageHeartRate" | "maxHeartRate" | "averageCadence" | "maxSpeed">

/**
 * The TrackStatsExtension of a track (`<trk><extensions>`), or of the file (`<metadata><extensions>`):
 * Distance (m), TimerTime (else MovingTime) and TotalElapsedTime (s), Ascent (m), AvgHeartRate,
 * MaxHeartRate, AvgCadence, MaxSpeed (m/s). Null when there is none. Its Calories are read with
 * the other `<calories>` (trackCalories).
 */
export const trackStats = (owner: XmlNode | undefined): TrackStats | null => {
  const stats = child(child(owner, "extensions"), "TrackStatsExtension")
  if (stats === undefined) return null
  const value = (key: string) => {
    const n = parseNumber(text(stats, key))
    return n !== null && n >= 0 ? n : null
  }
  return {
    distanceMeters: value("Distance"),
    elapsedSeconds: value("TotalElapsedTime"),
    timerSeconds: value("TimerTime") ?? value("MovingTime"),
    ascentMeters: value("Ascent"),
    averageHeartRate: value("AvgHeartRate"),
    maxHeartRate: value("MaxHeartRate"),
    averageCadence: value("AvgCadence"),
    maxSpeed: value("MaxSpeed")
  }
}
