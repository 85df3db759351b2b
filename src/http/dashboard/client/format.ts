import { imperial } from "./config.ts"

/** Numbers in the athlete's units (UNIT_SYSTEM) and dates in their local time. */

const MILE = 1609.344
const FOOT = 0.3048

const number = (value: number, digits: number) =>
  value.toLocaleString(undefined, { minimumFractionDigits: digits, maximumFractionDigits: digits })

export const distanceUnit = imperial ? "mi" : "km"
export const elevationUnit = imperial ? "ft" : "m"
export const speedUnit = imperial ? "mph" : "km/h"

export const toDistanceUnit = (meters: number) => meters / (imperial ? MILE : 1000)
export const toElevationUnit = (meters: number) => (imperial ? meters / FOOT : meters)
export const toSpeedUnit = (metersPerSecond: number) => metersPerSecond * (imperial ? 3600 / MILE : 3.6)

export const distance = (meters: number) => `${number(toDistanceUnit(meters), toDistanceUnit(meters) < 100 ? 2 : 1)} ${distanceUnit}`
export const elevation = (meters: number) => `${number(toElevationUnit(meters), 0)} ${elevationUnit}`
export const speed = (kmPerHour: number) => `${number(toSpeedUnit(kmPerHour / 3.6), 1)} ${speedUnit}`

export const duration = (seconds: number) => {
  const s = Math.round(seconds)
  const hours = Math.floor(s / 3600)
  const minutes = Math.floor((s % 3600) / 60)
  const rest = String(s % 60).padStart(2, "0")
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`
}

const PACED = new Set(["Run", "TrailRun", "VirtualRun", "Walk", "Hike", "Swim", "OpenWaterSwim", "Rowing", "VirtualRow"])
export const isPaced = (sportType: string) => PACED.has(sportType)
export const isSwim = (sportType: string) => sportType === "Swim" || sportType === "OpenWaterSwim"
const isRow = (sportType: string) => sportType === "Rowing" || sportType === "VirtualRow"

/** The distance a sport's pace is given for: 100 m (100 yd) for swims, 500 m for rows, else a km (a mile). */
export const paceUnit = (sportType: string): { readonly meters: number; readonly label: string } =>
  isSwim(sportType)
    ? imperial ? { meters: 91.44, label: "/100 yd" } : { meters: 100, label: "/100 m" }
    : isRow(sportType)
    ? { meters: 500, label: "/500 m" }
    : { meters: imperial ? MILE : 1000, label: `/${distanceUnit}` }

/** Pace per the sport's unit (paceUnit) from a speed in m/s. */
export const pace = (metersPerSecond: number, sportType: string) => {
  if (metersPerSecond <= 0) return "–"
  const unit = paceUnit(sportType)
  return `${duration(unit.meters / metersPerSecond)} ${unit.label}`
}

/** Steps a minute on foot, strokes in water, revolutions on wheels. */
export const cadenceUnit = (sportType: string) =>
  /Run|Walk|Hike|Snowshoe/.test(sportType) ? "spm" : isSwim(sportType) || isRow(sportType) ? "strokes/min" : "rpm"

export const speedOrPace = (kmPerHour: number, sportType: string) => (isPaced(sportType) ? pace(kmPerHour / 3.6, sportType) : speed(kmPerHour))

/** A short date with its whole year: the short style's two digits make 1901 read as 2001. */
const SHORT_DATE_TIME: Intl.DateTimeFormatOptions = { year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "2-digit" }

/** "2024-03-01T07:05:00" (the activity's own wall clock) as the same wall-clock time. */
export const localDateTime = (iso: string, style: "medium" | "short" = "medium") => {
  const [date = "", time = "00:00:00"] = iso.split("T")
  const [y, m, d] = date.split("-").map(Number)
  const [hh, mm] = time.split(":").map(Number)
  const at = new Date(y!, (m ?? 1) - 1, d ?? 1, hh ?? 0, mm ?? 0)
  return at.toLocaleString(undefined, style === "short" ? SHORT_DATE_TIME : { dateStyle: style, timeStyle: "short" })
}

/** An instant (with its offset) in the browser's time zone. */
export const instant = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })

export const calendarDate = (iso: string) => {
  const [y, m, d] = iso.slice(0, 10).split("-").map(Number)
  return new Date(y!, (m ?? 1) - 1, d ?? 1).toLocaleDateString(undefined, { dateStyle: "medium" })
}

/** "MountainBikeRide" -> "Mountain bike ride". */
export const sportLabel = (sportType: string) => {
  const words = sportType.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/([A-Z])([A-Z][a-z])/g, "$1 $2").toLowerCase()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

export const count = (n: number) => n.toLocaleString()
