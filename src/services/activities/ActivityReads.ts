import * as Effect from "effect/Effect"
import type { Activity, ActivityImage } from "../../schema/ApiModels.ts"
import type { ActivitySort, ActivitySortField } from "../../schema/QueryParams.ts"
import { AppConfig } from "../platform/AppConfig.ts"
import { placeholders, ReadConnection } from "../platform/ReadConnection.ts"
import { makeVersionedCache } from "../platform/VersionedCache.ts"
import { ACTIVITY_COLUMNS, activityOf } from "./ActivityRow.ts"
import { imageUrl } from "./ImageStore.ts"
import { HAS_WORDS_FUNCTION, hasWords, searchWordsParam } from "./TextSearch.ts"

/**
 * The activity reads of the API (one activity, a page of the list), as plain synchronous
 * functions over the ReadConnection: the API's handlers of these reads (HotReads) call them,
 * on the app's path and on the direct routes' alike, and the services through ActivityRepo.
 */

export interface ActivitySearch {
  readonly from?: string | undefined
  readonly to?: string | undefined
  readonly sportTypes?: ReadonlyArray<string> | undefined
  readonly hasGpx?: boolean | undefined
  /** the id of the gear they used */
  readonly gearId?: string | undefined
  /** words the name or description must contain */
  readonly search?: string | undefined
  /** newest first when absent */
  readonly sort?: ActivitySort | undefined
  readonly page: number
  readonly size: number
}

export interface ActivitySearchResult {
  readonly activities: ReadonlyArray<Activity>
  readonly total: number
}

const COLUMNS = ACTIVITY_COLUMNS.join(", ")

/**
 * One activity and its images (none: one row of nulls), in one statement: each row holds the
 * activity's columns, then the image's id and file name.
 */
export const ONE_ACTIVITY = `SELECT ${ACTIVITY_COLUMNS.map((c) => `a.${c}`).join(", ")}, i.id, i.file_name
  FROM activities a LEFT JOIN activity_images i ON i.activity_id = a.id WHERE a.id = ? ORDER BY i.created_at, i.id`
const IMAGE_ID = ACTIVITY_COLUMNS.length

/** The images of the activities of a page. */
export const imagesStatement = (activityIds: ReadonlyArray<string>) => ({
  sql: `SELECT id, activity_id, file_name FROM activity_images WHERE activity_id IN (${placeholders(activityIds.length)}) ORDER BY created_at, id`,
  params: activityIds
})

/** The WHERE clause (empty when nothing is filtered) of the activities a search's filters select, and its parameters. */
export const filterOf = (search: Omit<ActivitySearch, "page" | "size">) => {
  const conditions: Array<string> = []
  const params: Array<string | number> = []
  if (search.from !== undefined) {
    conditions.push("start_date_local >= ?")
    params.push(search.from)
  }
  if (search.to !== undefined) {
    // every local time of the day `to` sorts below "<to>T99"
    conditions.push("start_date_local < ?")
    params.push(search.to + "T99")
  }
  // a period holds only activities whose date is known: the start of one whose date is unknown is a stand-in
  if (search.from !== undefined || search.to !== undefined) conditions.push("date_unknown = 0")
  if (search.sportTypes !== undefined && search.sportTypes.length > 0) {
    conditions.push(`sport_type IN (${placeholders(search.sportTypes.length)})`)
    params.push(...search.sportTypes)
  }
  if (search.hasGpx !== undefined) {
    conditions.push("has_gpx = ?")
    params.push(search.hasGpx ? 1 : 0)
  }
  if (search.gearId !== undefined) {
    conditions.push("gear_id = ?")
    params.push(search.gearId)
  }
  const words = searchWordsParam(search.search)
  if (words !== undefined) {
    conditions.push(`${HAS_WORDS_FUNCTION}(name, description, ?)`)
    params.push(words)
  }
  return { where: conditions.length > 0 ? ` WHERE ${conditions.join(" AND ")}` : "", params }
}

/**
 * What each sort field orders by ahead of the start, and the index that holds the activities
 * in that order with the filtered columns (none for the start itself: the list's own indexes).
 */
