import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { formatOf } from "../services/ActivityFileName.ts"
import { ImportQueue } from "../services/ImportQueue.ts"
import { ImportService } from "../services/ImportService.ts"
import { inChannel } from "../services/Logs.ts"
import { WatchDirectory } from "../services/WatchDirectory.ts"
import { supervise } from "./supervise.ts"

/** Imports queued files one at a time; a failing file never stops the others. */
export const ImportWorkerLive = Layer.scopedDiscard(Effect.gen(function*() {
  const queue = yield* ImportQueue
  const imports = yield* ImportService
  const watchDir = yield* WatchDirectory

  yield* imports.removeOrphanOriginals()

  const handle = (filename: string) =>
    Effect.gen(function*() {
      const full = path.join(watchDir.watchDir, filename)
      const format = formatOf(filename)
      if (format === null || !fs.existsSync(full)) return
      const outcome = yield* imports.importFile({ filename, format, path: full, mtimeMs: 0 })
      if (outcome !== null) {
        yield* Effect.logInfo(`imported "${filename}": ${outcome.status}${outcome.errorMessage ? ` (${outcome.errorMessage})` : ""}`).pipe(
          Effect.annotateLogs({ fileImportId: outcome.fileImportId, activityIds: outcome.activityIds.join(",") }),
          inChannel("daemon")
        )
      }
    }).pipe(
      Effect.catchAllCause((cause) =>
        Effect.logError(`import of "${filename}" stopped unexpectedly; it stays in the watch folder for the next rescan`, cause).pipe(inChannel("daemon"))
      ),
      Effect.ensuring(queue.done(filename))
    )

  yield* supervise("ImportWorker", Effect.forever(Effect.flatMap(queue.take, handle)))
}))
