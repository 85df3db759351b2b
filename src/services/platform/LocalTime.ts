import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

/**
 * Times and the athlete's local dates, one module for every feature: the wall time of an
 * instant (`YYYY-MM-DDTHH:mm:ss`, the import's stamp of every activity) in an IANA zone through
 * Intl (DST-correct) or at a fixed offset, today's date in the daemon's zone, and calendar
 * arithmetic on local dates (`YYYY-MM-DD`, the first ten characters of an activity's
 * `startDateLocal`): each date as a day number (days since 1970-01-01, on no time zone at all),
 * weeks from Monday (ISO 8601), months and years.
 */

// one formatter a zone, made when first asked (a zone unknown to Intl is remembered as null)
const formatters = new Map<string, Intl.DateTimeFormat | null>()

const formatterFor = (timeZone: string): Intl.DateTimeFormat | null => {
  let f = formatters.get(timeZone)
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat("en-US", {
        timeZone,
        hourCycle: "h23",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit"
      })
    } catch {
      f = null
    }
    formatters.set(timeZone, f)
  }
  return f
}

export const isValidTimeZone = (timeZone: string): boolean => timeZone !== "" && formatterFor(timeZone) !== null

const pad = (n: number, width = 2) => String(n).padStart(width, "0")

/** The wall time of `epochMs` shifted by a fixed offset (seconds east of UTC). */
export const localWithOffset = (epochMs: number, offsetSeconds: number): string => {
  const shifted = epochMs + offsetSeconds * 1000
  const d = new Date(Number.isFinite(shifted) ? shifted : 0)
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${
    pad(d.getUTCMinutes())
  }:${pad(d.getUTCSeconds())}`
}

/** The wall time of `epochMs` in an IANA zone; UTC when the zone is unknown. */
export const localInZone = (epochMs: number, timeZone: string): string => {
  const f = formatterFor(timeZone)
  if (!f || !Number.isFinite(epochMs)) return localWithOffset(epochMs, 0)
  const parts: Record<string, string> = {}
  for (const p of f.formatToParts(new Date(epochMs))) parts[p.type] = p.value
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`
}

export const DAY_MS = 86_400_000

/** The day number of a date `YYYY-MM-DD` (or of a local date-time, by its first ten characters). */
export const dayNumber = (date: string): number =>
  Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / DAY_MS

/** The date `YYYY-MM-DD` of a day number. */
export const dateOf = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10)

/** ISO weekday: 1 for Monday to 7 for Sunday (day 0, 1970-01-01, was a Thursday). */
export const isoWeekday = (day: number): number => ((((day + 3) % 7) + 7) % 7) + 1

/** The Monday of the ISO week holding `day`. */
export const mondayOf = (day: number): number => day - isoWeekday(day) + 1

/** The ISO week of `day`, as `2025-W01`: the week belongs to the year of its Thursday. */
export const isoWeekOf = (day: number): string => {
  const thursday = mondayOf(day) + 3
  const year = Number(dateOf(thursday).slice(0, 4))
  const week = Math.floor((thursday - dayNumber(`${year}-01-01`)) / 7) + 1
  return `${year}-W${String(week).padStart(2, "0")}`
}

/** The first day and the day after the last of a month `YYYY-MM`. */
export const monthRange = (month: string): { readonly first: number; readonly end: number } => {
  const year = Number(month.slice(0, 4))
  const index = Number(month.slice(5, 7)) - 1
  return { first: Date.UTC(year, index, 1) / DAY_MS, end: Date.UTC(year, index + 1, 1) / DAY_MS }
}

/** Today's date where the daemon runs (its TZ), by the Effect clock. */
export const todayIn = (timeZone: string) => Effect.map(Clock.currentTimeMillis, (now) => localInZone(now, timeZone).slice(0, 10))
