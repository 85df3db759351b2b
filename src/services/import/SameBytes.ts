import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import { FileImportRepo } from "./FileImportRepo.ts"

/**
 * The one answer to "were these bytes imported before?", asked when a file is read (a file whose
 * bytes are known is not parsed), when it is committed (a duplicate of the same bytes is skipped
 * naming the activity) and when a file is recorded as failed without being parsed. Two files hold
 * the same bytes when their SHA-256 hashes are equal.
 */

/** The hash by which two files are the same bytes (SHA-256, hex). */
export const contentHashOf = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")

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

    return { committed, known } as const
  })
}) {}
