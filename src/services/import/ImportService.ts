import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as path from "node:path"
import type { EncodedActivityDraft } from "../../schema/ActivityDraft.ts"
import { AppConfig } from "../platform/AppConfig.ts"
import { inChannel } from "../platform/Logs.ts"
import { formatOf, isGzipped, isZipName } from "./files/ActivityFileName.ts"
import { ArchiveImport } from "./ArchiveImport.ts"
import { ExportMetadata } from "./archives/ExportMetadata.ts"
import { Duplicates } from "./Duplicates.ts"
import { FailedImports } from "./FailedImports.ts"
import { identityOf, sameIdentity } from "./files/FileOnDisk.ts"
import { FileImportRepo, type StoredStatus } from "./FileImportRepo.ts"
import { ImportReader, isYoung, type Parsed, type PreparedImport, statIfPresent, stillSame } from "./ImportReader.ts"
import { FAILED_RECHECK_SETTLES, type ImportOutcome } from "./ImportOutcome.ts"
import { ImportWriter } from "./ImportWriter.ts"
import { KeptOriginals } from "./KeptOriginals.ts"
import { ReadingMarks } from "./ReadingMarks.ts"
import { UnpackedEntries } from "./archives/UnpackedEntries.ts"
import { repairNote } from "./parsers/repairSamples.ts"
import { linkRaceLegs } from "./RaceLegs.ts"
import { newActivityId } from "../activities/ActivityRepo.ts"
import { type QueuedFile, WatchDirectory } from "./WatchDirectory.ts"