const SORT_KEYS: Record<ActivitySortField, { readonly key: string; readonly index: string } | undefined> = {
  startDateLocal: undefined,
  name: { key: "name COLLATE NOCASE", index: "activities_by_name" },
  sportType: { key: "sport_type", index: "activities_list_by_sport" },
  distanceInMeter: { key: "distance", index: "activities_by_distance" },
  movingTimeInSeconds: { key: "moving_time", index: "activities_by_moving_time" },
  elevationInMeter: { key: "elevation", index: "activities_by_elevation" },
  averageSpeedInKmPerHour: { key: "average_speed", index: "activities_by_average_speed" }
}

/** The count and the page of a search, as statement texts and their parameters. */
export const searchStatements = (search: ActivitySearch) => {
  const { where, params } = filterOf(search)
  const sort = search.sort ?? "-startDateLocal"
  const direction = sort.startsWith("-") ? "DESC" : "ASC"
  const sorted = SORT_KEYS[sort.replace(/^-/, "") as ActivitySortField]
  // Without statistics SQLite would count a date range by walking every activity of the
  // sport type, and read a page by fetching and sorting every activity of the range: the
  // count is named its covering index, and the page the index it is ordered by, where the
  // filters are tested before any row is read and the walk stops at the page's end.
  const counted = search.from !== undefined || search.to !== undefined ? "activities INDEXED BY activities_local_day" : "activities"
  const index = sorted?.index ?? (search.sportTypes?.length === 1 ? "activities_list_by_sport" : "activities_list")
  const order = [...(sorted === undefined ? [] : [sorted.key]), "start_time", "id"].map((key) => `${key} ${direction}`).join(", ")
  return {
    count: { sql: `SELECT COUNT(*) FROM ${counted}${where}`, params },
    page: {
      sql: `SELECT ${COLUMNS} FROM activities INDEXED BY ${index}${where} ORDER BY ${order} LIMIT ? OFFSET ?`,
      params: [...params, search.size, (search.page - 1) * search.size]
    }
  }
}

/** Totals kept per filter until the next commit: counting a filtered range walks all of it. */
const MAX_COUNTS = 256

export class ActivityReads extends Effect.Service<ActivityReads>()("services/activities/ActivityReads", {
  effect: Effect.gen(function*() {
    const db = yield* ReadConnection
    const config = yield* AppConfig
    db.defineFunction(HAS_WORDS_FUNCTION, hasWords)

    const withImages = (rows: ReadonlyArray<Array<unknown>>): Array<Activity> => {
      if (rows.length === 0) return []
      const statement = imagesStatement(rows.map((r) => r[0] as string))
      const images = db.rows(statement.sql, statement.params)
      const byActivity = new Map<string, Array<ActivityImage>>()
      for (const [id, activityId, fileName] of images as Array<[string, string, string]>) {
        const list = byActivity.get(activityId) ?? []
        list.push({ id, url: imageUrl(config.appUrl, fileName) })
        byActivity.set(activityId, list)
      }
      return rows.map((values) => activityOf(values, byActivity.get(values[0] as string) ?? []))
    }

    const counts = makeVersionedCache<number>({ version: db.dataVersion, capacity: MAX_COUNTS, weigh: () => 1 })
    const countOf = (sql: string, params: ReadonlyArray<string | number>): number =>
      counts(`${sql}\u0000${params.join("\u0000")}`, () => Number(db.rows(sql, params)[0]![0]))!

    const findById = (id: string): Activity | null => {
      const rows = db.rows(ONE_ACTIVITY, [id])
      if (rows.length === 0) return null
      const images: Array<ActivityImage> = []
      for (const row of rows) {
        if (row[IMAGE_ID] !== null) images.push({ id: row[IMAGE_ID] as string, url: imageUrl(config.appUrl, row[IMAGE_ID + 1] as string) })
      }
      return activityOf(rows[0]!, images)
    }

    const search = (params: ActivitySearch): ActivitySearchResult => {
      const { count, page } = searchStatements(params)
      const total = countOf(count.sql, count.params)
      return { activities: withImages(db.rows(page.sql, page.params)), total }
    }

    return { findById, search } as const
  })
}) {}
