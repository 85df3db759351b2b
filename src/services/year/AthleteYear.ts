import * as Effect from "effect/Effect"
import { ActivityFields } from "../../schema/ActivityFields.ts"
import { MILE, type SportType } from "../../schema/SportType.ts"
import type { SportTypeStreaks, Streaks } from "../../schema/YearStreakModels.ts"
import type { Milestone } from "../../schema/YearMilestoneModels.ts"
import { durationText } from "./durationText.ts"
import type { YearInReview } from "../../schema/YearInReviewModels.ts"
import { AppConfig } from "../platform/AppConfig.ts"
import { placeholders, ReadConnection } from "../platform/ReadConnection.ts"
import { makeVersionedCache } from "../platform/VersionedCache.ts"
import { DISCIPLINES } from "../stats/Stats.ts"
import { calendarOf, calendarSpan } from "./calendarOf.ts"
import { dateOf, dayNumber, todayIn } from "../platform/LocalTime.ts"
import { countriesOf } from "./countriesOf.ts"
import { HISTORY_CHANGES_SQL, type HistoryChanges, makeHistory } from "./History.ts"
import { dayStreaks, weekStreaks } from "./Streaks.ts"
import { type YearRow, yearInReviewOf } from "./yearInReviewOf.ts"

/**
 * The athlete's year over the stored activities, read on the read connection: the calendar of a
 * month, the streaks, the milestones and the year in review. Days, weeks, months and years are
 * those of each activity's local start (`startDateLocal`); "today" is the date where the service
 * runs (TZ). Values are read as the activity list reads them (ActivityFields), so each figure is
 * the one the list's activities add up to. The walk of the whole history (the milestones, the
 * records set) is kept and brought up to date with what changed (History); the active days and
 * the years reviewed are kept until an activity changes in what they read (the columns of
 * migration 0009's triggers); a month's calendar is read each time.
 */

const F = ActivityFields

/** Years reviewed kept at once. */
const MAX_KEPT_YEARS = 64

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
    const keptChanges = makeVersionedCache<HistoryChanges>({ version: db.dataVersion, capacity: 4, weigh: () => 1 })
    const walkOf = makeHistory(db.rows, RECORD_DISTANCES, unit)
    const today = todayIn(config.timeZone)

    /** What changed the history, read again after each commit. */
    const changesNow = (): HistoryChanges =>
      keptChanges("changes", () => {
        const [inserted, rewritten] = db.rows(HISTORY_CHANGES_SQL, [])[0] as [number, number]
        return { inserted, rewritten }
      })!
    const unchanged = (a: HistoryChanges, b: HistoryChanges) => a.inserted === b.inserted && a.rewritten === b.rewritten
    const history = () => walkOf(changesNow())

    /** The active days and the years reviewed, as of the changes they were read at. */
    const kept: {
      days: (ActiveDays & { readonly changes: HistoryChanges }) | null
      years: Map<number, { readonly changes: HistoryChanges; readonly review: YearInReview }>
    } = { days: null, years: new Map() }

    /**
     * The activities whose local start is in [from, until), of `sportTypes` when given: in the
     * order they started, or by their local start (a calendar's day reads in the order of its
     * wall clock).
     */
    const localRange = (from: string, until: string, sportTypes: ReadonlyArray<string>, order: "started" | "local") =>
      db.rows(
        `SELECT ${ROW_COLUMNS} FROM dated_activities WHERE start_date_local >= ? AND start_date_local < ?${
          sportTypes.length > 0 ? ` AND sport_type IN (${placeholders(sportTypes.length)})` : ""
        } ORDER BY ${order === "local" ? "start_date_local, start_time, id" : "start_time, id"}`,
        [from, until, ...sportTypes]
      ).map(rowOf)

    /**
     * The local date of the latest activity up to today, else today: a page asked for no period
     * opens on the athlete's latest one (an archive of past years opens on its last year, not on an
     * empty present).
     */
    const latestDay = Effect.gen(function*() {
      const on = yield* today
      const latest = db.rows("SELECT MAX(start_date_local) FROM dated_activities WHERE start_date_local < ?", [`${on}T24`])[0]?.[0]
      return typeof latest === "string" && latest.length >= 10 ? latest.slice(0, 10) : on
    })

    const calendar = Effect.fn("AthleteYear.calendar")(function*(month: string | undefined, sportTypes: ReadonlyArray<string> | undefined) {
      const asked = month ?? (yield* latestDay).slice(0, 7)
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
      for (const [day, sportType] of db.rows("SELECT DISTINCT substr(start_date_local, 1, 10) AS day, sport_type FROM dated_activities ORDER BY day", [])) {
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
      const walked = walk.answer ??= walk.milestones.milestones()
      const records = segmentRecords()
      if (records.length === 0) return walked
      // newest first; the sort is stable, so what one activity made keeps its order
      return [...records, ...walked].sort((a, b) => (a.on < b.on ? 1 : a.on > b.on ? -1 : 0))
    })

    /** Each effort on a segment faster than every one before it there (the segments' leaderboards, read as they are). */
    const segmentRecords = (): Array<Milestone> =>
      db.rows(
        `SELECT substr(a.start_date_local, 1, 10), e.activity_id, a.sport_type, s.name, e.elapsed_time
         FROM segment_efforts e JOIN segments s ON s.id = e.segment_id JOIN dated_activities a ON a.id = e.activity_id
         WHERE NOT EXISTS (SELECT 1 FROM segment_efforts o WHERE o.segment_id = e.segment_id AND o.start_time < e.start_time AND o.elapsed_time <= e.elapsed_time)
         ORDER BY e.start_time DESC`,
        []
      ).map(([on, activityId, sportType, name, seconds]) => ({
        on: on as string,
        kind: "segmentRecord" as const,
        title: `New record on ${name as string}: ${durationText(seconds as number)}`,
        activityId: activityId as string,
        sportType: F.sportType.read(sportType),
        value: seconds as number
      }))

    const yearRows = (year: number) => localRange(String(year), String(year + 1), [], "started")

    const yearInReview = Effect.fn("AthleteYear.yearInReview")(function*(year: number | undefined) {
      const asked = year ?? Number((yield* latestDay).slice(0, 4))
      const changes = changesNow()
      const seen = kept.years.get(asked)
      if (seen !== undefined && unchanged(seen.changes, changes)) return seen.review
      const review = yearInReviewOf(asked, yearRows(asked), yearRows(asked - 1), history().records.records())
      if (kept.years.size >= MAX_KEPT_YEARS) kept.years.clear()
      kept.years.set(asked, { changes, review })
      return review
    })

    return { calendar, streaks, milestones, yearInReview } as const
  })
}) {}
