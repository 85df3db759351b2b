import { Chunk, Effect, Layer, Schedule, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ImportQueue } from "../services/import/ImportQueue.ts"
import { inChannel } from "../services/platform/Logs.ts"
import { isCandidateName, WatchDirectory } from "../services/import/WatchDirectory.ts"
import { supervise } from "./supervise.ts"

/**
 * Offers every supported file of the watch folder to the ImportQueue: the folder's own change
 * events (non-recursive; dot-files, .part/.tmp and subfolders ignored), each file offered once
 * it has stopped changing for SETTLE_MS, plus a full rescan at start and every minute, so that
 * nothing is missed if an event is (a network share, a full event queue).
 *
 * The events are the operating system's (inotify, FSEvents), one per change naming the file. A
 * watcher that re-reads the folder on each change (chokidar reads and stats every entry, once
 * a second while files keep arriving or leaving) spent a third of the main thread on a folder
 * of 10,000 waiting files, and slowed their import by half.
 */
export const RESCAN_INTERVAL = "1 minute"

/** A file is offered once no change of it was seen for this long: a copy in progress is not read. */
export const SETTLE_MS = 300

class WatchError extends Error {}

const isFileIn = (dir: string, name: string) => {
  try {
    return fs.statSync(path.join(dir, name)).isFile()
  } catch {
    return false
  }
}

const events = (dir: string) =>
  Stream.asyncPush<string, WatchError>((emit) =>
    Effect.acquireRelease(
      Effect.try({
        // a folder that cannot be watched (removed, not permitted) fails the loop, which the
        // supervisor restarts and /healthz reports
        catch: (e) => new WatchError(`cannot watch ${dir}: ${e instanceof Error ? e.message : String(e)}`),
        try: () => {
          const settling = new Map<string, NodeJS.Timeout>()
          const settled = (name: string) => {
            settling.delete(name)
            // a removal is an event too; a subfolder is not an import
            if (isFileIn(dir, name)) emit.single(name)
          }
          const watcher = fs.watch(dir, { persistent: false }, (_event, name) => {
            if (name === null || !isCandidateName(name)) return
            clearTimeout(settling.get(name))
            settling.set(name, setTimeout(settled, SETTLE_MS, name))
          })
          watcher.on("error", (e) => emit.fail(new WatchError(String(e))))
          // Files already there, or arrived before the watch began, have no event: offer what
          // the folder holds once watching (the queue drops names already pending).
          let names: Array<string> = []
          try {
            names = fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile() && isCandidateName(e.name)).map((e) => e.name)
          } catch {
            // the folder vanished: the rescan reports it
          }
          if (names.length > 0) emit.chunk(Chunk.unsafeFromArray(names))
          return { watcher, settling }
        }
      }),
      ({ settling, watcher }) =>
        Effect.sync(() => {
          watcher.close()
          for (const timer of settling.values()) clearTimeout(timer)
        })
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
