import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as path from "node:path"
import { inChannel } from "../platform/Logs.ts"
import { ArchiveImport } from "./ArchiveImport.ts"
import { ExportMetadata } from "./archives/ExportMetadata.ts"
import { UnpackedEntries } from "./archives/UnpackedEntries.ts"
import { Duplicates } from "./Duplicates.ts"
import { FailedImports } from "./FailedImports.ts"
import { formatOf, isGzipped, isZipName } from "./files/ActivityFileName.ts"
import { FileImportRepo } from "./FileImportRepo.ts"
import { decide, type ImportFacts, needsParse, parsedOf } from "./ImportDecision.ts"
import type { ImportOutcome } from "./ImportOutcome.ts"
import { ImportReader, type PreparedImport } from "./ImportReader.ts"
import { ImportRecorder } from "./ImportRecorder.ts"
import { KeptOriginals } from "./KeptOriginals.ts"
import { ReadingMarks } from "./ReadingMarks.ts"
import { SameBytes } from "./SameBytes.ts"
import { type QueuedFile, WatchDirectory } from "./WatchDirectory.ts"

/**
 * Imports one entry of the watch folder: a file ends as an activity (`success`), a duplicate
 * (`skipped`) or a failure with its reason (`failed`); a zip is unpacked into the folder
 * (ArchiveImport). Two stages: `prepareEntry` (read, hash, parse in the worker: ImportReader;
 * unpack a zip; writes no activity) may run ahead; `commit` runs one file at a time, in queue
 * order: it gathers what the database holds by then (SameBytes, Duplicates), decides as a plain
 * function of that and of what was read (ImportDecision: import, skip as a duplicate naming the
 * original, fail, or wait for the file's writer), and records the decision (ImportRecorder: the
 * original bytes kept first, then the row, the activities and what their export says about
 * them in one transaction, then the file leaves the watch folder). A crash at any point leaves
 * the file in place, and the restart recognises a file whose row was already committed.
 * `abandon` records a file that could not be stored at all (the ImportWorker's retries ran out)
 * as `failed`.
 *
 * A file that changes while it is imported (size, modification time or inode) is not taken out
 * of the folder: the watch folder offers it again once it holds still. A file that fails while
 * it is young and looks cut short (a copy that paused longer than the settle time) stays in the
 * folder a while: if it grows meanwhile it is imported again from its whole content, else it
 * leaves then. No file leaves the folder without its complete copy in storage (a `skipped` file
 * of the same bytes as an activity has that activity's).
 */

/** An entry of the watch folder after its first stage: a file to commit, or an entry already handled (a zip, a pipe). */
export type PreparedEntry =
  | { readonly _tag: "Prepared"; readonly prepared: PreparedImport }
  | { readonly _tag: "Handled"; readonly outcome: ImportOutcome | null }

