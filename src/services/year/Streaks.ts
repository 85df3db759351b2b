import type { Streak, StreakPair } from "../../schema/YearStreakModels.ts"
import { dateOf, mondayOf } from "../platform/LocalTime.ts"

/**
 * Runs of consecutive days, or of consecutive ISO weeks, with at least one activity. A run of
 * days is current while its last day is today or yesterday (today is not over yet); a run of
 * weeks, while its last week is this week or the last one. Of runs of the same length the
 * first one is the longest (a record is held by whoever set it first).
 */

interface Run {
  length: number
  first: number
  last: number
  lastKey: number
}

const toStreak = (run: Run): Streak => ({ length: run.length, firstDay: dateOf(run.first), lastDay: dateOf(run.last) })

/**
 * The current and the longest run over `days` (day numbers, ascending, each once), where two
 * days belong to consecutive periods when their keys differ by `step`.
 */
const runsOf = (days: ReadonlyArray<number>, today: number, keyOf: (day: number) => number, step: number): StreakPair => {
  let run: Run | null = null
  let longest: Run | null = null
  for (const day of days) {
    const key = keyOf(day)
    if (run !== null && key === run.lastKey) {
      run.last = day
    } else if (run !== null && key === run.lastKey + step) {
      run.length++
      run.lastKey = key
      run.last = day
    } else {
      run = { length: 1, first: day, last: day, lastKey: key }
    }
    if (longest === null || run.length > longest.length) longest = run
  }
  const current = run !== null && run.lastKey >= keyOf(today) - step ? run : null
  return { current: current === null ? null : toStreak(current), longest: longest === null ? null : toStreak(longest) }
}

/** Consecutive days with an activity; `days` ascending, each once. */
export const dayStreaks = (days: ReadonlyArray<number>, today: number): StreakPair => runsOf(days, today, (day) => day, 1)

/** Consecutive ISO weeks with an activity; `days` ascending, each once. */
export const weekStreaks = (days: ReadonlyArray<number>, today: number): StreakPair => runsOf(days, today, mondayOf, 7)
