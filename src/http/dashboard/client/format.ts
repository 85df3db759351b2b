import { config, imperial } from "./config.ts"

/** Numbers in the athlete's units (UNIT_SYSTEM) and dates in their local time. */

const MILE = 1609.344
const FOOT = 0.3048
const YARD = 0.9144

// formatters made once: toLocaleString with options makes a new one for every number of a table
const numberFormats = new Map<number, Intl.NumberFormat>()
const number = (value: number, digits: number) => {
  let f = numberFormats.get(digits)
  if (f === undefined) numberFormats.set(digits, f = new Intl.NumberFormat(undefined, { minimumFractionDigits: digits, maximumFractionDigits: digits }))
  return f.format(value)
}

export const distanceUnit = imperial ? "mi" : "km"
export const elevationUnit = imperial ? "ft" : "m"
export const speedUnit = imperial ? "mph" : "km/h"

export const toDistanceUnit = (meters: number) => meters / (imperial ? MILE : 1000)
export const toElevationUnit = (meters: number) => (imperial ? meters / FOOT : meters)
export const toSpeedUnit = (metersPerSecond: number) => metersPerSecond * (imperial ? 3600 / MILE : 3.6)

export const distance = (meters: number) => `${number(toDistanceUnit(meters), toDistanceUnit(meters) < 100 ? 2 : 1)} ${distanceUnit}`
export const elevation = (meters: number) => `${number(toElevationUnit(meters), 0)} ${elevationUnit}`
export const speed = (kmPerHour: number) => `${number(toSpeedUnit(kmPerHour / 3.6), 1)} ${speedUnit}`

/** h:mm:ss, or m:ss under an hour unless `withHours` asks for the hours anyway. */
export const duration = (seconds: number, withHours = Math.round(seconds) >= 3600) => {
  const s = Math.round(seconds)
  const hours = Math.floor(s / 3600)
  const minutes = Math.floor((s % 3600) / 60)
  const rest = String(s % 60).padStart(2, "0")
  return withHours ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`
}

/** One format for durations read together (a column, an axis): h:mm:ss for all once one reaches an hour. */
export const durations = (values: Iterable<number>): ((seconds: number) => string) => {
  let withHours = false
  for (const v of values) withHours ||= Math.round(v) >= 3600
  return (seconds) => duration(seconds, withHours)
}

/** The distance a pace is the time of. */
export type PaceUnit = "km" | "mi" | "100m" | "100yd" | "500m"
export const PACE_METERS: Record<PaceUnit, number> = { km: 1000, mi: MILE, "100m": 100, "100yd": 100 * YARD, "500m": 500 }
export const PACE_LABELS: Record<PaceUnit, string> = { km: "/km", mi: "/mi", "100m": "/100 m", "100yd": "/100 yd", "500m": "/500 m" }

const SWIMS: ReadonlySet<string> = new Set(config.sportGroups.swims)
const ROWS = new Set(["Rowing", "VirtualRow"])
const ON_FOOT = new Set(["Run", "TrailRun", "VirtualRun", "Walk", "Hike"])

export const isSwim = (sportType: string) => SWIMS.has(sportType)

/** The unit a sport's pace is given per (100 m or yd for swims, 500 m for rows), or null for a sport shown by its speed. */
export const paceUnitOf = (sportType: string): PaceUnit | null =>
  SWIMS.has(sportType)
    ? (imperial ? "100yd" : "100m")
    : ROWS.has(sportType)
    ? "500m"
    : ON_FOOT.has(sportType)
    ? (imperial ? "mi" : "km")
    : null

/** Steps a minute on foot, strokes in water, revolutions on wheels. */
export const cadenceUnit = (sportType: string) =>
  /Run|Walk|Hike|Snowshoe/.test(sportType) ? "spm" : SWIMS.has(sportType) || ROWS.has(sportType) ? "strokes/min" : "rpm"

export const isPaced = (sportType: string) => paceUnitOf(sportType) !== null

/** Seconds per `unit` at a speed in m/s; null when not moving. */
export const paceSeconds = (metersPerSecond: number, unit: PaceUnit): number | null =>
  metersPerSecond > 0 ? PACE_METERS[unit] / metersPerSecond : null

/** "5:12 /km" from a speed in m/s. */
export const pace = (metersPerSecond: number, unit: PaceUnit) => {
  const seconds = paceSeconds(metersPerSecond, unit)
  return seconds === null ? "–" : `${duration(seconds)} ${PACE_LABELS[unit]}`
}

export const speedOrPace = (kmPerHour: number, sportType: string) => {
  const unit = paceUnitOf(sportType)
  return unit === null ? speed(kmPerHour) : pace(kmPerHour / 3.6, unit)
}

/** A wall-clock date and time of the browser's calendar, built field by field (years before 100 included). */
const wallClock = (year: number, month: number, day: number, hours = 0, minutes = 0) => {
  const at = new Date(2000, 0, 1, hours, minutes)
  at.setFullYear(year, month - 1, day)
  return at
}

/** Dates always with four-digit years: a short date style would print 1901 as "01". */
const DATE_STYLES = {
  medium: { year: "numeric", month: "short", day: "numeric" },
  short: { year: "numeric", month: "numeric", day: "numeric" }
} as const satisfies Record<string, Intl.DateTimeFormatOptions>
const DATE_TIMES = {
  medium: new Intl.DateTimeFormat(undefined, { ...DATE_STYLES.medium, hour: "numeric", minute: "2-digit" }),
  short: new Intl.DateTimeFormat(undefined, { ...DATE_STYLES.short, hour: "numeric", minute: "2-digit" })
}
const DATES = new Intl.DateTimeFormat(undefined, DATE_STYLES.medium)

/** "2024-03-01T07:05:00" (the activity's own wall clock) as the same wall-clock time. */
export const localDateTime = (iso: string, style: "medium" | "short" = "medium") => {
  const [date = "", time = "00:00:00"] = iso.split("T")
  const [y, m, d] = date.split("-").map(Number)
  const [hh, mm] = time.split(":").map(Number)
  return DATE_TIMES[style].format(wallClock(y!, m ?? 1, d ?? 1, hh ?? 0, mm ?? 0))
}

/** An activity's local start, or "Date unknown" when its file told none (its startDateLocal is then a stand-in). */
export const activityStart = (a: { readonly startDateLocal: string; readonly dateUnknown: boolean }, style: "medium" | "short" = "medium") =>
  a.dateUnknown ? "Date unknown" : localDateTime(a.startDateLocal, style)

/** An instant (with its offset) in the browser's time zone. */
export const instant = (iso: string) => DATE_TIMES.medium.format(new Date(iso))

export const calendarDate = (iso: string) => {
  const [y, m, d] = iso.slice(0, 10).split("-").map(Number)
  return DATES.format(wallClock(y!, m ?? 1, d ?? 1))
}

/** A name written in camel case as words: "MountainBikeRide" -> "Mountain bike ride", "watchFolder" -> "Watch folder". */
export const words = (name: string) => {
  const spaced = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/([A-Z])([A-Z][a-z])/g, "$1 $2").toLowerCase()
  return spaced.charAt(0).toUpperCase() + spaced.slice(1)
}

export const sportLabel = words

export const count = (n: number) => n.toLocaleString()

/** "1 day", "3 days". */
export const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`
