import { Effect } from "effect"
import { ActivityFields } from "../../schema/ActivityFields.ts"
import type { Milestone } from "../../schema/MilestoneModels.ts"
import { MILE, type SportType } from "../../schema/SportType.ts"
import type { PersonalRecord } from "../../schema/StatsModels.ts"
import type { SportTypeStreaks, Streaks } from "../../schema/StreakModels.ts"
import type { YearInReview } from "../../schema/YearInReviewModels.ts"
import { AppConfig } from "../platform/AppConfig.ts"
import { placeholders, ReadConnection } from "../platform/ReadConnection.ts"
import { makeVersionedCache } from "../platform/VersionedCache.ts"
import { DISCIPLINES } from "../stats/Stats.ts"
import { calendarOf, calendarSpan } from "./calendarOf.ts"
import { dateOf, dayNumber, todayIn } from "./LocalDays.ts"
import { type MilestoneActivity, milestonesOf } from "./milestonesOf.ts"
import { makeKeptBestEfforts } from "./keptBestEfforts.ts"
import { recordProgression } from "./recordProgression.ts"
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

/** Every activity in the order they started, and the records they set. */
interface History {
  readonly activities: ReadonlyArray<MilestoneActivity>
  readonly records: ReadonlyArray<PersonalRecord>
}

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
    const keptHistory = cache<History>()
    const keptMilestones = cache<ReadonlyArray<Milestone>>()
    const bestEfforts = makeKeptBestEfforts(db.rows, RECORD_DISTANCES)
    const keptDays = cache<ActiveDays>()
    const keptYears = cache<YearInReview>()
    const today = todayIn(config.timeZone)

    /** The history as of the last commit: its walk's columns from one index, each run's and ride's efforts kept between commits. */
    const history = (): History =>
      keptHistory("history", () => {
        const rows = db.rows(
          "SELECT id, sport_type, start_date_local, distance, country_code, passed_through_countries, created_at, rowid FROM activities ORDER BY start_time, id",
          []
        )
        const activities = rows.map((r): MilestoneActivity => ({
          id: F.id.read(r[0]),
          sportType: F.sportType.read(r[1]),
          startDateLocal: F.startDateLocal.read(r[2]),
          distance: F.distanceInMeter.read(r[3]),
          countries: countriesOf(r[4], r[5])
        }))
        const effortsOf = bestEfforts(rows, { id: 0, createdAt: 6, rowid: 7 })
        return { activities, records: recordProgression(activities, effortsOf) }
      })!

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

    const activeDays = (): ActiveDays =>
      keptDays("days", () => {
        const all = new Set<number>()
        const bySport = new Map<SportType, Array<number>>()
        // the days of each sport type, ascending: from the covering index of the local day
        for (const [day, sportType] of db.rows("SELECT DISTINCT substr(start_date_local, 1, 10) AS day, sport_type FROM activities ORDER BY day", [])) {
          const n = dayNumber(F.startDateLocal.read(day))
          const sport = F.sportType.read(sportType)
          all.add(n)
          const days = bySport.get(sport)
          if (days === undefined) bySport.set(sport, [n])
          else days.push(n)
        }
        return { all: [...all], bySport }
      })!

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
      return keptMilestones("milestones", () => {
        const { activities, records } = history()
        return milestonesOf(activities, records, unit)
      })!
    })

    const yearRows = (year: number) => localRange(String(year), String(year + 1), [], "started")

    const yearInReview = Effect.fn("AthleteYear.yearInReview")(function*(year: number | undefined) {
      const asked = year ?? Number((yield* today).slice(0, 4))
      return keptYears(String(asked), () => yearInReviewOf(asked, yearRows(asked), yearRows(asked - 1), history().records))!
    })

    return { calendar, streaks, milestones, yearInReview } as const
  })
}) {}
