import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { ExportedActivity } from "../archives/ExportedActivity.ts"
import { GARMIN_MATCH_TOLERANCE_MS, type GarminSummary, matchSummary } from "./GarminExport.ts"

/**
 * A Garmin Connect export's summaries, kept in the database by archive (the hash of its bytes)
 * from its unpacking until the last of its files is imported: its files carry no activity id,
 * so each activity learns its name, sport and description only once parsed, from the summary
 * starting nearest it (matchSummary). A restart half way through keeps them with the files
 * still waiting; they are forgotten with the archive (KeptArchives).
 */

const decode = Schema.decodeUnknownEither(Schema.parseJson(ExportedActivity))
const encode = Schema.encodeSync(Schema.parseJson(ExportedActivity))

/** Rows inserted per statement (SQLite's limit of bound values is 32,766; four a row). */
const BATCH = 1000

export class GarminSummaries extends Effect.Service<GarminSummaries>()("services/import/GarminSummaries", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Keeps the summaries of the archive `archive` (replacing any kept for it before). */
    const keep = Effect.fn("GarminSummaries.keep")(function*(archive: string, summaries: ReadonlyArray<GarminSummary>) {
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`DELETE FROM export_summaries WHERE archive = ${archive}`
        for (let i = 0; i < summaries.length; i += BATCH) {
          const rows = summaries.slice(i, i + BATCH).map((s) => ({
            archive,
            start_time: s.startTime,
            is_parent: s.isParent ? 1 : 0,
            metadata: encode(s.metadata)
          }))
          yield* sql`INSERT INTO export_summaries ${sql.insert(rows)}`
        }
      }))
    }, Effect.orDie)

    /** What the archive's summaries say about the activity starting at `startTime` (UTC ms), null when none starts near it. */
    const match = Effect.fn("GarminSummaries.match")(function*(archive: string, startTime: number) {
      const rows = yield* sql<{ start_time: number; is_parent: number; metadata: string }>`
        SELECT start_time, is_parent, metadata FROM export_summaries
        WHERE archive = ${archive} AND start_time BETWEEN ${startTime - GARMIN_MATCH_TOLERANCE_MS} AND ${startTime + GARMIN_MATCH_TOLERANCE_MS}
        ORDER BY start_time`
      const near = rows.flatMap((row): Array<GarminSummary> =>
        Either.match(decode(row.metadata), {
          onLeft: () => [],
          onRight: (metadata) => [{ activityId: null, startTime: row.start_time, isParent: row.is_parent === 1, metadata }]
        })
      )
      return matchSummary(near, startTime)
    }, Effect.orDie)

    return { keep, match } as const
  })
}) {}