export class ImportService extends Effect.Service<ImportService>()("services/import/ImportService", {
  effect: Effect.gen(function*() {
    const reader = yield* ImportReader
    const duplicates = yield* Duplicates
    const sameBytes = yield* SameBytes
    const recorder = yield* ImportRecorder
    const kept = yield* KeptOriginals
    const failed = yield* FailedImports
    const archives = yield* ArchiveImport
    const fileImports = yield* FileImportRepo
    const watch = yield* WatchDirectory
    const exported = yield* ExportMetadata
    const marks = yield* ReadingMarks
    const unpacked = yield* UnpackedEntries

    /** An activity file of the watch folder by its name; null for any other name. */
    const queuedFile = (filename: string): QueuedFile | null => {
      const format = formatOf(filename)
      return format === null ? null : { filename, format, path: path.join(watch.watchDir, filename), mtimeMs: 0 }
    }

    /** The first stage of an activity file (see ImportReader), which may run ahead of the previous file's commit. */
    const prepare = Effect.fn("ImportService.prepare")(function*(file: QueuedFile) {
      return yield* reader.prepare(file)
    })

    /**
     * The first stage of any entry the watch folder offers: a zip is unpacked (its files are
     * queued on their own), an entry of another name is a link or a pipe (refused once), an
     * activity file is prepared.
     */
    const prepareEntry = Effect.fn("ImportService.prepareEntry")(function*(filename: string) {
      if (isZipName(filename)) return { _tag: "Handled", outcome: yield* archives.unpack(filename) } satisfies PreparedEntry
      const file = queuedFile(filename)
      // a regular file of another type is never offered
      if (file === null) return { _tag: "Handled", outcome: yield* failed.refuseNotRegular(filename) } satisfies PreparedEntry
      const prepared = yield* prepare(file)
      return (prepared === null ? { _tag: "Handled", outcome: null } : { _tag: "Prepared", prepared }) satisfies PreparedEntry
    })

    /** What the commit knows of the prepared file: the reader's outcome, and what the database holds by now (see ImportDecision). */
    const factsOf = (prepared: PreparedImport) =>
      Effect.gen(function*() {
        const { contentHash, outcome, row } = prepared
        const known = yield* sameBytes.known(row, contentHash)
        // the activity with the same bytes was deleted meanwhile: parsed now
        const parsedNow = needsParse(outcome, known) ? yield* reader.parseNow(prepared) : null
        const parsed = parsedOf({ outcome, parsedNow })
        const drafts = parsed?._tag === "Parsed" && known.committed === null && known.activity === null ? parsed.drafts : []
        return { outcome, known, parsedNow, duplicates: yield* Effect.forEach(drafts, duplicates.duplicateOf) } satisfies ImportFacts
      })

    /**
     * The second stage, one file at a time in queue order: decides against what is committed by
     * now (ImportDecision), then records the decision (ImportRecorder).
     */
    const commit = Effect.fn("ImportService.commit")(function*(ahead: PreparedImport) {
      // the file may have been removed, or replaced under the same name, since it was read
      const prepared = yield* reader.current(ahead)
      if (prepared === null) return null
      return yield* recorder.record(prepared, decide(prepared.file.filename, yield* factsOf(prepared)))
    })

    /**
     * Records the activity file `filename`, which could not be stored (its import kept stopping
     * on an unexpected error), as `failed` with `message`, keeping its original bytes, and removes
     * it from the watch folder. Null when it is gone meanwhile, or is no activity file;
     * OriginalNotKept when no copy can be made.
     */
    const abandon = Effect.fn("ImportService.abandon")(function*(filename: string, message: string) {
      const file = queuedFile(filename)
      if (file === null) return null
      return yield* failed.record(filename, `${file.format}${isGzipped(filename) ? ".gz" : ""}`, message, false)
    })

    /** Both stages at once: one file end to end. */
    const importFile = (file: QueuedFile) =>
      prepare(file).pipe(Effect.flatMap((prepared) => (prepared === null ? Effect.succeed(null) : commit(prepared))))

    /**
     * Sets aside, with a `failed` row saying so, each file that was being read when the process
     * died (its poison-pill mark is still there, ReadingMarks): it is not read again, so it
     * cannot stop the daemon a second time; a mark kept beside its original says why. A file
     * whose copy cannot be kept stays marked, for the next start.
     */
    const setAsidePoisonPills = Effect.gen(function*() {
      for (const found of yield* Effect.sync(marks.found)) {
        const { filename } = found
        const format = formatOf(filename)
        const extension = isZipName(filename) ? "zip" : format === null ? null : `${format}${isGzipped(filename) ? ".gz" : ""}`
        const message = `"${filename}" was being read when the daemon stopped (a crash, running out of memory, or a kill): ` +
          `it is set aside unread, so that it cannot stop the daemon again. Retry it once the cause is known.`
        const recorded = extension === null ? Either.right(null) : yield* Effect.either(failed.record(filename, extension, message, false))
        if (Either.isLeft(recorded)) {
          yield* Effect.logError(`"${filename}" was being read when the daemon stopped and could not be set aside (${recorded.left.reason}); it stays marked`).pipe(inChannel("daemon"))
          continue
        }
        const outcome = recorded.right
        if (outcome !== null) {
          const original = yield* fileImports.originalOf(outcome.fileImportId)
          if (original !== null) yield* Effect.sync(() => marks.keepBeside(original, message))
          yield* Effect.logWarning(`set aside ${message}`).pipe(inChannel("daemon"))
        }
        yield* Effect.sync(() => marks.clear(found))
      }
    }).pipe(Effect.withSpan("ImportService.setAsidePoisonPills"))

    /**
     * What a stop left, put right before the first file is taken: originals no row names are
     * activities the database lost, put back into the watch folder (before the import takes
     * files, so that an import a stop interrupted is told apart); a file that was being read when
     * the process died is set aside; the journals of unpackings whose zip has left the folder are
     * forgotten; what an export said about files that have left the folder (while the daemon was
     * stopped) is of no use.
     */
    const recoverAtStart = Effect.fn("ImportService.recoverAtStart")(function*() {
      yield* kept.recover().pipe(
        Effect.catchAllCause((cause) =>
          Effect.logError("the originals without an import row could not all be put back into the watch folder; they stay where they are", cause).pipe(
            inChannel("daemon")
          )
        )
      )
      yield* setAsidePoisonPills
      yield* unpacked.sweep()
      yield* exported.keepOnly(() => watch.waiting().map((file) => file.filename))
    })

    return { prepare, prepareEntry, commit, abandon, importFile, recoverAtStart } as const
  }),
  dependencies: [ImportReader.Default, Duplicates.Default, SameBytes.Default, ImportRecorder.Default, FailedImports.Default, ArchiveImport.Default]
}) {}
