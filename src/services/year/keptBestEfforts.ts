import type { StoredEffort } from "./recordProgression.ts"

/**
 * The best efforts over the records' distances of each activity, kept between walks of the
 * history: an activity's efforts are written with it and only with it (an activity computed
 * again is deleted and stored anew, its row with another `created_at`, and another rowid unless it
 * was the last row), so they are read again only for an activity not seen before or stored anew
 * since.
 */

type Rows = (sql: string, params: ReadonlyArray<string | number>) => Array<Array<unknown>>

/** An activity, with what tells whether its stored row (so its efforts) is the one seen. */
export interface EffortsOwner {
  readonly id: string
  readonly rowid: number
  readonly createdAt: number
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

  const read = (stale: ReadonlyArray<EffortsOwner>, manyOf: number) => {
    const fresh = new Map<string, Array<StoredEffort>>(stale.map((a) => [a.id, []]))
    const add = (found: Array<Array<unknown>>) => {
      for (const [id, distance, time, offset] of found as Array<[string, number, number, number]>) fresh.get(id)?.push({ distance, time, offset })
    }
    if (stale.length > manyOf / 8) {
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

  return {
    /**
     * Reads the efforts of those of `owners` not seen or stored anew since; `all` when they are
     * every activity there is (the others are forgotten).
     */
    refresh: (owners: ReadonlyArray<EffortsOwner>, all: boolean) => {
      const stale = owners.filter((a) => {
        const seen = kept.get(a.id)
        return seen === undefined || seen.createdAt !== a.createdAt || seen.rowid !== a.rowid
      })
      if (stale.length > 0) read(stale, all ? owners.length : kept.size + stale.length)
      if (all && kept.size > owners.length) {
        const ids = new Set(owners.map((a) => a.id))
        for (const id of kept.keys()) if (!ids.has(id)) kept.delete(id)
      }
    },
    /** The efforts of an activity refreshed. */
    of: (activityId: string): ReadonlyArray<StoredEffort> | undefined => kept.get(activityId)?.efforts
  }
}
