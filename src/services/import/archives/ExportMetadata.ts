import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { FileImportSource, SportType } from "../../../schema/ApiModels.ts"
import { ExportedActivity, ExportedGear, gearNamed } from "./ExportedActivity.ts"
import { ExportImages } from "./ExportImages.ts"
import { KeptArchives } from "./KeptArchives.ts"

/**
 * What an export said about the files unpacked from it, by their name in the watch folder and
 * their bytes, kept in the database from before the files enter the folder until each file's
 * import commits: the import takes it in the transaction that stores the activity (ImportWriter),
 * so that a stop at any moment loses none of it. Its images wait as files of their own
 * (ExportImages), named here.
 *
 * A row applies to the file of its name only if the file has the bytes it was kept for: a file
 * that took the name meanwhile (dropped by someone else between the unpacking and the link) is
 * imported without it. Rows kept by older versions have no bytes to check (and name their gear
 * by its name alone).
 *
 * Every activity file of a recognised export has a row, whether or not the export says anything
 * about it: the row names the export (the import row's `source`) and the archive it came from
 * (a Garmin export's files learn their names from its summaries once parsed: GarminSummaries).
 */

/** What is kept about a file: as the export said it, its images as the files staged for them (ExportImages). */
export type KeptMetadata = ExportedActivity

/** The rows as stored: also what older versions kept (gear by name, the sport left out when none). */
const Stored = Schema.Struct({
  name: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  sportType: Schema.optionalWith(Schema.NullOr(SportType), { default: () => null }),
  isCommute: Schema.Boolean,
  gear: Schema.NullOr(Schema.Union(ExportedGear, Schema.String)),
  images: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] })
})

const decode = Schema.decodeUnknownEither(Schema.parseJson(Stored))
const encode = Schema.encodeSync(Schema.parseJson(ExportedActivity))

const read = (json: string): KeptMetadata | null =>
  Either.match(decode(json), {
    onLeft: () => null,
    onRight: (stored) => ({ ...stored, gear: typeof stored.gear === "string" ? gearNamed(stored.gear) : stored.gear })
  })

/** What was kept about a file: what the export says of it (null: nothing), the export it is of and its archive. */
export interface KeptFile {
  readonly metadata: KeptMetadata | null
  /** the import row's source (null in rows of older versions) */
  readonly source: FileImportSource | null
  /** the archive it was unpacked from (null in rows of older versions) */
  readonly archive: string | null
}

/** A file to keep metadata for: its name in the watch folder and the hash of its bytes. */
export interface DescribedFile extends KeptFile {
  readonly filename: string
  readonly contentHash: string
}

interface Row {
  readonly metadata: string
  readonly content_hash: string | null
  readonly source: string | null
  readonly archive: string | null
}

const isSource = Schema.is(FileImportSource)

/** The row when it applies to bytes `contentHash`. */
const applying = (rows: ReadonlyArray<Row>, contentHash: string): KeptFile | null => {
  const row = rows[0]
  if (row === undefined || (row.content_hash !== null && row.content_hash !== contentHash)) return null
  return { metadata: read(row.metadata), source: isSource(row.source) ? row.source : null, archive: row.archive }
}

export class ExportMetadata extends Effect.Service<ExportMetadata>()("services/import/ExportMetadata", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const images = yield* ExportImages
    const archives = yield* KeptArchives

    /** Keeps what the export said about each of its files (replacing what an earlier export said of the name). */
    const keep = Effect.fn("ExportMetadata.keep")(function*(files: ReadonlyArray<DescribedFile>) {
      if (files.length === 0) return
      yield* sql.withTransaction(Effect.forEach(files, ({ archive, contentHash, filename, metadata, source }) =>
        sql`INSERT OR REPLACE INTO export_metadata ${
          sql.insert({ filename, content_hash: contentHash, metadata: metadata === null ? "null" : encode(metadata), source, archive })
        }`, { discard: true }))
    }, Effect.orDie)

    /** What was kept for `from` is for `to` now (the file of those bytes entered the folder under another name). */
    const rename = Effect.fn("ExportMetadata.rename")(function*(from: string, to: string, contentHash: string) {
      yield* sql`UPDATE OR REPLACE export_metadata SET filename = ${to} WHERE filename = ${from} AND content_hash = ${contentHash}`
    }, Effect.orDie)

    /** What was kept about the file `filename` of bytes `contentHash`; kept on. */
    const find = Effect.fn("ExportMetadata.find")(function*(filename: string, contentHash: string) {
      return applying(yield* sql<Row>`SELECT metadata, content_hash, source, archive FROM export_metadata WHERE filename = ${filename}`, contentHash)
    }, Effect.orDie)

    /**
     * What was kept about the file `filename` of bytes `contentHash`, forgotten as it is answered
     * (within the caller's transaction: the activity and the forgetting commit together). What
     * was kept for other bytes under the name is forgotten too: it was for a file gone.
     */
    const take = Effect.fn("ExportMetadata.take")(function*(filename: string, contentHash: string) {
      return applying(yield* sql<Row>`DELETE FROM export_metadata WHERE filename = ${filename} RETURNING metadata, content_hash, source, archive`, contentHash)
    }, Effect.orDie)

    /** The sport the export gave the file (the parse computes the file as it), null when none. */
    const sportOf = Effect.fn("ExportMetadata.sportOf")(function*(filename: string, contentHash: string) {
      return (yield* find(filename, contentHash))?.metadata?.sportType ?? null
    })

    /**
     * Forgets what was kept about files no longer waiting in the watch folder (listed only if
     * anything is kept), then removes the staged images that nothing kept names: what a stop
     * left of an unpacking or of an import.
     */
    const keepOnly = Effect.fn("ExportMetadata.keepOnly")(function*(waiting: () => ReadonlyArray<string>) {
      const kept = yield* sql<{ filename: string }>`SELECT filename FROM export_metadata`
      if (kept.length > 0) {
        const present = new Set(waiting())
        const gone = kept.map((row) => row.filename).filter((name) => !present.has(name))
        if (gone.length > 0) {
          yield* sql.withTransaction(Effect.forEach(gone, (filename) => sql`DELETE FROM export_metadata WHERE filename = ${filename}`, { discard: true }))
        }
      }
      const named = new Set<string>()
      for (const row of yield* sql<{ metadata: string }>`SELECT metadata FROM export_metadata`) {
        for (const image of read(row.metadata)?.images ?? []) named.add(image)
      }
      yield* images.sweep(named)
      yield* archives.sweep()
    }, Effect.orDie)

    return { keep, rename, find, take, sportOf, keepOnly } as const
  }),
  dependencies: [ExportImages.Default, KeptArchives.Default]
}) {}
