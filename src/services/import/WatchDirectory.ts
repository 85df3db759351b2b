import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { FileFormat } from "../../schema/ParsedActivity.ts"
import { formatOf, isZipName } from "./ActivityFileName.ts"
import { publishFile } from "./PublishFile.ts"
import { inChannel } from "../platform/Logs.ts"
import { StoragePaths } from "../platform/StoragePaths.ts"

/**
 * The watch folder: files waiting to be imported, at its top and in its subfolders down to
 * MAX_FOLDER_DEPTH. A file is named by its path under the folder (`2023-rides/a.fit`, always
 * with `/`). Dot-files and dot-folders (`.uploads`, where uploads are received before they
 * enter the folder by the rule of PublishFile), `.part` and `.tmp` files are not imports;
 * files of other types stay untouched.
 */
export interface QueuedFile {
  /** the path under the watch folder, `/`-separated */
  readonly filename: string
  readonly format: FileFormat
  readonly path: string
  readonly mtimeMs: number
}

/** Subfolders deeper than this (a folder of a folder of ...) are not looked into. */
export const MAX_FOLDER_DEPTH = 5

/** A name the folder never imports nor mentions: a dot-file or dot-folder, or a copy in progress. */
export const isHiddenName = (name: string): boolean => name.startsWith(".") || /\.(part|tmp)$/i.test(name)

/** Whether `name` (a file's base name or its path under the folder) is of a type the folder imports. */
export const isCandidateName = (name: string): boolean =>
  !isHiddenName(path.posix.basename(name)) && (formatOf(name) !== null || isZipName(name))

/** Whether a path under the watch folder lies in a dot-folder or deeper than MAX_FOLDER_DEPTH. */
export const isHiddenPath = (relative: string): boolean => {
  const parts = relative.split(/[\\/]/)
  return parts.length > MAX_FOLDER_DEPTH + 1 || parts.some((part) => part.startsWith("."))
}

/**
 * The paths under `root` of every entry that is not a folder (regular files, links, pipes, ...)
 * whose name is not hidden, down to MAX_FOLDER_DEPTH; dot-folders are not entered. A folder
 * that cannot be read is passed over.
 */
export const walkFolder = (root: string, visit: (relative: string, entry: fs.Dirent) => void, relative = "", depth = 0): void => {
  let entries: Array<fs.Dirent> = []
  try {
    entries = fs.readdirSync(relative === "" ? root : path.join(root, relative), { withFileTypes: true })
  } catch {
    return
  }
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue
    const rel = relative === "" ? entry.name : `${relative}/${entry.name}`
    if (entry.isDirectory()) {
      if (depth < MAX_FOLDER_DEPTH) walkFolder(root, visit, rel, depth + 1)
    } else if (!isHiddenName(entry.name)) {
      visit(rel, entry)
    }
  }
}

/**
 * Removes the folders that held `relative` (a file just taken out of the watch folder) as far
 * up as they are now empty; the watch folder itself stays.
 */
export const removeEmptiedFolders = (root: string, relative: string): void => {
  for (let dir = path.posix.dirname(relative); dir !== "." && dir !== "/" && dir !== ""; dir = path.posix.dirname(dir)) {
    try {
      fs.rmdirSync(path.join(root, dir))
    } catch {
      return // not empty (or gone): the folders above are not empty either
    }
  }
}

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

    /**
     * Files whose import failed while they were young, left in the folder a while in case they
     * were still being written: they have their `failed` row and are not waiting, unless they
     * changed since (then they are imported again from their whole content).
     */
    const held = new Map<string, fs.Stats>()
    const stillHeld = (filename: string, stat: fs.Stats): boolean => {
      const at = held.get(filename)
      if (at === undefined) return false
      if (at.size === stat.size && at.mtimeMs === stat.mtimeMs && at.ino === stat.ino) return true
      held.delete(filename)
      return false
    }

    /** Marks `filename` as held (see `held`) as it is now. */
    const hold = (filename: string): void => {
      const stat = fs.lstatSync(path.join(paths.watchDir, filename), { throwIfNoEntry: false })
      if (stat !== undefined) held.set(filename, stat)
    }

    /** Takes a held, unchanged file out of the folder (its bytes are kept as its failed import's original); true when it did. */
    const takeHeld = (filename: string): boolean => {
      const full = path.join(paths.watchDir, filename)
      const stat = fs.lstatSync(full, { throwIfNoEntry: false })
      if (stat === undefined || !stillHeld(filename, stat)) return false
      held.delete(filename)
      fs.rmSync(full, { force: true })
      return true
    }

    /** Supported regular files present in the watch folder and its subfolders, oldest first (read at once: DirectRoutes answers with it). */
    const waiting = (): Array<QueuedFile> => {
      const files: Array<QueuedFile> = []
      walkFolder(paths.watchDir, (filename, entry) => {
        // a zip is unpacked when it arrives, not listed; links, pipes and devices are refused, not queued
        if (!entry.isFile() || isZipName(filename)) return
        const format = formatOf(filename)
        if (format === null) return
        const full = path.join(paths.watchDir, filename)
        try {
          const stat = fs.lstatSync(full)
          if (!stillHeld(filename, stat)) files.push({ filename, format, path: full, mtimeMs: stat.mtimeMs })
        } catch {
          // removed meanwhile
        }
      })
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

    return { queued, waiting, hold, takeHeld, deliver, uploadsDir: paths.uploadsDir, watchDir: paths.watchDir } as const
  }),
  dependencies: [StoragePaths.Default]
}) {}
