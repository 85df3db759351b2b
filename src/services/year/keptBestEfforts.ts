import type { StoredEffort } from "./recordProgression.ts"

/**
 * The best efforts over the records' distances of each activity, kept between reads of the whole
 * history: an activity's efforts are written with it and only with it (an activity computed
 * again is deleted and stored anew, its row with another `created_at`, and another rowid unless it
 * was the last row), so they are read again only for an activity not seen before or stored anew
 * since. After an import the walk reads the new activity's efforts, not the tens of thousands of
 * the others.
 */

type Rows = (sql: string, params: ReadonlyArray<string | number>) => Array<Array<unknown>>

/**
 * Where a row of the history holds the activity's id, and what tells whether its stored row (so
 * its efforts) is the one seen: when it was stored, and its rowid.
 */
export interface OwnerColumns {
  readonly id: number
  readonly createdAt: number
  readonly rowid: number
}

interface Kept {
  readonly rowid: number
  readonly createdAt: number
  readonly efforts: ReadonlyArray<StoredEffort>
}

/** Ids asked for in one statement. */
const CHUNK = 500

export const makeKeptBestEfforts = (rows: Rows, distances: ReadonlyArray<number>) => {
  const kept = new Map<string, Kept>()
  const inDistances = `distance IN (${distances.map(() => "?").join(", ")})`
  const read = (stale: ReadonlyArray<{ readonly id: string; readonly rowid: number; readonly createdAt: number }>, all: number) => {
    const fresh = new Map<string, Array<StoredEffort>>(stale.map((a) => [a.id, []]))
    const add = (found: Array<Array<unknown>>) => {
      for (const [id, distance, time, offset] of found as Array<[string, number, number, number]>) fresh.get(id)?.push({ distance, time, offset })
    }
    if (stale.length > all / 8) {
      // most of the history: one pass over the index of every effort
      add(rows(`SELECT activity_id, distance, time_in_seconds, start_offset FROM activity_best_efforts WHERE ${inDistances}`, distances))
    } else {
      for (let i = 0; i < stale.length; i += CHUNK) {
        const ids = stale.slice(i, i + CHUNK).map((a) => a.id)
        add(rows(
          `SELECT activity_id, distance, time_in_seconds, start_offset FROM activity_best_efforts
            WHERE activity_id IN (${ids.map(() => "?").join(", ")}) AND ${inDistances}`,
          [...ids, ...distances]
        ))
      }
    }
    for (const a of stale) kept.set(a.id, { rowid: a.rowid, createdAt: a.createdAt, efforts: fresh.get(a.id)! })
  }

  /**
   * The efforts of each activity of `history` (its rows, `columns` where), by id: the whole
   * history's rows (`whole`), or those of activities added to it.
   */
  return (history: ReadonlyArray<ReadonlyArray<unknown>>, columns: OwnerColumns, whole: boolean): ((activityId: string) => ReadonlyArray<StoredEffort> | undefined) => {
    const stale: Array<{ readonly id: string; readonly rowid: number; readonly createdAt: number }> = []
    for (const row of history) {
      const id = row[columns.id] as string
      const createdAt = row[columns.createdAt] as number
      const rowid = row[columns.rowid] as number
      const seen = kept.get(id)
      if (seen === undefined || seen.createdAt !== createdAt || seen.rowid !== rowid) stale.push({ id, createdAt, rowid })
    }
    if (stale.length > 0) read(stale, whole ? history.length : kept.size + stale.length)
    if (whole && kept.size > history.length) {
      // activities deleted since: forgotten
      const ids = new Set(history.map((row) => row[columns.id]))
      for (const id of kept.keys()) if (!ids.has(id)) kept.delete(id)
    }
    return (activityId) => kept.get(activityId)?.efforts
  }
}
