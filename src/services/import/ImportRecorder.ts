import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { EncodedActivityDraft } from "../../schema/ActivityDraft.ts"
import { newActivityId } from "../activities/ActivityRepo.ts"
import { AppConfig } from "../platform/AppConfig.ts"
import { inChannel } from "../platform/Logs.ts"
import { Duplicates } from "./Duplicates.ts"
import { FailedImports } from "./FailedImports.ts"
import { isGzipped } from "./files/ActivityFileName.ts"
import { isYoung, stillSame } from "./files/FileOnDisk.ts"
import type { StoredStatus } from "./FileImportRepo.ts"
import { type ImportDecision, skippedMessage, type StoredLeg } from "./ImportDecision.ts"
import { FAILED_RECHECK_SETTLES, type ImportOutcome } from "./ImportOutcome.ts"
import type { PreparedImport } from "./ImportReader.ts"
import { ImportWriter } from "./ImportWriter.ts"
import { KeptOriginals } from "./KeptOriginals.ts"
import { repairNote } from "./parsers/repairSamples.ts"
import { linkRaceLegs } from "./RaceLegs.ts"
import { WatchDirectory } from "./WatchDirectory.ts"

/**
 * The recording of what the commit decided about a file (ImportDecision): its original bytes
 * kept first (KeptOriginals; none for the same bytes as a stored activity, whose original is
 * that activity's), then its row, its activities and what its export says about them in one
 * transaction (ImportWriter; a duplicate's export and file join the activity it duplicates),
 * then the file leaves the watch folder. From just before its row is written, the file is held
 * (WatchDirectory.hold) so that the import log never lists it both as queued and with its row.
 * A file that changed since it was read is not taken: it is a new version, imported once it
 * holds still. A failure that looks like a file cut short stays in the folder while it is young.
 */

/** How the row of a decision is written. */
interface Row {
  readonly status: StoredStatus
  readonly errorMessage: string | null
  readonly drafts: ReadonlyArray<EncodedActivityDraft>
  /** false only for the same bytes as a stored activity, whose original is that activity's */
  readonly keepCopy: boolean
  /** a failure that looks like a file cut short: held in the folder while it is young */
  readonly truncated: boolean
  /** legs of the file's race that duplicate activities stored before, with their ids */
  readonly storedLegs?: ReadonlyArray<StoredLeg>
  /** a duplicate: the activity it is another copy of, which what it brings joins (the copy as parsed, when it was) */
  readonly joins?: { readonly activityId: string; readonly draft: EncodedActivityDraft | null }
}

export class ImportRecorder extends Effect.Service<ImportRecorder>()("services/import/ImportRecorder", {
  effect: Effect.gen(function*() {
    const duplicates = yield* Duplicates
    const kept = yield* KeptOriginals
    const writer = yield* ImportWriter
    const failed = yield* FailedImports
    const watch = yield* WatchDirectory
    const recheckAfter = Duration.times((yield* AppConfig).watchSettle, FAILED_RECHECK_SETTLES)

    const changed = (filename: string) =>
      Effect.logInfo(`"${filename}" changed while it was imported; it is read again once it holds still`).pipe(inChannel("daemon"), Effect.as(null))

    /** Writes the row (and the activities) of the prepared file, then lets the file go (see the module). */
    const write = (prepared: PreparedImport, options: Row) =>
      Effect.gen(function*() {
        const { contentHash, file, identity, row } = prepared
        const { drafts, status } = options
        const extension = `${file.format}${isGzipped(file.filename) ? ".gz" : ""}`
        const original = options.keepCopy
          ? yield* kept.keep(file.path, row.id, extension, file.filename, status === "failed" ? { contentHash } : undefined)
          : null
        // the original kept must be the bytes that were read: a file still being written is not taken
        if (original !== null && !(yield* stillSame(file.path, identity))) {
          yield* kept.dropCopy(original)
          return yield* changed(file.filename)
        }
        const activityIds = drafts.map(() => newActivityId())
        // the legs of a race name each other
        const linked = linkRaceLegs(drafts.map((leg, i) => ({ leg, id: activityIds[i]! })), options.storedLegs)
        const held = status === "failed" && options.truncated && (yield* isYoung(identity, recheckAfter))
        // from before its row commits, the file is no longer listed as queued
        watch.hold(file.filename, identity)
        const written = yield* writer.write({
          row: {
            ...row,
            status,
            errorMessage: options.errorMessage,
            contentHash,
            originalFile: original?.name ?? null,
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
        if (!(yield* stillSame(file.path, identity))) return yield* Effect.as(changed(file.filename), outcome)
        if (held) return { ...outcome, held: { after: recheckAfter, identity } }
        yield* watch.removeImported(file.filename, identity)
        return outcome
      })

    /**
     * Records `decision` about the prepared file; the outcome, or null when no row was written
     * (the file was committed before, or changed). A copy of the original that cannot be made
     * dies (the ImportWorker tries again): nothing is written.
     */
    const record = Effect.fn("ImportRecorder.record")(function*(prepared: PreparedImport, decision: ImportDecision) {
      const { filename } = prepared.file
      switch (decision._tag) {
        case "Refuse":
          return yield* failed.refuseNotRegular(filename)
        case "Committed": {
          yield* watch.removeImported(filename, prepared.identity)
          yield* Effect.logInfo(`"${filename}" was already imported as ${decision.fileImportId}; removed from the watch folder`).pipe(inChannel("daemon"))
          return null
        }
        case "Wait":
          return yield* changed(filename)
        case "Fail":
          return yield* write(prepared, { status: "failed", errorMessage: decision.message, drafts: [], keepCopy: true, truncated: decision.truncated })
        case "Skip":
          return yield* write(prepared, {
            status: "skipped",
            errorMessage: skippedMessage(decision, yield* duplicates.describe(decision.original)),
            drafts: [],
            // other bytes than the activity's (another device, another format): kept with its row
            keepCopy: !decision.sameBytes,
            truncated: false,
            joins: { activityId: decision.original, draft: decision.copy }
          })
        case "Import":
          return yield* write(prepared, {
            status: "success",
            errorMessage: null,
            drafts: decision.drafts,
            keepCopy: true,
            truncated: false,
            storedLegs: decision.storedLegs
          })
      }
    })

    return { record } as const
  }),
  dependencies: [Duplicates.Default, ImportWriter.Default, FailedImports.Default]
}) {}
