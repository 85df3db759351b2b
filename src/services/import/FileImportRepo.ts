import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { randomUUID } from "node:crypto"
import type { FileImportSource } from "../../schema/ApiModels.ts"
import { fileImportColumns } from "./FileImportFields.ts"
import { type FileImportSearch, FileImportReads } from "./FileImportReads.ts"

/** The import log: one terminal row per processed file (`success`, `skipped` or `failed`). */

export type StoredStatus = "success" | "skipped" | "failed"

export interface NewFileImport {
  readonly id: string
  readonly filename: string
  readonly source: FileImportSource
  readonly status: StoredStatus
  readonly errorMessage: string | null
  readonly activityId: string | null
  /** every activity the file made, in the file's order, the first being `activityId` (that one alone when absent) */
  readonly activityIds?: ReadonlyArray<string>
  /** what was repaired in the file */
  readonly notes?: string | null
  readonly importedOn: number
  readonly contentHash: string
  readonly sourceSize: number
  readonly sourceMtime: number
  readonly originalFile: string | null
}

export const newFileImportId = () => `fileImport-${randomUUID()}`

export class FileImportRepo extends Effect.Service<FileImportRepo>()("services/import/FileImportRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const reads = yield* FileImportReads

    const insert = Effect.fn("FileImportRepo.insert")(function*(row: NewFileImport) {
      yield* sql`INSERT INTO file_imports ${sql.insert(fileImportColumns(row))}`
    }, Effect.orDie)

    // the API's read: one code with DirectRoutes, over the read connection
    const search = Effect.fn("FileImportRepo.search")(function*(params: FileImportSearch) {
      return reads.search(params)
    })

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

    /** The original the row `id` keeps; null when it keeps none. */
    const originalOf = Effect.fn("FileImportRepo.originalOf")(function*(id: string) {
      const rows = yield* sql<{ original_file: string | null }>`SELECT original_file FROM file_imports WHERE id = ${id}`
      return rows[0]?.original_file ?? null
    }, Effect.orDie)

    return { insert, search, activityWithSameBytes, findCommitted, originalFiles, originalOf } as const
  })
}) {}
