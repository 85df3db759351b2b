import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { EncodedActivityDraft } from "../../schema/ActivityDraft.ts"
import { newActivityId } from "../activities/ActivityRepo.ts"
import { AppConfig } from "../platform/AppConfig.ts"
import { inChannel } from "../platform/Logs.ts"
import { type FileIdentity, isYoung, stillSame } from "./files/FileOnDisk.ts"
import type { StoredStatus } from "./FileImportRepo.ts"
import type { StoredLeg } from "./ImportDecision.ts"
import { FAILED_RECHECK_SETTLES, type ImportOutcome } from "./ImportOutcome.ts"
import type { ImportRowStart } from "./ImportReader.ts"
import { ImportWriter } from "./ImportWriter.ts"
import { type KeptCopy, KeptOriginals } from "./KeptOriginals.ts"
import { repairNote } from "./parsers/repairSamples.ts"
import { linkRaceLegs } from "./RaceLegs.ts"
import { WatchDirectory } from "./WatchDirectory.ts"

/**
 * The writing of a file's row, whatever decided it (the import's commit, or a failure recorded
 * without a parse): its original bytes kept first (KeptOriginals), then its row, its activities
 * and what its export says about them in one transaction (ImportWriter; a duplicate's export and
 * file join the activity it duplicates), then the file leaves the watch folder. From just before
 * its row is written, the file is held (WatchDirectory.hold) so that the import log never lists
 * it both as queued and with its row. A file that changed since it was read is not taken: it is
 * a new version, imported once it holds still. A failure that looks like a file cut short stays
 * in the folder while it is young.
 */

/** The file of the watch folder as it was read for its row. */
export interface ReadFile {
  /** its path */
  readonly path: string
  /** its name under the watch folder */
  readonly filename: string
  readonly identity: FileIdentity
  readonly contentHash: string
  /** its row before what was decided */
  readonly row: ImportRowStart
}

/** How the row is written. */
export interface RowOf {
  readonly status: StoredStatus
  readonly errorMessage: string | null
  readonly drafts: ReadonlyArray<EncodedActivityDraft>
  /** a failure that looks like a file cut short: held in the folder while it is young */
  readonly truncated: boolean
  /** legs of the file's race that duplicate activities stored before, with their ids */
  readonly storedLegs?: ReadonlyArray<StoredLeg>
  /** a duplicate: the activity it is another copy of, which what it brings joins (the copy as parsed, when it was) */
  readonly joins?: { readonly activityId: string; readonly draft: EncodedActivityDraft | null }
}

export class FileRecorder extends Effect.Service<FileRecorder>()("services/import/FileRecorder", {
  effect: Effect.gen(function*() {
    const kept = yield* KeptOriginals
    const writer = yield* ImportWriter
    const watch = yield* WatchDirectory
    const recheckAfter = Duration.times((yield* AppConfig).watchSettle, FAILED_RECHECK_SETTLES)

    /** Logs that `filename` changed while it was imported; null, as no row was written. */
    const changed = (filename: string) =>
      Effect.logInfo(`"${filename}" changed while it was imported; it is read again once it holds still`).pipe(inChannel("daemon"), Effect.as(null))

    /**
     * Writes the row of `file` (and its activities), its original kept by `original` first (null:
     * none kept, as for the same bytes as a stored activity, whose original is that activity's),
     * then lets the file go (see the module). The outcome, or null when the file changed.
     */
    const write = <E, R>(file: ReadFile, options: RowOf, original: Effect.Effect<KeptCopy | null, E, R>) =>
      Effect.gen(function*() {
        const { contentHash, identity, row } = file
        const { drafts, status } = options
        const copy = yield* original
        // the original kept must be the bytes that were read: a file still being written is not taken
        if (copy !== null && !(yield* stillSame(file.path, identity))) {
          yield* kept.dropCopy(copy)
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
            originalFile: copy?.name ?? null,
            notes: repairNote(drafts.flatMap((draft) => draft.repairs ?? []))
          },
          activities: linked.map((draft, i) => ({ id: activityIds[i]!, draft })),
          exported: status === "success" ? "apply" : held ? "leave" : "forget",
          joins: options.joins ?? null
        }).pipe(
          Effect.tapDefect(() => kept.dropCopy(copy)),
          Effect.onError(() => Effect.sync(() => watch.release(file.filename)))
        )
        const outcome: ImportOutcome = { fileImportId: row.id, status, activityIds, errorMessage: written.errorMessage }
        // what changed after the read is a new version of the file, imported as such once it holds still
        if (!(yield* stillSame(file.path, identity))) return yield* Effect.as(changed(file.filename), outcome)
        if (held) return { ...outcome, held: { after: recheckAfter, identity } }
        yield* watch.removeImported(file.filename, identity)
        return outcome
      })

    return { write, changed } as const
  }),
  dependencies: [ImportWriter.Default]
}) {}
