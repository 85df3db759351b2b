import { Effect } from "effect"
import { ActivityFields } from "../../schema/ActivityFields.ts"
import type { Milestone } from "../../schema/MilestoneModels.ts"
import { MILE, type SportType } from "../../schema/SportType.ts"
import type { SportTypeStreaks, Streaks } from "../../schema/StreakModels.ts"
import type { YearInReview } from "../../schema/YearInReviewModels.ts"
import { AppConfig } from "../platform/AppConfig.ts"
import { placeholders, ReadConnection } from "../platform/ReadConnection.ts"
import { makeVersionedCache } from "../platform/VersionedCache.ts"
import { DISCIPLINES } from "../stats/Stats.ts"
import { calendarOf, calendarSpan } from "./calendarOf.ts"
import { dateOf, dayNumber, todayIn } from "./LocalDays.ts"
import { makeMilestoneWalk, type MilestoneActivity } from "./milestoneWalk.ts"
import { makeKeptBestEfforts } from "./keptBestEfforts.ts"
import { makeRecordProgression } from "./recordProgression.ts"
import { dayStreaks, weekStreaks } from "./Streaks.ts"
import { type YearRow, yearInReviewOf } from "./yearInReviewOf.ts"

/**
 * The athlete's year over the stored activities, read on the read connection: the calendar of a
 * month, the streaks, the milestones and the year in review. Days, weeks, months and years are
 * those of each activity's local start (`startDateLocal`); "today" is the date where the service
 * runs (TZ). Values are read as the activity list reads them (ActivityFields), so each figure is
 * the one the list's activities add up to. What walks the whole history (the milestones, the
 * records set) is kept until the next commit.
 */

const F = ActivityFields

/**
 * The countries of an activity: where it started, then those it passed through, each once. Kept
 * by their stored values, which few activities differ in (parsing each one's list anew is most
 * of the cost of reading the whole history).
 */
const keptCountries = new Map<unknown, Map<unknown, ReadonlyArray<string>>>()
const MAX_KEPT_COUNTRIES = 10_000
let keptCountryLists = 0
const countriesOf = (countryCode: unknown, passedThrough: unknown): ReadonlyArray<string> => {
  let byList = keptCountries.get(countryCode)
  let countries = byList?.get(passedThrough)
  if (countries === undefined) {
    const start = F.location.read(countryCode, null, null).countryCode
    countries = [...new Set([...(start === null ? [] : [start]), ...F.passedThroughCountries.read(passedThrough)])]
    if (keptCountryLists >= MAX_KEPT_COUNTRIES) {
      keptCountries.clear()
      keptCountryLists = 0
      byList = undefined
    }
    if (byList === undefined) keptCountries.set(countryCode, byList = new Map())
    byList.set(passedThrough, countries)
    keptCountryLists++
  }
  return countries
}

/** The columns of `rowOf`. */
const ROW_COLUMNS = "id, name, sport_type, start_date_local, distance, moving_time, elevation, elapsed_time, calories, is_commute, country_code, passed_through_countries"

/** An activity as the year in review (and a calendar's day) reads it, as the list reads its values. */
const rowOf = (r: ReadonlyArray<unknown>): YearRow => ({
  id: F.id.read(r[0]),
  name: F.name.read(r[1]),
  sportType: F.sportType.read(r[2]),
  startDateLocal: F.startDateLocal.read(r[3]),
  distanceInMeter: F.distanceInMeter.read(r[4]),
  movingTimeInSeconds: F.movingTimeInSeconds.read(r[5]),
  elevationInMeter: F.elevationInMeter.read(r[6]),
  elapsedTimeInSeconds: F.elapsedTimeInSeconds.read(r[7]),
  calories: F.calories.read(r[8]) ?? null,
  isCommute: F.isCommute.read(r[9]),
  countries: countriesOf(r[10], r[11])
})

const RECORD_DISTANCES = [...new Set(DISCIPLINES.flatMap((d) => [...d.distances]))]

/** What the history's walk depends on, counted as it changes (migration 0009's triggers). */
interface HistoryChanges {
  /** activities added */
  readonly inserted: number
  /** activities removed, or changed in what the walk reads */
  readonly rewritten: number
}

