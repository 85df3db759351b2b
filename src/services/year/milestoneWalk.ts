import type { Milestone } from "../../schema/YearMilestoneModels.ts"
import type { SportType } from "../../schema/SportType.ts"
import type { PersonalRecord } from "../../schema/StatsModels.ts"
import { disciplineWords } from "../stats/Stats.ts"
import { durationText } from "./durationText.ts"
import { sportTypeLabel } from "./sportTypeLabel.ts"

/**
 * The milestones of the activities, found by walking them in the order they started (and on, as
 * activities are added after the last): nothing is stored, so an activity deleted (or changed)
 * takes what it made with it at the next walk.
 * Distances are counted in the unit system's unit (km or miles), as the dashboard shows them.
 */

export interface MilestoneActivity {
  readonly id: string
  readonly sportType: SportType
  readonly startDateLocal: string
  /** its local date, `YYYY-MM-DD` */
  readonly on: string
  /** the same as a day number (see platform/LocalTime), to count the days' totals by */
  readonly day: number
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
// made on first use: the regions' names are locale data a daemon that never walks milestones need not hold
let countryNames: Intl.DisplayNames | undefined

/** "France" for "fr"; the code itself where the name is unknown. */
export const countryName = (code: string): string => {
  try {
    countryNames ??= new Intl.DisplayNames(["en"], { type: "region", fallback: "code" })
    return countryNames.of(code.toUpperCase()) ?? code
  } catch {
    return code
  }
}

/** What a counter gives when an activity passed nothing (most do): no array made for them. */
const NOTHING: ReadonlyArray<number> = []

/**
 * The Eddington number of days added one activity at a time: `add` gives the numbers it reached
 * (the largest n with n days of at least n units, as /stats/eddington computes it from the
 * day's summed metres). A day's total only grows, so each number is reached once, in order,
 * and only the days of more units than the number reached so far need counting.
 */
const eddingtonCounter = (unitMeters: number) => {
  const dayTotals = new Map<number, number>()
  /** daysAtLeast[n], for n above the number reached: days with at least n units */
  const daysAtLeast: Array<number> = []
  let number = 0
  return (day: number, meters: number): ReadonlyArray<number> => {
    const before = dayTotals.get(day) ?? 0
    const after = before + meters
    dayTotals.set(day, after)
    const top = Math.floor(after / unitMeters)
    for (let n = Math.max(Math.floor(before / unitMeters), number) + 1; n <= top; n++) daysAtLeast[n] = (daysAtLeast[n] ?? 0) + 1
    if ((daysAtLeast[number + 1] ?? 0) < number + 1) return NOTHING
    const reached: Array<number> = []
    while ((daysAtLeast[number + 1] ?? 0) >= number + 1) reached.push(++number)
    return reached
  }
}

/** A running distance: `add` gives the marks it passed. */
const markCounter = (unitMeters: number) => {
  let total = 0
  let next = 0
  return (meters: number): ReadonlyArray<number> => {
    total += meters
    if (next >= DISTANCE_MARKS.length || total < DISTANCE_MARKS[next]! * unitMeters) return NOTHING
    const passed: Array<number> = []
    while (next < DISTANCE_MARKS.length && total >= DISTANCE_MARKS[next]! * unitMeters) passed.push(DISTANCE_MARKS[next++]!)
    return passed
  }
}

const perKey = <A>(make: (key: string) => A) => {
  const all = new Map<string, A>()
  return (key: string): A => {
    let found = all.get(key)
    if (found === undefined) {
      found = make(key)
      all.set(key, found)
    }
    return found
  }
}

/**
 * The walk: `add` takes the next activity (in the order they started) with the records it set
 * (see makeRecordProgression); `milestones` gives every milestone so far, newest first.
 */
export const makeMilestoneWalk = (unit: DistanceUnit) => {
  // the sport types' words, once each (a regular expression per activity costs more than the rest of the walk)
  const labels = perKey((sportType) => {
    const label = sportTypeLabel(sportType)
    return { label, title: label.charAt(0).toUpperCase() + label.slice(1) }
  })
  const longest = new Map<string, number>()
  const countries = new Set<string>()
  const marks = perKey(() => markCounter(unit.meters))
  const eddington = perKey(() => eddingtonCounter(unit.meters))
  const found: Array<Milestone> = []
  const made = (activity: MilestoneActivity, kind: Milestone["kind"], title: string, value: Milestone["value"], sportType: SportType | null) =>
    found.push({ on: activity.on, kind, title, activityId: activity.id, sportType, value })

  const add = (activity: MilestoneActivity, records: ReadonlyArray<PersonalRecord>) => {
    const { sportType, distance } = activity
    const before = longest.get(sportType)
    if (before === undefined) made(activity, "firstOfSportType", `First ${labels(sportType).label}`, null, sportType)
    for (const country of activity.countries) {
      if (countries.has(country)) continue
      countries.add(country)
      made(activity, "firstInCountry", `First activity in ${countryName(country)}`, country, null)
    }
    if (before !== undefined && distance > before) {
      const title = `Longest ${labels(sportType).label} so far: ${numberText.format(distance / unit.meters)} ${unit.name}`
      made(activity, "longestOfSportType", title, distance, sportType)
    }
    if (before === undefined || distance > before) longest.set(sportType, distance)
    for (const record of records) {
      made(activity, "record", `New ${record.name} ${disciplineWords(record.discipline)} record: ${durationText(record.elapsedTimeInSeconds)}`, record.elapsedTimeInSeconds, sportType)
    }
    for (const mark of marks(sportType)(distance)) {
      made(activity, "distanceMark", `${labels(sportType).title}: ${numberText.format(mark)} ${unit.name} in total`, mark * unit.meters, sportType)
    }
    for (const mark of marks("")(distance)) made(activity, "distanceMark", `${numberText.format(mark)} ${unit.name} in total`, mark * unit.meters, null)
    const { day } = activity
    for (const number of eddington(sportType)(day, distance)) {
      made(activity, "eddington", `${labels(sportType).title}: Eddington number ${number} (${unit.name})`, number, sportType)
    }
    for (const number of eddington("")(day, distance)) made(activity, "eddington", `Eddington number ${number} (${unit.name})`, number, null)
  }

  // newest first by local date; within a date, the later activity first (an activity started later
  // in a zone further west can hold an earlier local date)
  const milestones = (): Array<Milestone> => [...found].reverse().sort((a, b) => (a.on < b.on ? 1 : a.on > b.on ? -1 : 0))

  return { add, milestones }
}
