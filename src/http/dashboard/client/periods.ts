/**
 * The periods of the totals, keyed as the API keys them: ISO 8601 weeks ("2024-W05"), months
 * ("2024-03") and years ("2024") of the local start date. The chart walks every period of its
 * range, those without an activity included.
 */

export type Period = "week" | "month" | "year"

const DAY = 86_400_000
const pad = (n: number) => String(n).padStart(2, "0")

/** Monday of ISO week 1 of `year`: the week that holds 4 January. */
const firstMonday = (year: number) => {
  const jan4 = Date.UTC(year, 0, 4)
  return jan4 - ((new Date(jan4).getUTCDay() + 6) % 7) * DAY
}

const isoWeekOf = (utcDay: number) => {
  const thursday = utcDay + (3 - ((new Date(utcDay).getUTCDay() + 6) % 7)) * DAY
  const year = new Date(thursday).getUTCFullYear()
  return `${year}-W${pad(1 + Math.floor((thursday - firstMonday(year)) / (7 * DAY)))}`
}

/** The period after `key`. */
export const nextPeriod = (kind: Period, key: string): string => {
  if (kind === "year") return String(Number(key) + 1)
  if (kind === "month") {
    const [y, m] = key.split("-").map(Number) as [number, number]
    return m === 12 ? `${y + 1}-01` : `${y}-${pad(m + 1)}`
  }
  const [y, w] = key.split("-W").map(Number) as [number, number]
  return isoWeekOf(firstMonday(y) + (w - 1 + 1) * 7 * DAY)
}

/** Every period from `first` to `last` (keys of one kind sort as they follow), the newest `limit` of them. */
export const periodsBetween = (kind: Period, first: string, last: string, limit: number): Array<string> => {
  const all: Array<string> = []
  for (let key = first; key <= last; key = nextPeriod(kind, key)) {
    all.push(key)
    if (all.length > limit) all.shift()
  }
  return all
}

/** A period for a person: "Week 5, 2024" (short: "W5 2024"), "March 2024" ("Mar 2024"), "2024". */
export const periodLabel = (kind: Period, key: string, style: "long" | "short" = "long"): string => {
  if (kind === "year") return key
  if (kind === "month") {
    const [y, m] = key.split("-").map(Number) as [number, number]
    const first = new Date(2000, m - 1, 1)
    first.setFullYear(y)
    return first.toLocaleDateString(undefined, { year: "numeric", month: style === "long" ? "long" : "short" })
  }
  const [y, w] = key.split("-W").map(Number) as [number, number]
  return style === "long" ? `Week ${w}, ${y}` : `W${w} ${y}`
}
