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

const DAY_MS = 86_400_000

const dayNumber = (day: string): number => Date.parse(`${day}T00:00:00Z`) / DAY_MS

const dayOf = (n: number): string => new Date(n * DAY_MS).toISOString().slice(0, 10)

const oneDecimal = (x: number) => Math.round(x * 10) / 10

/**
 * One row per calendar day from `from` to `to` (YYYY-MM-DD, inclusive), the averages run from
 * the first day of `loads` (each day's summed load, in date order), whatever `from` is.
 */
export const fitnessAndFatigue = (loads: ReadonlyArray<readonly [string, number]>, from: string, to: string): Array<FitnessDay> => {
  const first = loads.length > 0 ? dayNumber(loads[0]![0]) : dayNumber(from)
  const start = dayNumber(from)
  const end = dayNumber(to)
  const longDecay = Math.exp(-1 / FITNESS_DAYS)
  const shortDecay = Math.exp(-1 / FATIGUE_DAYS)
  const out: Array<FitnessDay> = []
  let fitness = 0
  let fatigue = 0
  let next = 0
  for (let day = Math.min(first, start); day <= end; day++) {
    let load = 0
    while (next < loads.length && dayNumber(loads[next]![0]) <= day) {
      if (dayNumber(loads[next]![0]) === day) load += loads[next]![1]
      next++
    }
    fitness = load * (1 - longDecay) + fitness * longDecay
    fatigue = load * (1 - shortDecay) + fatigue * shortDecay
    if (day >= start) {
      out.push({ on: dayOf(day), load: oneDecimal(load), fitness: oneDecimal(fitness), fatigue: oneDecimal(fatigue), form: oneDecimal(fitness - fatigue) })
    }
  }
  return out
}
