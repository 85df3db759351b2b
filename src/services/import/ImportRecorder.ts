import * as Effect from "effect/Effect"
import { inChannel } from "../platform/Logs.ts"
import { Duplicates } from "./Duplicates.ts"
import { FailedImports } from "./FailedImports.ts"
import { isGzipped } from "./files/ActivityFileName.ts"
import { FileRecorder, type RowOf } from "./FileRecorder.ts"
import { type ImportDecision, skippedMessage } from "./ImportDecision.ts"
import type { PreparedImport } from "./ImportReader.ts"
import { KeptOriginals } from "./KeptOriginals.ts"
import { WatchDirectory } from "./WatchDirectory.ts"

/**
 * The recording of what the commit decided about a file (ImportDecision), by FileRecorder: its
 * original bytes kept first (none for the same bytes as a stored activity, whose original is
 * that activity's), then its row and activities in one transaction, then the file leaves the
 * watch folder.
 */

export class ImportRecorder extends Effect.Service<ImportRecorder>()("services/import/ImportRecorder", {
  effect: Effect.gen(function*() {
    const duplicates = yield* Duplicates
    const kept = yield* KeptOriginals
    const recorder = yield* FileRecorder
    const failed = yield* FailedImports
    const watch = yield* WatchDirectory

    /** Writes the row (and the activities) of the prepared file, its original kept unless `keepCopy` is false, then lets the file go. */
    const write = (prepared: PreparedImport, options: RowOf & { readonly keepCopy: boolean }) => {
      const { contentHash, file, identity, row } = prepared
      const extension = `${file.format}${isGzipped(file.filename) ? ".gz" : ""}`
      return recorder.write(
        { path: file.path, filename: file.filename, identity, contentHash, row },
        options,
        options.keepCopy
          ? kept.keep(file.path, row.id, extension, file.filename, options.status === "failed" ? { contentHash } : undefined)
          : Effect.succeed(null)
      )
    }

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
          return yield* recorder.changed(filename)
        case "Fail":
          return yield* write(prepared, { status: "failed", errorMessage: decision.message, drafts: [], keepCopy: true, truncated: decision.truncated })
        case "Skip":
          return yield* write(prepared, {
            status: "skipped",
            errorMessage: skippedMessage(decision, yield* duplicates.describe(decision.original)),
            drafts: [],
            // other bytes than the activity's (another device, another format): kept with its row;
            // the same bytes are kept as the activity's original already
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
  dependencies: [Duplicates.Default, FileRecorder.Default, FailedImports.Default]
}) {}