/**
 * Imports one entry of the watch folder: a file ends as an activity (`success`), a duplicate
 * (`skipped`) or a failure with its reason (`failed`); a zip is unpacked into the folder
 * (ArchiveImport). Two stages: `prepareEntry` (read, hash, parse in the worker: ImportReader;
 * unpack a zip; writes no activity) may run ahead, `commit` decides against what is committed
 * by then (Duplicates) and runs one file at a time: the original bytes kept first
 * (KeptOriginals), then the row, the activities and what their export says about them in one
 * transaction (ImportWriter; a duplicate's export and file join the activity it duplicates where
 * that one has none of what they say), then the file leaves the watch folder. A crash at any point leaves
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
    const kept = yield* KeptOriginals
    const writer = yield* ImportWriter
    const failed = yield* FailedImports
    const archives = yield* ArchiveImport
    const fileImports = yield* FileImportRepo
    const watch = yield* WatchDirectory
    const exported = yield* ExportMetadata
    const marks = yield* ReadingMarks
    const unpacked = yield* UnpackedEntries
    const recheckAfter = Duration.times((yield* AppConfig).watchSettle, FAILED_RECHECK_SETTLES)

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

    /**
     * The second stage, one file at a time in queue order: decides success, skipped or failed
     * against what is committed by now, writes the row and its activities in one transaction
     * (the original kept first), then removes the file from the watch folder. A copy of the
     * original that cannot be made dies (the ImportWorker tries again): nothing is written.
     */
    const commit = Effect.fn("ImportService.commit")(function*(ahead: PreparedImport) {
      // the file may have been removed, or replaced under the same name, since it was read
      const current = yield* statIfPresent(ahead.file.path)
      if (current === null) return null
      const unchanged = current.isFile() === (ahead.outcome._tag !== "Refused") && sameIdentity(identityOf(current), ahead.identity)
      const prepared = unchanged ? ahead : yield* reader.prepare(ahead.file)
      if (prepared === null) return null
      const { contentHash, file, identity, outcome, row } = prepared

      // a link or a pipe: refused once, left where it is
      if (outcome._tag === "Refused") return yield* failed.refuseNotRegular(file.filename)
      // crash recovery, or a held file looked at again: this very file has its row already
      const committed = yield* fileImports.findCommitted(file.filename, contentHash, row.sourceSize, row.sourceMtime)
      if (committed !== null) {
        yield* watch.removeImported(file.filename, identity)
        yield* Effect.logInfo(`"${file.filename}" was already imported as ${committed}; removed from the watch folder`).pipe(inChannel("daemon"))
        return null
      }
      const changed = Effect.logInfo(`"${file.filename}" changed while it was imported; it is read again once it holds still`).pipe(
        inChannel("daemon"),
        Effect.as(null)
      )
      const extension = `${file.format}${isGzipped(file.filename) ? ".gz" : ""}`

      /**
       * Writes the row (and the activities): `keepCopy` false only for a file of the same bytes
       * as an existing activity, whose original is that activity's; `truncated` when a failure
       * looks like a file cut short, held in the folder while it is young.
       */
      const finish = (
        status: StoredStatus,
        errorMessage: string | null,
        drafts: ReadonlyArray<EncodedActivityDraft>,
        options: {
          readonly keepCopy: boolean
          readonly truncated: boolean
          /** legs of the file's race that duplicate activities stored before, with their ids */
          readonly storedLegs?: ReadonlyArray<{ readonly leg: EncodedActivityDraft; readonly id: string }>
          /** a duplicate: the activity it is another copy of, which what it brings joins (the copy as parsed, when it was) */
          readonly joins?: { readonly activityId: string; readonly draft: EncodedActivityDraft | null }
        }
      ) =>
        Effect.gen(function*() {
          const original = options.keepCopy
            ? yield* kept.keep(file.path, row.id, extension, file.filename, status === "failed" ? { contentHash } : undefined)
            : null
          // the original kept must be the bytes that were read: a file still being written is not taken
          if (original !== null && !(yield* stillSame(file.path, identity))) {
            yield* kept.dropCopy(original)
            return yield* changed
          }
          const activityIds = drafts.map(() => newActivityId())
          // the legs of a race name each other
          const linked = linkRaceLegs(drafts.map((leg, i) => ({ leg, id: activityIds[i]! })), options.storedLegs)
          const held = status === "failed" && options.truncated && (yield* isYoung(identity, recheckAfter))
          // from before its row commits, the file is no longer listed as queued
          watch.hold(file.filename, identity)
          const written = yield* writer.write({
            row: {
              ...row, status, errorMessage, contentHash, originalFile: original?.name ?? null,
              notes: repairNote(drafts.flatMap((draft) => draft.repairs ?? []))
            },
            activities: linked.map((draft, i) => ({ id: activityIds[i]!, draft })),
            exported: status === "success" ? "apply" : held ? "leave" : "forget",
            joins: options.joins ?? null
          }).pipe(
            Effect.tapDefect(() => kept.dropCopy(original)),
            Effect.onError(() => Effect.sync(() => watch.release(file.filename)))
          )
          const outcome: ImportOutcome = { fileImportId: row.id, status, activityIds, errorMessage: written.errorMessage }
          // what changed after the read is a new version of the file, imported as such once it holds still
          if (!(yield* stillSame(file.path, identity))) return yield* Effect.as(changed, outcome)
          if (held) return { ...outcome, held: { after: recheckAfter, identity } }
          yield* watch.removeImported(file.filename, identity)
          return outcome
        })

      if (outcome._tag === "Failed") return yield* finish("failed", outcome.message, [], { keepCopy: true, truncated: outcome.truncated })
      const sameBytes = yield* duplicates.sameBytesAs(contentHash)
      if (sameBytes !== null) {
        return yield* finish("skipped", `Skipped: the same file was already imported as the activity ${yield* duplicates.describe(sameBytes)}.`, [], {
          keepCopy: false,
          truncated: false,
          joins: { activityId: sameBytes, draft: null }
        })
      }
      // the activity with the same bytes was deleted meanwhile: parse now
      const parsed: Parsed | null = outcome._tag === "Unparsed" ? yield* reader.parseNow(prepared) : outcome
      if (parsed === null) return yield* changed
      if (parsed._tag === "Failed") return yield* finish("failed", parsed.message, [], { keepCopy: true, truncated: parsed.truncated })
      const drafts = parsed.drafts
      if (drafts.length === 0) return yield* finish("failed", `"${file.filename}" contains no activity.`, [], { keepCopy: true, truncated: false })

      const fresh: Array<EncodedActivityDraft> = []
      const storedLegs: Array<{ readonly leg: EncodedActivityDraft; readonly id: string }> = []
      let firstDuplicate: { readonly leg: EncodedActivityDraft; readonly id: string } | null = null
      for (const draft of drafts) {
        const duplicate = yield* duplicates.duplicateOf(draft)
        if (duplicate === null) fresh.push(draft)
        else {
          firstDuplicate ??= { leg: draft, id: duplicate }
          storedLegs.push({ leg: draft, id: duplicate })
        }
      }
      if (fresh.length === 0) {
        // other bytes than the activity's (another device, another format): kept with its row
        return yield* finish(
          "skipped",
          `Skipped: the activity ${yield* duplicates.describe(firstDuplicate!.id)} already covers the same time (another recording of it, starting within 60 s).`,
          [],
          { keepCopy: true, truncated: false, joins: { activityId: firstDuplicate!.id, draft: firstDuplicate!.leg } }
        )
      }
      return yield* finish("success", null, fresh, { keepCopy: true, truncated: false, storedLegs })
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
  dependencies: [ImportReader.Default, Duplicates.Default, ImportWriter.Default, FailedImports.Default, ArchiveImport.Default]
}) {}