/** The columns of the history's walk: those of `historyActivityOf`, then those telling rows apart and their order. */
const HISTORY_COLUMNS = "id, sport_type, start_date_local, distance, country_code, passed_through_countries, created_at, rowid, start_time"
const OWNER_COLUMNS = { id: 0, createdAt: 6, rowid: 7 } as const

const historyActivityOf = (r: ReadonlyArray<unknown>): MilestoneActivity => ({
  id: F.id.read(r[0]),
  sportType: F.sportType.read(r[1]),
  startDateLocal: F.startDateLocal.read(r[2]),
  distance: F.distanceInMeter.read(r[3]),
  countries: countriesOf(r[4], r[5])
})

/** The walk of the history so far: where it stopped, and what it found. */
interface HistoryWalk {
  changes: HistoryChanges
  /** the largest rowid walked: an activity added since has a larger one (none was removed since) */
  maxRowid: number
  /** the last activity walked, by start instant and id (the walk's order) */
  last: readonly [number, string] | null
  readonly records: ReturnType<typeof makeRecordProgression>
  readonly milestones: ReturnType<typeof makeMilestoneWalk>
  /** the milestones' answer, until the walk goes on */
  answer: ReadonlyArray<Milestone> | null
}

/** Whether a row of the history sorts after the activity `last` (start instant, then id, as ORDER BY start_time, id). */
const sortsAfter = (last: readonly [number, string] | null) => (r: ReadonlyArray<unknown>) =>
  last === null || (r[8] as number) > last[0] || ((r[8] as number) === last[0] && (r[0] as string) > last[1])

/** The local days with an activity, ascending: all of them, and those of each sport type. */
interface ActiveDays {
  readonly all: ReadonlyArray<number>
  readonly bySport: ReadonlyMap<SportType, ReadonlyArray<number>>
}

