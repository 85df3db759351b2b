import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import type { BestEffort as DraftBestEffort } from "../../schema/ActivityDraft.ts"
import { type BestEffort, type Lap, type Length, type Split, STREAM_NAMES, type Streams } from "../../schema/ActivityDetailModels.ts"
import { effortName } from "../../schema/EffortDistances.ts"
import { ReadConnection } from "../platform/ReadConnection.ts"
import { StoragePaths } from "../platform/StoragePaths.ts"
import { parseStream, type StoredStreams, storedStreams } from "./StreamsCodec.ts"
import { pickSamples, thinnedIndices } from "./StreamsThinning.ts"

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
  if (lower.endsWith(".kml")) return "application/vnd.google-earth.kml+xml"
  if (lower.endsWith(".kmz")) return "application/vnd.google-earth.kmz"
  return "application/octet-stream"
}

export interface StreamsAnswer {
  /** changes whenever the stored streams or the thinning asked for change */
  readonly etag: string
  /** the answer's JSON body (of the `Streams` schema), computed only when asked for (a client's cached copy may still be good) */
  readonly body: () => Uint8Array
}

const ONE_STREAMS = `SELECT s.data FROM activities a LEFT JOIN activity_streams s ON s.activity_id = a.id WHERE a.id = ?`
const EXISTS = `SELECT 1 FROM activities WHERE id = ?`
const LAPS = `SELECT data FROM activity_laps WHERE activity_id = ? ORDER BY lap_index`
// kilometres before miles, 100 m before 100 yd
const SPLITS = `SELECT data FROM activity_splits WHERE activity_id = ? ORDER BY unit IN ('mile', '100yd'), split_index`
const LENGTHS = `SELECT data FROM activity_lengths WHERE activity_id = ? ORDER BY length_index`
// a file that made several activities (a triathlon) is the original of each of them
const ORIGINAL = `SELECT f.filename, f.original_file FROM activities a
  LEFT JOIN file_imports f ON f.original_file IS NOT NULL
    AND (f.activity_id = a.id OR EXISTS (SELECT 1 FROM json_each(f.activity_ids) j WHERE j.value = a.id))
  WHERE a.id = ? ORDER BY f.activity_id = a.id DESC LIMIT 1`
const BEST_EFFORTS = `SELECT distance, time_in_seconds, start_offset FROM activity_best_efforts WHERE activity_id = ? ORDER BY distance`

const STREAMS_OPEN = Buffer.from(`{"streams":{`)
const STREAMS_CLOSE = Buffer.from("}}")
/** `"name":` of each stream, and `,"name":` for every stream after the first */
const FIRST_KEY = new Map(STREAM_NAMES.map((name) => [name, Buffer.from(`"${name}":`)]))
const NEXT_KEY = new Map(STREAM_NAMES.map((name) => [name, Buffer.from(`,"${name}":`)]))

/**
 * The JSON body of the streams answer (the `Streams` schema) for the `stored` streams: the
 * recorded ones the API shows, thinned to at most `limit` samples when given. Unthinned,
 * the stored texts are the answer's own (JSON is JSON): they are copied, not parsed again.
 */
export const streamsBody = (stored: StoredStreams | null, limit: number | undefined): Buffer => {
  const n = stored?.samples ?? 0
  const recorded = STREAM_NAMES.flatMap((name) => {
    const stream = stored?.streams.get(name)
    return stream !== undefined && stream.length === n && n > 0 ? [[name, stream] as const] : []
  })
  if (limit === undefined || n <= limit) {
    const parts = recorded.flatMap(([name, stream], i) => [(i === 0 ? FIRST_KEY : NEXT_KEY).get(name)!, stream.text])
    return Buffer.concat([STREAMS_OPEN, ...parts, STREAMS_CLOSE])
  }
  const values = new Map(recorded.map(([name, stream]) => [name, parseStream(stream) as Array<number | [number, number] | null>]))
  const indices = thinnedIndices(
    n,
    limit,
    // a route whose times are unknown is thinned along its distance
    (values.get("time") ?? values.get("distance") ?? Array.from({ length: n }, (_, i) => i)) as Array<number>,
    [...values].filter(([name]) => name !== "time" && name !== "latlng" && name !== "distance").map(([, series]) => series as Array<number | null>),
    values.get("latlng") as Array<[number, number] | null> | undefined
  )
  const out: Record<string, unknown> = {}
  for (const [name, series] of values) out[name] = pickSamples(series, indices)
  return Buffer.from(JSON.stringify({ streams: out } satisfies Streams), "latin1")
}

/** A best effort with what follows from it: its name and its end. */
const bestEffortOf = (effort: DraftBestEffort): BestEffort => ({
  name: effortName(effort.distanceInMeter),
  ...effort,
  endOffsetInSeconds: effort.startOffsetInSeconds + effort.elapsedTimeInSeconds
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
        body: () => streamsBody(data === null ? null : storedStreams(data), points)
      } satisfies StreamsAnswer
    })

    const laps = Effect.fn("ActivityDetail.laps")(function*(id: string) {
      const rows = rowsOf(LAPS, id)
      return rows === null ? null : rows.map((r) => JSON.parse(r[0] as string) as Lap)
    })

    const splits = Effect.fn("ActivityDetail.splits")(function*(id: string) {
      const rows = rowsOf(SPLITS, id)
      return rows === null ? null : rows.map((r) => JSON.parse(r[0] as string) as Split)
    })

    const lengths = Effect.fn("ActivityDetail.lengths")(function*(id: string) {
      const rows = rowsOf(LENGTHS, id)
      return rows === null ? null : rows.map((r) => JSON.parse(r[0] as string) as Length)
    })

    const bestEfforts = Effect.fn("ActivityDetail.bestEfforts")(function*(id: string) {
      const rows = rowsOf(BEST_EFFORTS, id)
      return rows === null
        ? null
        : rows.map(([distance, time, start]) =>
          bestEffortOf({ distanceInMeter: distance as number, elapsedTimeInSeconds: time as number, startOffsetInSeconds: start as number })
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

    return { streams, laps, lengths, splits, bestEfforts, original } as const
  })
}) {}
