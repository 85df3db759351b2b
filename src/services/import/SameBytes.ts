import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import { FileImportRepo } from "./FileImportRepo.ts"

/**
 * The one answer to "were these bytes imported before?", asked when a file is read (a file whose
 * bytes are known is not parsed), when it is committed (a duplicate of the same bytes is skipped
 * naming the activity), when a file is recorded as failed without being parsed (a failure shares
 * the original kept by an earlier failure of the same bytes), when an unpacking a stop cut short
 * resumes (an entry that reached the folder, or has its row, is not let in again) and when the
 * kept originals are looked over at start (an original whose bytes a row keeps, or whose file
 * still waits, is not imported twice). Two files hold the same bytes when their SHA-256 hashes
 * are equal.
 */

/** The hash by which two files are the same bytes (SHA-256, hex). */
export const contentHashOf = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")

/** Whether `file` is a regular file holding the bytes `contentHash` (false when it is gone, or not a regular file). */
export const fileHolds = (file: string, contentHash: string): boolean => {
  try {
    return fs.lstatSync(file).isFile() && contentHashOf(fs.readFileSync(file)) === contentHash
  } catch {
    return false
  }
}

/** The file as its import row starts: its name, and the size and modification time it was read with. */
export interface FileVersion {
  readonly filename: string
  readonly sourceSize: number
  readonly sourceMtime: number
}

/** What the import log knows of a file's bytes. */
export interface KnownBytes {
  /**
   * the row this very file (its name, bytes, size and modification time) was committed with:
   * a stop came between its row and its leaving the folder, or a held file is looked at again
   */
  readonly committed: string | null
  /** the stored activity an earlier import of the same bytes made, if it still exists (not asked when `committed` is known) */
  readonly activity: string | null
}

export class SameBytes extends Effect.Service<SameBytes>()("services/import/SameBytes", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const fileImports = yield* FileImportRepo

    /** The row this very file was committed with, if any (see KnownBytes). */
    const committed = (file: FileVersion, contentHash: string) =>
      fileImports.findCommitted(file.filename, contentHash, file.sourceSize, file.sourceMtime)

    /** What the import log knows of the file's bytes `contentHash` (see KnownBytes). */
    const known = Effect.fn("SameBytes.known")(function*(file: FileVersion, contentHash: string) {
      const row = yield* committed(file, contentHash)
      const activity = row === null ? yield* fileImports.activityWithSameBytes(contentHash) : null
      return { committed: row, activity } satisfies KnownBytes
    })

    /** Whether the import log has a row of the file `filename` with the bytes `contentHash` (of any status). */
    const recorded = Effect.fn("SameBytes.recorded")(function*(filename: string, contentHash: string) {
      const rows = yield* sql<{ n: number }>`SELECT 1 AS n FROM file_imports WHERE filename = ${filename} AND content_hash = ${contentHash} LIMIT 1`
      return rows.length > 0
    }, Effect.orDie)

    /** The originals that rows of the bytes `contentHash` keep, whatever their status. */
    const keptOriginals = Effect.fn("SameBytes.keptOriginals")(function*(contentHash: string) {
      const rows = yield* sql<{ original_file: string }>`SELECT original_file FROM file_imports
        WHERE content_hash = ${contentHash} AND original_file IS NOT NULL`
      return rows.map((row) => row.original_file)
    }, Effect.orDie)

    /** The original kept by a failed row of the bytes `contentHash`, which another failure of them shares; null when none. */
    const failedOriginal = Effect.fn("SameBytes.failedOriginal")(function*(contentHash: string) {
      const rows = yield* sql<{ original_file: string }>`SELECT original_file FROM file_imports
        WHERE content_hash = ${contentHash} AND status = 'failed' AND original_file IS NOT NULL LIMIT 1`
      return rows[0]?.original_file ?? null
    }, Effect.orDie)

    return { committed, known, recorded, keptOriginals, failedOriginal } as const
  })
}) {}
