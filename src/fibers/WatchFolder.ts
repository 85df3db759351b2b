import { watch } from "chokidar"
import { Chunk, Effect, Layer, Schedule, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ImportQueue } from "../services/import/ImportQueue.ts"
import { inChannel } from "../services/platform/Logs.ts"
import { isCandidateName, WatchDirectory } from "../services/import/WatchDirectory.ts"
import { supervise } from "./supervise.ts"

/**
 * Offers every supported file of the watch folder to the ImportQueue: chokidar events
 * (non-recursive; dot-files, .part/.tmp and subfolders ignored) plus a full rescan at start
 * and every minute, so that nothing is missed if an event is.
 */
export const RESCAN_INTERVAL = "1 minute"

class WatchError extends Error {}

const events = (dir: string) =>
  Stream.asyncPush<string, WatchError>((emit) =>
    Effect.acquireRelease(
      Effect.sync(() => {
        const watcher = watch(dir, {
          depth: 0,
          ignoreInitial: true,
          ignored: (p, stats) => p !== dir && (path.basename(p).startsWith(".") || (stats?.isFile() === true && !isCandidateName(path.basename(p)))),
          awaitWriteFinish: { stabilityThreshold: 300, pollInterval: 100 }
        })
        const onFile = (p: string) => {
          if (path.dirname(p) === dir && isCandidateName(path.basename(p))) emit.single(path.basename(p))
        }
        watcher.on("add", onFile)
        watcher.on("change", onFile)
        // With ignoreInitial, a file that appears while chokidar makes its initial scan is
        // reported by neither that scan nor an event (seen in tests: a file renamed in just
        // after start waited for the next minute's rescan). Once the watcher is ready, offer
        // what the folder holds; the queue drops names already pending.
        watcher.on("ready", () => {
          let names: Array<string> = []
          try {
            names = fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile() && isCandidateName(e.name)).map((e) => e.name)
          } catch {
            // the folder vanished: the rescan reports it
          }
          if (names.length > 0) emit.chunk(Chunk.unsafeFromArray(names))
        })
        watcher.on("error", (e) => emit.fail(new WatchError(String(e))))
        return watcher
      }),
      (watcher) => Effect.promise(() => watcher.close())
    )
  )

export const WatchFolderLive = Layer.scopedDiscard(Effect.gen(function*() {
  const watchDir = yield* WatchDirectory
  const queue = yield* ImportQueue

  const rescan = Effect.gen(function*() {
    for (const file of yield* watchDir.queued()) yield* queue.offer(file.filename)
  })

  yield* supervise("WatchFolder", Stream.runForEach(events(watchDir.watchDir), queue.offer))
  yield* supervise(
    "WatchFolderRescan",
    rescan.pipe(Effect.repeat(Schedule.spaced(RESCAN_INTERVAL)))
  )
  yield* Effect.logInfo(`watching ${watchDir.watchDir}`).pipe(inChannel("daemon"))
}))
