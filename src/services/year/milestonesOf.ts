import type { Milestone } from "../../schema/MilestoneModels.ts"
import type { SportType } from "../../schema/SportType.ts"
import type { PersonalRecord } from "../../schema/StatsModels.ts"
import { durationText } from "./durationText.ts"
import { sportTypeLabel } from "./sportTypeLabel.ts"

/**
 * The milestones of the activities, found by walking them in the order they started: nothing is
 * stored, so an activity deleted (or changed) takes what it made with it at the next request.
 * Distances are counted in the unit system's unit (km or miles), as the dashboard shows them.
 */

export interface MilestoneActivity {
  readonly id: string
  readonly sportType: SportType
  readonly startDateLocal: string
  /** metres, as stored (whole metres) */
  readonly distance: number
  /** the start's country first, then those passed through (lowercased ISO 3166-1 alpha-2) */
  readonly countries: ReadonlyArray<string>
}

export interface DistanceUnit {
  readonly name: "km" | "mi"
  readonly meters: number
}

/** Cumulative distances that make a milestone, in the unit's kilometres or miles. */
export const DISTANCE_MARKS = [100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000] as const

const numberText = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 })
const countryNames = new Intl.DisplayNames(["en"], { type: "region", fallback: "code" })

/** "France" for "fr"; the code itself where the name is unknown. */
export const countryName = (code: string): string => {
  try {
    return countryNames.of(code.toUpperCase()) ?? code
  } catch {
    return code
  }
}

/**
 * The Eddington number of days added one activity at a time: `add` gives the numbers it reached
 * (the largest n with n days of at least n units, as /stats/eddington computes it from the
 * day's summed metres). A day's total only grows, so each number is reached once, in order.
 */
const eddingtonCounter = (unitMeters: number) => {
  const dayTotals = new Map<string, number>()
  /** daysAtLeast[n]: days with at least n units */
  const daysAtLeast: Array<number> = []
  let number = 0
  return (day: string, meters: number): Array<number> => {
    const before = dayTotals.get(day) ?? 0
    const after = before + meters
    dayTotals.set(day, after)
    for (let n = Math.floor(before / unitMeters) + 1; n <= Math.floor(after / unitMeters); n++) daysAtLeast[n] = (daysAtLeast[n] ?? 0) + 1
    const reached: Array<number> = []
    while ((daysAtLeast[number + 1] ?? 0) >= number + 1) reached.push(++number)
    return reached
  }
}

/** A running distance: `add` gives the marks it passed. */
const markCounter = (unitMeters: number) => {
  let total = 0
  let next = 0
  return (meters: number): Array<number> => {
    total += meters
    const passed: Array<number> = []
    while (next < DISTANCE_MARKS.length && total >= DISTANCE_MARKS[next]! * unitMeters) passed.push(DISTANCE_MARKS[next++]!)
    return passed
  }
}

const perKey = <A>(make: () => A) => {
  const all = new Map<string, A>()
  return (key: string): A => {
    let found = all.get(key)
    if (found === undefined) {
      found = make()
      all.set(key, found)
    }
    return found
  }
}

/**
 * Every milestone of `activities` (in the order they started), with the records they set
 * (`records`, in the same order: see recordProgression), newest first.
 */
export const milestonesOf = (
  activities: ReadonlyArray<MilestoneActivity>,
  records: ReadonlyArray<PersonalRecord>,
  unit: DistanceUnit
): Array<Milestone> => {
  const recordsOf = new Map<string, Array<PersonalRecord>>()
  for (const record of records) recordsOf.set(record.activityId, [...(recordsOf.get(record.activityId) ?? []), record])
  const longest = new Map<string, number>()
  const countries = new Set<string>()
  const marks = perKey(() => markCounter(unit.meters))
  const eddington = perKey(() => eddingtonCounter(unit.meters))
  const found: Array<Milestone> = []

  for (const activity of activities) {
    const on = activity.startDateLocal.slice(0, 10)
    const { id: activityId, sportType, distance } = activity
    const label = sportTypeLabel(sportType)
    const sport = label.charAt(0).toUpperCase() + label.slice(1)
    const add = (kind: Milestone["kind"], title: string, value: Milestone["value"], of: SportType | null) =>
      found.push({ on, kind, title, activityId, sportType: of, value })

    const before = longest.get(sportType)
    if (before === undefined) add("firstOfSportType", `First ${label}`, null, sportType)
    for (const country of activity.countries) {
      if (countries.has(country)) continue
      countries.add(country)
      add("firstInCountry", `First activity in ${countryName(country)}`, country, null)
    }
    if (before !== undefined && distance > before) {
      add("longestOfSportType", `Longest ${label} so far: ${numberText.format(distance / unit.meters)} ${unit.name}`, distance, sportType)
    }
    longest.set(sportType, Math.max(before ?? 0, distance))
    for (const record of recordsOf.get(activityId) ?? []) {
      add("record", `New ${record.name} ${record.discipline} record: ${durationText(record.elapsedTimeInSeconds)}`, record.elapsedTimeInSeconds, sportType)
    }
    for (const mark of marks(sportType)(distance)) {
      add("distanceMark", `${sport}: ${numberText.format(mark)} ${unit.name} in total`, mark * unit.meters, sportType)
    }
    for (const mark of marks("")(distance)) add("distanceMark", `${numberText.format(mark)} ${unit.name} in total`, mark * unit.meters, null)
    for (const number of eddington(sportType)(on, distance)) {
      add("eddington", `${sport}: Eddington number ${number} (${unit.name})`, number, sportType)
    }
    for (const number of eddington("")(on, distance)) add("eddington", `Eddington number ${number} (${unit.name})`, number, null)
  }
  // newest first by local date; within a date, the later activity first (an activity started later
  // in a zone further west can hold an earlier local date)
  return found.reverse().sort((a, b) => (a.on < b.on ? 1 : a.on > b.on ? -1 : 0))
}
