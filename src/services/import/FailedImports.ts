import * as Effect from "effect/Effect"
import * as path from "node:path"
import { StoragePaths } from "../platform/StoragePaths.ts"
import { identityOf, notRegularReason, readIfPresent, statIfPresent } from "./files/FileOnDisk.ts"
import { FileImportRepo } from "./FileImportRepo.ts"
import { FileRecorder } from "./FileRecorder.ts"
import type { ImportOutcome } from "./ImportOutcome.ts"
import { MAX_IMPORT_FILE_BYTES, rowOf, sourceOfName } from "./ImportReader.ts"
import { KeptOriginals } from "./KeptOriginals.ts"
import { contentHashOf, SameBytes } from "./SameBytes.ts"
import { WatchDirectory } from "./WatchDirectory.ts"

/**
 * Entries of the watch folder recorded as `failed` without being parsed: an archive that was
 * not unpacked, a file whose import kept stopping on an unexpected error, and what is not a
 * regular file (a link, a pipe, ...), which is never read and stays where it is.
 */
export class FailedImports extends Effect.Service<FailedImports>()("services/import/FailedImports", {
  effect: Effect.gen(function*() {
    const paths = yield* StoragePaths
    const fileImports = yield* FileImportRepo
    const sameBytes = yield* SameBytes
    const kept = yield* KeptOriginals
    const recorder = yield* FileRecorder
    const watch = yield* WatchDirectory

    /**
     * Records the regular file `filename` as `failed` with `message`, its bytes kept as its
     * original (`<id>.<extension>`), and takes it out of the folder; a young one that looks cut
     * short (`truncated`) is held in the folder a while, in case it grows. Null when it is gone
     * or still being written, or was recorded already (a held file looked at again, a row a stop
     * left); OriginalNotKept when no copy can be made (it stays in the folder).
     */
    const record = Effect.fn("FailedImports.record")(function*(filename: string, extension: string, message: string, truncated: boolean) {
      const file = path.join(paths.watchDir, filename)
      const stat = yield* statIfPresent(file)
      if (stat === null || !stat.isFile()) return null
      const read = stat.size > MAX_IMPORT_FILE_BYTES ? null : yield* readIfPresent(file).pipe(Effect.catchAllDefect(() => Effect.succeed(null)))
      const identity = identityOf(read?.stat ?? stat)
      const contentHash = read === null ? "" : contentHashOf(read.bytes)
      const row = yield* rowOf(filename, sourceOfName(filename), read?.stat ?? stat)
      if ((yield* sameBytes.committed(row, contentHash)) !== null) {
        yield* watch.removeImported(filename, identity)
        return null
      }
      // its original kept, its row written and the file let go as the import's are
      return yield* recorder.write(
        { path: file, filename, identity, contentHash, row },
        { status: "failed", errorMessage: message, drafts: [], truncated },
        kept.keepOrStay(file, row.id, extension, filename, { contentHash })
      )
    })

    /**
     * Records an entry of the watch folder that is not a regular file (a link, a pipe, ...),
     * whatever its name, as `failed`, once: it is never read, and stays where it is. Null when
     * it is a regular file or a folder, is gone, or was recorded already.
     */
    const refuseNotRegular = Effect.fn("FailedImports.refuseNotRegular")(function*(filename: string) {
      const stat = yield* statIfPresent(path.join(paths.watchDir, filename))
      if (stat === null || stat.isFile()) return null
      const row = yield* rowOf(filename, sourceOfName(filename), stat)
      if ((yield* sameBytes.committed(row, "")) !== null) return null
      const message = `"${filename}": ${notRegularReason(stat)}.`
      yield* fileImports.insert({ ...row, status: "failed", errorMessage: message, contentHash: "", originalFile: null, activityId: null })
      const outcome: ImportOutcome = { fileImportId: row.id, status: "failed", activityIds: [], errorMessage: message }
      return outcome
    })

    return { record, refuseNotRegular } as const
  }),
  dependencies: [FileRecorder.Default, SameBytes.Default]
}) {}
