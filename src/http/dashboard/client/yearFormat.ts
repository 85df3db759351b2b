import * as format from "./format.ts"

/** Words of the athlete's year: months, weekdays, countries, streaks and changes from the year before. */

const firstOf = (month: string) => new Date(Number(month.slice(0, 4)), Number(month.slice(5, 7)) - 1, 1)

/** "March 2025" for "2025-03". */
export const monthName = (month: string, style: "long" | "short" = "long") =>
  firstOf(month).toLocaleDateString(undefined, { month: style, year: "numeric" })

/** "Mar" for "2025-03": a month where the year is said elsewhere. */
export const monthOnly = (month: string) => firstOf(month).toLocaleDateString(undefined, { month: "short" })

/** "2025-04" for "2025-03" and 1; "2025-02" for -1. */
export const monthAfter = (month: string, months: number) => {
  const d = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)) - 1 + months, 1))
  return d.toISOString().slice(0, 7)
}

/** "Monday" for ISO weekday 1 (the week of 2024-01-01 began on a Monday). */
export const weekdayName = (weekday: number, style: "long" | "short" = "long") =>
  new Date(2024, 0, weekday).toLocaleDateString(undefined, { weekday: style })

const regions = new Intl.DisplayNames(undefined, { type: "region" })
export const countryName = (code: string) => {
  try {
    return regions.of(code.toUpperCase()) ?? code
  } catch {
    return code
  }
}

/** "7:00–8:00" for hour 7. */
export const hourRange = (hour: number) => `${hour}:00–${(hour + 1) % 24}:00`

export const days = (n: number) => format.plural(n, "day")
export const weeks = (n: number) => format.plural(n, "week")

/** "+12 %" or "−5 %" against the year before; null where there was nothing to compare with. */
export const change = (now: number, before: number): string | null => {
  if (before === 0) return null
  const pct = Math.round(((now - before) / before) * 100)
  return `${pct > 0 ? "+" : pct < 0 ? "−" : "±"}${Math.abs(pct)} %`
}

/** Hours and minutes of a long moving time: "312 h 05 min". */
export const hours = (seconds: number) => {
  const minutes = Math.round(seconds / 60)
  return `${format.count(Math.floor(minutes / 60))} h ${String(minutes % 60).padStart(2, "0")} min`
}
