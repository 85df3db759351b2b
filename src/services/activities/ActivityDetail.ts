import { Effect } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import type { ActivityStreams, BestEffort as StoredBestEffort, Lap as StoredLap, Split as StoredSplit } from "../../schema/ActivityDraft.ts"
import { type BestEffort, type Lap, type Split, STREAM_TYPES, type StreamType, type Streams } from "../../schema/ActivityDetailModels.ts"
import { effortName } from "../../schema/EffortDistances.ts"
import { ReadConnection } from "../platform/ReadConnection.ts"
import { StoragePaths } from "../platform/StoragePaths.ts"
import { decodeStreams } from "./StreamsCodec.ts"
import { thinnedIndices } from "./StreamsThinning.ts"

/**
 * What an activity recorded beyond its summary, as the API reads it: its streams (thinned on
 * request), laps, splits, best efforts and the file it was imported from. Each read is null
 * for an unknown activity.
 */

/** The file an activity was imported from, as kept: where it is, its name and media type. */
export interface KeptOriginal {
  readonly path: string
  readonly filename: string
  readonly contentType: string
}

/** The media type of an activity file by its name (gzip for a compressed one). */
export const originalContentType = (filename: string): string => {
  const lower = filename.toLowerCase()
  if (lower.endsWith(".gz")) return "application/gzip"
  if (lower.endsWith(".gpx")) return "application/gpx+xml"
  if (lower.endsWith(".tcx")) return "application/vnd.garmin.tcx+xml"
  if (lower.endsWith(".fit")) return "application/vnd.ant.fit"
  return "application/octet-stream"
}

export interface StreamsAnswer {
  /** changes whenever the stored streams or the thinning asked for change */
  readonly etag: string
  /** the answer's body, computed only when asked for (a client's cached copy may still be good) */
  readonly body: () => Streams
}

const ONE_STREAMS = `SELECT s.data FROM activities a LEFT JOIN activity_streams s ON s.activity_id = a.id WHERE a.id = ?`
const EXISTS = `SELECT 1 FROM activities WHERE id = ?`
const LAPS = `SELECT data FROM activity_laps WHERE activity_id = ? ORDER BY lap_index`
const SPLITS = `SELECT data FROM activity_splits WHERE activity_id = ? ORDER BY unit = 'imperial', split_index`
const ORIGINAL = `SELECT f.filename, f.original_file FROM activities a
  LEFT JOIN file_imports f ON f.activity_id = a.id AND f.original_file IS NOT NULL WHERE a.id = ? LIMIT 1`
const BEST_EFFORTS = `SELECT distance, time_in_seconds, start_offset FROM activity_best_efforts WHERE activity_id = ? ORDER BY distance`

/** The recorded streams of `stored` under the API's names, thinned to at most `limit` samples when given. */
export const streamsOf = (stored: ActivityStreams, limit: number | undefined): Streams["streams"] => {
  const n = stored.time.length
  const recorded = (Object.entries(STREAM_TYPES) as Array<[StreamType, keyof ActivityStreams]>)
    .filter(([, key]) => key !== "moving" && Array.isArray(stored[key]) && stored[key]!.length === n && n > 0)
  const indices = limit === undefined || n <= limit
    ? undefined
    : thinnedIndices(
      n,
      limit,
      stored.time,
      recorded.filter(([name]) => name !== "time" && name !== "latlng" && name !== "distance").map(([, key]) => stored[key] as Array<number | null>),
      stored.latlng
    )
  const out: Record<string, unknown> = {}
  for (const [name, key] of recorded) {
    const values = stored[key] as Array<unknown>
    out[name] = indices === undefined ? values : indices.map((i) => values[i] ?? null)
  }
  return out as Streams["streams"]
}