export class AthleteYear extends Effect.Service<AthleteYear>()("services/year/AthleteYear", {
  effect: Effect.gen(function*() {
    const db = yield* ReadConnection
    const config = yield* AppConfig
    const unit = config.unitSystem === "imperial" ? { name: "mi", meters: MILE } as const : { name: "km", meters: 1000 } as const
    const cache = <A>() => makeVersionedCache<A>({ version: db.dataVersion, capacity: 64, weigh: () => 1 })
    const keptChanges = cache<HistoryChanges>()
    const bestEfforts = makeKeptBestEfforts(db.rows, RECORD_DISTANCES)
    const keptYears = cache<YearInReview>()
    const today = todayIn(config.timeZone)

    /** The counts of the changes to the history, read again after each commit. */
    const changesNow = (): HistoryChanges =>
      keptChanges("changes", () => {
        const [inserted, rewritten] = db.rows("SELECT inserted, rewritten FROM activity_history_changes", [])[0] as [number, number]
        return { inserted, rewritten }
      })!
    const unchanged = (a: HistoryChanges, b: HistoryChanges) => a.inserted === b.inserted && a.rewritten === b.rewritten

    /** The walk goes on over `rows` (in the order they started), each with the records it set and the milestones it made. */
    const walkOn = (walk: HistoryWalk, rows: ReadonlyArray<ReadonlyArray<unknown>>, whole: boolean) => {
      const effortsOf = bestEfforts(rows, OWNER_COLUMNS, whole)
      for (const row of rows) {
        const activity = historyActivityOf(row)
        walk.milestones.add(activity, walk.records.add(activity, effortsOf(activity.id)))
        walk.maxRowid = Math.max(walk.maxRowid, row[7] as number)
      }
      if (rows.length > 0) walk.last = [rows.at(-1)![8] as number, rows.at(-1)![0] as string]
      walk.answer = null
    }

    /** The history's walk and its active days, as of the changes they were read at. */
    const kept: { walk: HistoryWalk | null; days: (ActiveDays & { readonly changes: HistoryChanges }) | null } = { walk: null, days: null }

    /**
     * The history's walk as of the last commit: kept while no activity changed; gone on over the
     * activities added since when all of them started after the last one walked (an import of
     * new activities); else walked again from the first (the changes counted before the reads, so
     * that a change made meanwhile is walked again at the next request, never missed).
     */
    const history = (): HistoryWalk => {
      const changes = changesNow()
      const walk = kept.walk
      if (walk !== null && unchanged(walk.changes, changes)) return walk
      if (walk !== null && walk.changes.rewritten === changes.rewritten) {
        const added = db.rows(`SELECT ${HISTORY_COLUMNS} FROM activities WHERE rowid > ? ORDER BY start_time, id`, [walk.maxRowid])
        if (added.every(sortsAfter(walk.last))) {
          walkOn(walk, added, false)
          walk.changes = changes
          return walk
        }
      }
      const fresh: HistoryWalk = { changes, maxRowid: 0, last: null, records: makeRecordProgression(), milestones: makeMilestoneWalk(unit), answer: null }
      walkOn(fresh, db.rows(`SELECT ${HISTORY_COLUMNS} FROM activities ORDER BY start_time, id`, []), true)
      kept.walk = fresh
      return fresh
    }

    /**
     * The activities whose local start is in [from, until), of `sportTypes` when given: in the
     * order they started, or by their local start (a calendar's day reads in the order of its
     * wall clock).
     */
    const localRange = (from: string, until: string, sportTypes: ReadonlyArray<string>, order: "started" | "local") =>
      db.rows(
        `SELECT ${ROW_COLUMNS} FROM activities WHERE start_date_local >= ? AND start_date_local < ?${
          sportTypes.length > 0 ? ` AND sport_type IN (${placeholders(sportTypes.length)})` : ""
        } ORDER BY ${order === "local" ? "start_date_local, start_time, id" : "start_time, id"}`,
        [from, until, ...sportTypes]
      ).map(rowOf)

    const calendar = Effect.fn("AthleteYear.calendar")(function*(month: string | undefined, sportTypes: ReadonlyArray<string> | undefined) {
      const asked = month ?? (yield* today).slice(0, 7)
      const { first, last } = calendarSpan(asked)
      return calendarOf(asked, localRange(dateOf(first), `${dateOf(last)}T99`, sportTypes ?? [], "local"))
    })

    /** The active days, read again when an activity changed. */
    const activeDays = (): ActiveDays => {
      const changes = changesNow()
      const days = kept.days
      if (days !== null && unchanged(days.changes, changes)) return days
      const all = new Set<number>()
      const bySport = new Map<SportType, Array<number>>()
      // the days of each sport type, ascending: from the covering index of the local day
      for (const [day, sportType] of db.rows("SELECT DISTINCT substr(start_date_local, 1, 10) AS day, sport_type FROM activities ORDER BY day", [])) {
        const n = dayNumber(F.startDateLocal.read(day))
        const sport = F.sportType.read(sportType)
        all.add(n)
        const list = bySport.get(sport)
        if (list === undefined) bySport.set(sport, [n])
        else list.push(n)
      }
      kept.days = { changes, all: [...all], bySport }
      return kept.days
    }

    const streaks = Effect.fn("AthleteYear.streaks")(function*() {
      const on = yield* today
      const todayNumber = dayNumber(on)
      const { all, bySport } = activeDays()
      const sportTypes = [...bySport]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([sportType, d]): SportTypeStreaks => ({ sportType, days: dayStreaks(d, todayNumber), weeks: weekStreaks(d, todayNumber) }))
      return { today: on, overall: { days: dayStreaks(all, todayNumber), weeks: weekStreaks(all, todayNumber) }, sportTypes } satisfies Streaks
    })

    const milestones = Effect.fn("AthleteYear.milestones")(function*() {
      const walk = history()
      return walk.answer ??= walk.milestones.milestones()
    })

    const yearRows = (year: number) => localRange(String(year), String(year + 1), [], "started")

    const yearInReview = Effect.fn("AthleteYear.yearInReview")(function*(year: number | undefined) {
      const asked = year ?? Number((yield* today).slice(0, 4))
      return keptYears(String(asked), () => yearInReviewOf(asked, yearRows(asked), yearRows(asked - 1), history().records.records()))!
    })

    return { calendar, streaks, milestones, yearInReview } as const
  })
}) {}
