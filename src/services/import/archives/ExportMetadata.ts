import { SqlClient } from "@effect/sql"
import { Effect, Either, Schema } from "effect"
import { ExportedActivity } from "./StravaExportCsv.ts"

/**
 * What a Strava export's activities.csv said about the files unpacked from it, by their name
 * in the watch folder, kept in the database from the unpacking until each file's import is
 * done, so that a restart in between loses none of it.
 */

const decode = Schema.decodeUnknownEither(Schema.parseJson(ExportedActivity))
const encode = Schema.encodeSync(Schema.parseJson(ExportedActivity))

export class ExportMetadata extends Effect.Service<ExportMetadata>()("services/import/ExportMetadata", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Keeps what the export said about each of its files (replacing what an earlier export said). */
    const keep = Effect.fn("ExportMetadata.keep")(function*(files: ReadonlyMap<string, ExportedActivity>) {
      if (files.size === 0) return
      yield* sql.withTransaction(Effect.forEach(files, ([filename, exported]) =>
        sql`INSERT OR REPLACE INTO export_metadata ${sql.insert({ filename, metadata: encode(exported) })}`, { discard: true }))
    }, Effect.orDie)

    /** What was kept about `filename`, forgotten as it is answered. */
    const take = Effect.fn("ExportMetadata.take")(function*(filename: string) {
      const rows = yield* sql<{ metadata: string }>`DELETE FROM export_metadata WHERE filename = ${filename} RETURNING metadata`
      const row = rows[0]
      return row === undefined ? null : Either.getOrNull(decode(row.metadata))
    }, Effect.orDie)

    /** The sport the export gave `filename`, kept until its import is done (the parse computes the file as it). */
    const sportOf = Effect.fn("ExportMetadata.sportOf")(function*(filename: string) {
      const rows = yield* sql<{ metadata: string }>`SELECT metadata FROM export_metadata WHERE filename = ${filename}`
      const row = rows[0]
      return row === undefined ? undefined : Either.getOrNull(decode(row.metadata))?.sportType
    }, Effect.orDie)

    /** Forgets what was kept about files no longer waiting in the watch folder (listed only if anything is kept). */
    const keepOnly = Effect.fn("ExportMetadata.keepOnly")(function*(waiting: () => ReadonlyArray<string>) {
      const kept = yield* sql<{ filename: string }>`SELECT filename FROM export_metadata`
      if (kept.length === 0) return
      const present = new Set(waiting())
      const gone = kept.map((row) => row.filename).filter((name) => !present.has(name))
      if (gone.length === 0) return
      yield* sql.withTransaction(Effect.forEach(gone, (filename) => sql`DELETE FROM export_metadata WHERE filename = ${filename}`, { discard: true }))
    }, Effect.orDie)

    return { keep, take, sportOf, keepOnly } as const
  })
}) {}