const lapOf = (lap: StoredLap): Lap => ({
  lapIndex: lap.lapIndex,
  name: lap.name,
  startOffsetInSeconds: lap.startOffsetSeconds,
  distanceInMeter: lap.distanceInMeter,
  elevationInMeter: lap.elevationInMeter,
  movingTimeInSeconds: lap.movingTimeInSeconds,
  elapsedTimeInSeconds: lap.elapsedTimeInSeconds,
  averageSpeedInKmPerHour: lap.averageSpeedInKmPerHour,
  maxSpeedInKmPerHour: lap.maxSpeedInKmPerHour,
  averageHeartRate: lap.averageHeartRate
})

const splitOf = (split: StoredSplit): Split => ({
  unit: split.unit === "imperial" ? "mile" : "km",
  splitIndex: split.splitIndex,
  distanceInMeter: split.distanceInMeter,
  elevationDifferenceInMeter: split.elevationDifferenceInMeter,
  movingTimeInSeconds: split.movingTimeInSeconds,
  elapsedTimeInSeconds: split.elapsedTimeInSeconds,
  averageSpeedInKmPerHour: split.averageSpeedInKmPerHour,
  averageHeartRate: split.averageHeartRate
})

export const bestEffortOf = (effort: StoredBestEffort): BestEffort => ({
  name: effortName(effort.distanceInMeter),
  distanceInMeter: effort.distanceInMeter,
  elapsedTimeInSeconds: effort.timeInSeconds,
  startOffsetInSeconds: effort.startOffsetSeconds,
  endOffsetInSeconds: effort.startOffsetSeconds + effort.timeInSeconds
})

export class ActivityDetail extends Effect.Service<ActivityDetail>()("services/activities/ActivityDetail", {
  effect: Effect.gen(function*() {
    const db = yield* ReadConnection
    const paths = yield* StoragePaths

    const exists = (id: string) => db.rows(EXISTS, [id]).length > 0
    /** The rows of `sql` for the activity, or null when there is no such activity. */
    const rowsOf = (sql: string, id: string) => {
      const rows = db.rows(sql, [id])
      return rows.length === 0 && !exists(id) ? null : rows
    }

    const streams = Effect.fn("ActivityDetail.streams")(function*(id: string, points: number | undefined) {
      const rows = db.rows(ONE_STREAMS, [id])
      if (rows.length === 0) return null
      const data = rows[0]![0] as Uint8Array | null
      const etag = `"${data === null ? "none" : createHash("sha1").update(data).digest("base64url").slice(0, 22)}${points === undefined ? "" : `-${points}`}"`
      return {
        etag,
        body: () => ({ streams: data === null ? {} : streamsOf(decodeStreams(data), points) })
      } satisfies StreamsAnswer
    })

    const laps = Effect.fn("ActivityDetail.laps")(function*(id: string) {
      const rows = rowsOf(LAPS, id)
      return rows === null ? null : rows.map((r) => lapOf(JSON.parse(r[0] as string)))
    })

    const splits = Effect.fn("ActivityDetail.splits")(function*(id: string) {
      const rows = rowsOf(SPLITS, id)
      return rows === null ? null : rows.map((r) => splitOf(JSON.parse(r[0] as string)))
    })

    const bestEfforts = Effect.fn("ActivityDetail.bestEfforts")(function*(id: string) {
      const rows = rowsOf(BEST_EFFORTS, id)
      return rows === null
        ? null
        : rows.map(([distance, time, start]) =>
          bestEffortOf({ distanceInMeter: distance as number, timeInSeconds: time as number, startOffsetSeconds: start as number })
        )
    })

    /** null for an unknown activity; `"none"` when no original was kept (an activity from Strava). */
    const original = Effect.fn("ActivityDetail.original")(function*(id: string) {
      const rows = db.rows(ORIGINAL, [id])
      if (rows.length === 0) return null
      const [filename, kept] = rows[0]! as [string | null, string | null]
      if (filename === null || kept === null) return "none" as const
      const file = path.join(paths.originalsDir, path.basename(kept))
      if (!fs.existsSync(file)) return "none" as const
      return { path: file, filename, contentType: originalContentType(kept) } satisfies KeptOriginal
    })

    return { streams, laps, splits, bestEfforts, original } as const
  })
}) {}
