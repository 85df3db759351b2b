import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { MAX_IMPORT_MESSAGE_LENGTH, truncateText } from "../../schema/ActivityLimits.ts"
import type { FileImport, FileImportSource } from "../../schema/ApiModels.ts"

/** The import log: one terminal row per processed file (`success`, `skipped` or `failed`). */

export type StoredStatus = "success" | "skipped" | "failed"

export interface NewFileImport {
  readonly id: string
  readonly filename: string
  readonly source: FileImportSource
  readonly status: StoredStatus
  readonly errorMessage: string | null
  readonly activityId: string | null
  readonly importedOn: number
  readonly contentHash: string
  readonly sourceSize: number
  readonly sourceMtime: number
  readonly originalFile: string | null
}

interface Row {
  readonly id: string
  readonly filename: string
  readonly source: string
  readonly status: string
  readonly error_message: string | null
  readonly activity_id: string | null
  readonly imported_on: number
}

export const newFileImportId = () => `fileImport-${randomUUID()}`

const isoSeconds = (epochMs: number) => {
  const date = new Date(Math.floor(epochMs / 1000) * 1000)
  return Number.isNaN(date.getTime()) ? null : date.toISOString().replace(".000Z", "Z")
}

/** A reason quoting the file (a name, a number of a million digits) stays readable and small. */
const capped = (message: string | null) => (message === null ? null : truncateText(message, MAX_IMPORT_MESSAGE_LENGTH))

export const toFileImport = (row: Row): FileImport => ({
  id: row.id,
  filename: row.filename,
  source: row.source as FileImportSource,
  status: row.status as StoredStatus,
  // rows stored before messages were capped are cut when served
  errorMessage: capped(row.error_message),
  activityId: row.activity_id,
  importedOn: isoSeconds(row.imported_on)
})

export class FileImportRepo extends Effect.Service<FileImportRepo>()("services/import/FileImportRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = Effect.fn("FileImportRepo.insert")(function*(row: NewFileImport) {
      yield* sql`INSERT INTO file_imports ${sql.insert({
        id: row.id,
        filename: row.filename,
        source: row.source,
        status: row.status,
        error_message: capped(row.errorMessage),
        activity_id: row.activityId,
        imported_on: row.importedOn,
        content_hash: row.contentHash,
        source_size: row.sourceSize,
        source_mtime: row.sourceMtime,
        original_file: row.originalFile
      })}`
    }, Effect.orDie)

    const search = Effect.fn("FileImportRepo.search")(function*(params: {
      readonly filename?: string | undefined
      readonly statuses?: ReadonlyArray<string> | undefined
      readonly sources?: ReadonlyArray<string> | undefined
      readonly offset: number
      readonly limit: number
    }) {
      const conditions = [
        ...(params.filename !== undefined ? [sql`filename = ${params.filename}`] : []),
        ...(params.statuses !== undefined ? [sql.in("status", params.statuses.length > 0 ? params.statuses : ["-"])] : []),
        ...(params.sources !== undefined && params.sources.length > 0 ? [sql.in("source", params.sources)] : [])
      ]
      const where = conditions.length > 0 ? sql`WHERE ${sql.and(conditions)}` : sql``
      const counted = yield* sql<{ total: number }>`SELECT COUNT(*) AS total FROM file_imports ${where}`
      // a page is read in the list's order, its filters tested on the index: without statistics
      // SQLite would fetch and sort every row of a status to return a few
      const listed = params.filename === undefined ? sql`file_imports INDEXED BY file_imports_list` : sql`file_imports`
      const rows = params.limit <= 0 ? [] : yield* sql<Row>`SELECT id, filename, source, status, error_message, activity_id, imported_on
        FROM ${listed} ${where} ORDER BY imported_on DESC, rowid DESC LIMIT ${params.limit} OFFSET ${Math.max(0, params.offset)}`
      return { rows: rows.map(toFileImport), total: counted[0]!.total }
    }, Effect.orDie)

    /** The activity an earlier successful import of the same bytes produced, if it still exists. */
    const activityWithSameBytes = Effect.fn("FileImportRepo.activityWithSameBytes")(function*(contentHash: string) {
      const rows = yield* sql<{ activity_id: string }>`SELECT activity_id FROM file_imports
        WHERE content_hash = ${contentHash} AND status = 'success' AND activity_id IS NOT NULL LIMIT 1`
      return rows[0]?.activity_id ?? null
    }, Effect.orDie)

    /** A row already committed for this very file (same name, bytes and modification time): the crash-recovery case. */
    const findCommitted = Effect.fn("FileImportRepo.findCommitted")(function*(filename: string, contentHash: string, size: number, mtime: number) {
      const rows = yield* sql<{ id: string }>`SELECT id FROM file_imports WHERE filename = ${filename}
        AND content_hash = ${contentHash} AND source_size = ${size} AND source_mtime = ${mtime} LIMIT 1`
      return rows[0]?.id ?? null
    }, Effect.orDie)

    const originalFiles = Effect.fn("FileImportRepo.originalFiles")(function*() {
      const rows = yield* sql<{ original_file: string }>`SELECT original_file FROM file_imports WHERE original_file IS NOT NULL`
      return new Set(rows.map((r) => r.original_file))
    }, Effect.orDie)

    return { insert, search, activityWithSameBytes, findCommitted, originalFiles } as const
  })
}) {}
