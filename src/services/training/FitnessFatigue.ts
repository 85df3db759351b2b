import { DAY_MS, dayNumber } from "../platform/LocalTime.ts"

/**
 * The performance management chart (Banister's impulse-response model as Coggan's PMC and
 * GoldenCheetah's PMCData.cpp compute it): fitness (chronic training load) and fatigue (acute
 * training load) are exponentially weighted averages of the daily training load over 42 and 7
 * days, each day's value x·(1 − e^(−1/N)) + yesterday's·e^(−1/N), starting from 0 on the first
 * day with a load; form is that day's fitness minus its fatigue (the stress balance).
 */

export const FITNESS_DAYS = 42
export const FATIGUE_DAYS = 7

export interface FitnessDay {
  readonly on: string
  readonly load: number
  readonly fitness: number
  readonly fatigue: number
  readonly form: number
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`)

const oneDecimal = (x: number) => Math.round(x * 10) / 10

/**
 * One row per calendar day from `from` to `to` (YYYY-MM-DD, inclusive), the averages run from
 * the first day of `loads` (each day's summed load, in date order), whatever `from` is.
 */
export const fitnessAndFatigue = (loads: ReadonlyArray<readonly [string, number]>, from: string, to: string): Array<FitnessDay> => {
  const start = dayNumber(from)
  const end = dayNumber(to)
  const first = Math.min(loads.length > 0 ? dayNumber(loads[0]![0]) : start, start)
  if (end < first) return []
  // each day's load, by days since the first
  const daily = new Float64Array(end - first + 1)
  for (const [day, load] of loads) {
    const at = dayNumber(day) - first
    if (at >= 0 && at < daily.length) daily[at]! += load
  }
  const longDecay = Math.exp(-1 / FITNESS_DAYS)
  const shortDecay = Math.exp(-1 / FATIGUE_DAYS)
  const out: Array<FitnessDay> = []
  let fitness = 0
  let fatigue = 0
  // the calendar date of the rows, counted forward from `from` rather than formatted each day
  const date = new Date(start * DAY_MS)
  let year = date.getUTCFullYear()
  let month = date.getUTCMonth() + 1
  let dayOfMonth = date.getUTCDate()
  for (let i = 0; i < daily.length; i++) {
    const load = daily[i]!
    fitness = load * (1 - longDecay) + fitness * longDecay
    fatigue = load * (1 - shortDecay) + fatigue * shortDecay
    if (first + i < start) continue
    out.push({ on: `${year}-${pad2(month)}-${pad2(dayOfMonth)}`, load: oneDecimal(load), fitness: oneDecimal(fitness), fatigue: oneDecimal(fatigue), form: oneDecimal(fitness - fatigue) })
    if (++dayOfMonth > new Date(Date.UTC(year, month, 0)).getUTCDate()) {
      dayOfMonth = 1
      if (++month > 12) {
        month = 1
        year++
      }
    }
  }
  return out
}
