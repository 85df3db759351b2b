import type { Milestone } from "../../schema/YearMilestoneModels.ts"
import { ActivityFields as F } from "../../schema/ActivityFields.ts"
import { countriesOf } from "./countriesOf.ts"
import { dayNumber } from "../platform/LocalTime.ts"
import { type EffortsOwner, makeKeptBestEfforts } from "./keptBestEfforts.ts"
import { type DistanceUnit, makeMilestoneWalk, type MilestoneActivity } from "./milestoneWalk.ts"
import { makeRecordProgression } from "./recordProgression.ts"

/**
 * The whole history, walked in the order the activities started for the records they set and the
 * milestones they made, kept between requests and brought up to date with what changed: the
 * activities added (counted by a trigger; each has a rowid above those kept) and those removed
 * or changed in what the walk (or the year in review) reads (logged by triggers, the last
 * REWRITES_KEPT of them). An
 * import of new activities is walked on from where the walk stopped; anything else (an edit, a
 * deletion, an activity older than the last) walks the kept activities again in memory, with
 * only the changed ones read. Everything is read again only at the first request, or when more
 * changes were logged than the log keeps. Only the activities whose date is known are walked
 * (`dated_activities`): one whose date is unknown has no place in the order.
 */

type Rows = (sql: string, params: ReadonlyArray<string | number>) => Array<Array<unknown>>

/** Rewritten activities the log keeps (migration 0009's triggers drop older entries). */
export const REWRITES_KEPT = 1000

/** What changed the history, as counted and logged when it was read. */
export interface HistoryChanges {
  /** activities added */
  readonly inserted: number
  /** the last entry of the log of activities removed or changed */
  readonly rewritten: number
}

export const HISTORY_CHANGES_SQL =
  "SELECT inserted, (SELECT COALESCE(MAX(seq), 0) FROM activity_history_rewrites) FROM activity_history_changes"

const COLUMNS = "id, sport_type, start_date_local, distance, country_code, passed_through_countries, created_at, rowid, start_time, exclude_from_records"

interface Entry extends EffortsOwner {
  readonly activity: MilestoneActivity
  readonly startTime: number
  /** kept out of the records by the athlete: its efforts set none */
  readonly excluded: boolean
}

const entryOf = (r: ReadonlyArray<unknown>): Entry => {
  const startDateLocal = F.startDateLocal.read(r[2])
  return {
    id: r[0] as string,
    createdAt: r[6] as number,
    rowid: r[7] as number,
    startTime: r[8] as number,
    excluded: F.excludeFromRecords.read(r[9]),
    activity: {
      id: F.id.read(r[0]),
      sportType: F.sportType.read(r[1]),
      startDateLocal,
      on: startDateLocal.slice(0, 10),
      day: dayNumber(startDateLocal),
      distance: F.distanceInMeter.read(r[3]),
      countries: countriesOf(r[4], r[5])
    }
  }
}

/** Whether `a` is walked before `b`: by start instant, then id (as ORDER BY start_time, id). */
const walksBefore = (a: Entry, b: Entry) => a.startTime < b.startTime || (a.startTime === b.startTime && a.id < b.id)

/** Puts `entry` in its place in `entries` (in the walk's order). */
const insertInOrder = (entries: Array<Entry>, entry: Entry) => {
  let low = 0
  let high = entries.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (walksBefore(entries[middle]!, entry)) low = middle + 1
    else high = middle
  }
  entries.splice(low, 0, entry)
}

/** Ids asked for in one statement. */
const CHUNK = 500

const maxRowidOf = (entries: ReadonlyArray<Entry>) => entries.reduce((max, e) => Math.max(max, e.rowid), 0)

interface Walk {
  readonly records: ReturnType<typeof makeRecordProgression>
  readonly milestones: ReturnType<typeof makeMilestoneWalk>
  /** the milestones' answer, until the walk goes on */
  answer: ReadonlyArray<Milestone> | null
}

interface State {
  changes: HistoryChanges
  entries: Array<Entry>
  walk: Walk
}

export const makeHistory = (rows: Rows, recordDistances: ReadonlyArray<number>, unit: DistanceUnit) => {
  const efforts = makeKeptBestEfforts(rows, recordDistances)
  let state: State | null = null

  const walkOver = (entries: ReadonlyArray<Entry>, walk: Walk = { records: makeRecordProgression(), milestones: makeMilestoneWalk(unit), answer: null }) => {
    for (const e of entries) walk.milestones.add(e.activity, walk.records.add(e.activity, e.excluded ? undefined : efforts.of(e.id)))
    walk.answer = null
    return walk
  }

  const readAll = (changes: HistoryChanges): State => {
    const entries = rows(`SELECT ${COLUMNS} FROM dated_activities ORDER BY start_time, id`, []).map(entryOf)
    efforts.refresh(entries, true)
    return { changes, entries, walk: walkOver(entries) }
  }

  /** The activities of `ids` as they are now (none for one removed). */
  const readIds = (ids: ReadonlyArray<string>) => {
    const found: Array<Entry> = []
    for (let i = 0; i < ids.length; i += CHUNK) {
      const chunk = ids.slice(i, i + CHUNK)
      found.push(...rows(`SELECT ${COLUMNS} FROM dated_activities WHERE id IN (${chunk.map(() => "?").join(", ")})`, chunk).map(entryOf))
    }
    return found
  }

  const catchUp = (kept: State, changes: HistoryChanges) => {
    let entries = kept.entries
    let again = false
    const read: Array<Entry> = []
    const rewritten = new Set<string>()
    if (changes.rewritten !== kept.changes.rewritten) {
      const logged = rows("SELECT DISTINCT activity_id FROM activity_history_rewrites WHERE seq > ? AND seq <= ?", [kept.changes.rewritten, changes.rewritten])
      for (const [id] of logged) rewritten.add(id as string)
      entries = entries.filter((e) => !rewritten.has(e.id))
      again = true
    }
    // an activity added since has a rowid above every one kept (removed ones left out first)
    const maxRowid = maxRowidOf(entries)
    for (const e of readIds([...rewritten])) {
      read.push(e)
      insertInOrder(entries, e)
    }
    if (changes.inserted !== kept.changes.inserted) {
      const added = rows(`SELECT ${COLUMNS} FROM dated_activities WHERE rowid > ? ORDER BY start_time, id`, [maxRowid]).map(entryOf)
      for (const e of added) {
        if (rewritten.has(e.id)) continue
        read.push(e)
        if (!again && (entries.length === 0 || walksBefore(entries.at(-1)!, e))) entries.push(e)
        else {
          insertInOrder(entries, e)
          again = true
        }
      }
    }
    efforts.refresh(read, false)
    if (again) kept.walk = walkOver(entries)
    else walkOver(read, kept.walk)
    kept.entries = entries
    kept.changes = changes
  }

  /** The walk as of `changes` (counted before anything is read: a change made meanwhile is caught up at the next request). */
  return (changes: HistoryChanges): Walk => {
    if (state === null || changes.rewritten - state.changes.rewritten > REWRITES_KEPT) state = readAll(changes)
    else if (state.changes.inserted !== changes.inserted || state.changes.rewritten !== changes.rewritten) catchUp(state, changes)
    return state.walk
  }
}
