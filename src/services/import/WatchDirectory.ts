import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { FileFormat } from "../../schema/ParsedActivity.ts"
import { formatOf, isZipName } from "./ActivityFileName.ts"
import { publishFile } from "./PublishFile.ts"
import { inChannel } from "../platform/Logs.ts"
import { StoragePaths } from "../platform/StoragePaths.ts"

/**
 * The watch folder: files waiting to be imported. Non-recursive; dot-files, `.part` and
 * `.tmp` files and subfolders are not imports; files of other types stay untouched.
 * Uploads are received in `.uploads` and enter the folder by the rule of PublishFile.
 */
export interface QueuedFile {
  readonly filename: string
  readonly format: FileFormat
  readonly path: string
  readonly mtimeMs: number
}

export const isCandidateName = (name: string): boolean =>
  !name.startsWith(".") && !/\.(part|tmp)$/i.test(name) && (formatOf(name) !== null || isZipName(name))

/** Removes the files (not folders) of `dir`; answers their names. A missing folder has none. */
const removeFilesIn = (dir: string): Array<string> => {
  const removed: Array<string> = []
  let entries: Array<fs.Dirent> = []
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return removed
  }
  for (const entry of entries) {
    if (!entry.isFile()) continue
    try {
      fs.rmSync(path.join(dir, entry.name), { force: true })
      removed.push(entry.name)
    } catch {
      // left for the next start
    }
  }
  return removed
}

export class WatchDirectory extends Effect.Service<WatchDirectory>()("services/import/WatchDirectory", {
  effect: Effect.gen(function*() {
    const paths = yield* StoragePaths

    // Files left in .uploads by an upload cut off by a crash: nobody will finish them.
    const stale = yield* Effect.sync(() => removeFilesIn(paths.uploadsDir))
    if (stale.length > 0) {
      yield* Effect.logInfo(`removed ${stale.length} unfinished upload(s) from ${paths.uploadsDir}: ${stale.join(", ")}`).pipe(
        inChannel("daemon")
      )
    }

    /** Supported files present in the watch folder, oldest first (read at once: DirectRoutes answers with it). */
    const waiting = (): Array<QueuedFile> => {
      let entries: Array<fs.Dirent> = []
      try {
        entries = fs.readdirSync(paths.watchDir, { withFileTypes: true })
      } catch {
        return []
      }
      const files: Array<QueuedFile> = []
      for (const entry of entries) {
        // a zip is unpacked when it arrives, not listed: a zip left here is one that could not be unpacked
        if (!entry.isFile() || !isCandidateName(entry.name) || isZipName(entry.name)) continue
        const full = path.join(paths.watchDir, entry.name)
        try {
          files.push({ filename: entry.name, format: formatOf(entry.name)!, path: full, mtimeMs: fs.statSync(full).mtimeMs })
        } catch {
          // removed meanwhile
        }
      }
      return files.sort((a, b) => a.mtimeMs - b.mtimeMs || a.filename.localeCompare(b.filename))
    }

    const queued = Effect.fn("WatchDirectory.queued")(function*() {
      return waiting()
    })

    /**
     * Moves a received upload into the watch folder under `name`, or `name-1`, `name-2`, ...
     * when taken; a file already there is never replaced.
     */
    const deliver = Effect.fn("WatchDirectory.deliver")(function*(tempPath: string, name: string) {
      return yield* Effect.try(() => publishFile(tempPath, paths.watchDir, name, "suffix").name)
    })

    return { queued, waiting, deliver, uploadsDir: paths.uploadsDir, watchDir: paths.watchDir } as const
  }),
  dependencies: [StoragePaths.Default]
}) {}
