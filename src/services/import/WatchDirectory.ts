import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import type { FileFormat } from "../../schema/ParsedActivity.ts"
import { formatOf, isZipName, splitExtension } from "./files/ActivityFileName.ts"
import { type FileIdentity, identityOf, sameIdentity } from "./files/FileOnDisk.ts"
import { linkUnderFreeName, publishFileAsync, suffixedName } from "./files/PublishFile.ts"
import { removeStaleStaging } from "./archives/ZipArchive.ts"
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

/** What a walk of the folder says besides the entries it visits. */
export interface WalkNotices {
  /** a folder that lies deeper than MAX_FOLDER_DEPTH (not entered) */
  readonly tooDeep?: (relative: string) => void
  /** a folder ("" for the root) holding a name that is not UTF-8 (read with replacement characters, see unreadableNames) */
  readonly unreadable?: (relative: string) => void
}

/**
 * The paths under `root` of every entry that is not a folder (regular files, links, pipes, ...)
 * and not a dot-file, down to MAX_FOLDER_DEPTH; dot-folders are not entered. A folder that
 * cannot be read is passed over. `notices` hear of what the walk cannot enter or name.
 */
export const walkFolder = (
  root: string,
  visit: (relative: string, entry: fs.Dirent) => void,
  notices: WalkNotices = {},
  relative = "",
  depth = 0
): void => {
  let entries: Array<fs.Dirent> = []
  try {
    entries = fs.readdirSync(relative === "" ? root : path.join(root, relative), { withFileTypes: true })
  } catch {
    return
  }
  if (notices.unreadable !== undefined && entries.some((entry) => entry.name.includes("\uFFFD"))) notices.unreadable(relative)
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue
    const rel = relative === "" ? entry.name : `${relative}/${entry.name}`
    if (entry.isDirectory()) {
      if (depth < MAX_FOLDER_DEPTH) walkFolder(root, visit, notices, rel, depth + 1)
      else notices.tooDeep?.(rel)
    } else {
      visit(rel, entry)
    }
  }
}

/** At most this many files of a folder too deep are named, one by one, in the log. */
const MAX_TOO_DEEP_NAMED = 100

/**
 * The files (paths under `root`, not dot-files) in the folder `relative` and its subfolders,
 * which lie deeper than MAX_FOLDER_DEPTH: at most `limit` of them.
 */
export const filesTooDeep = (root: string, relative: string, limit = MAX_TOO_DEEP_NAMED): Array<string> => {
  const found: Array<string> = []
  const walk = (rel: string, depth: number) => {
    let entries: Array<fs.Dirent> = []
    try {
      entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      if (found.length >= limit) return
      if (entry.name.startsWith(".")) continue
      if (entry.isDirectory()) {
        if (depth < 20) walk(`${rel}/${entry.name}`, depth + 1)
      } else {
        found.push(`${rel}/${entry.name}`)
      }
    }
  }
  walk(relative, 0)
  return found
}

/**
 * A subfolder that the import emptied is removed only once it has stayed empty and unchanged
 * (its modification time) for this many settle times: a slow `cp -r` may be about to write
 * the next file into it.
 */
export const EMPTIED_FOLDER_SETTLES = 4

/**
 * A file leaves the watch folder by a rename to a dot-name of this prefix in its folder, a
 * check that what was renamed is the file imported, then an unlink: a file renamed over the
 * name in between (a connector's newer version) is put back, never deleted unread.
 */
const SET_ASIDE_PREFIX = ".waymark-removing-"
const SET_ASIDE = /^\.waymark-removing-([0-9a-f]{8})(?:\.(.+)|-(.*))$/

const setAsideName = (name: string): string => {
  const tag = randomBytes(4).toString("hex")
  const full = `${SET_ASIDE_PREFIX}${tag}.${name}`
  // a name near the file system's limit keeps only its extension
  return Buffer.byteLength(full) <= 255 ? full : `${SET_ASIDE_PREFIX}${tag}-${splitExtension(name)[1]}`
}

/** The name a set-aside entry had (`recovered-<tag>.fit` when it was too long to keep). */
const nameBeforeSetAside = (setAside: string): string | null => {
  const match = SET_ASIDE.exec(setAside)
  if (match === null) return null
  return match[2] ?? `recovered-${match[1]}${match[3] ?? ""}`
}

/** Puts the set-aside entry `aside` back into `dir` as `name`, or under a free `name-1.ext`, ...: never over another file. */
const putBack = (aside: string, dir: string, name: string): string => {
  if (fs.lstatSync(aside).isDirectory()) {
    for (let i = 0; ; i++) {
      const candidate = i === 0 ? name : suffixedName(name, i)
      if (fs.existsSync(path.join(dir, candidate))) continue
      fs.renameSync(aside, path.join(dir, candidate))
      return candidate
    }
  }
  const placed = linkUnderFreeName(aside, dir, name)
  if (placed === null) throw new Error(`no free name for ${name} in ${dir}`)
  fs.unlinkSync(aside)
  return placed
}

/** What became of a file the import asked to remove. */
export type Removal =
  /** it was the file imported, and it is gone */
  | { readonly _tag: "Removed" }
  /** another file had taken its name: it stays, under `name` (the path under the watch folder) */
  | { readonly _tag: "Replaced"; readonly name: string }
  /** nothing was there any more */
  | { readonly _tag: "Gone" }

/**
 * Removes `relative` from the watch folder `root` only if it is still the regular file
 * `identity` describes (the bytes that were imported and kept); anything else under the name
 * stays to be imported. A crash between the rename and the unlink leaves a dot-name that the
 * next start puts back (`restoreSetAside`).
 */
export const removeIfUnchanged = (root: string, relative: string, identity: FileIdentity): Removal => {
  const full = path.join(root, relative)
  const dir = path.dirname(full)
  const name = path.basename(full)
  const aside = path.join(dir, setAsideName(name))
  try {
    fs.renameSync(full, aside)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { _tag: "Gone" }
    throw e
  }
  const stat = fs.lstatSync(aside)
  if (stat.isFile() && sameIdentity(identityOf(stat), identity)) {
    fs.unlinkSync(aside)
    return { _tag: "Removed" }
  }
  const placed = putBack(aside, dir, name)
  const folder = path.posix.dirname(relative)
  return { _tag: "Replaced", name: folder === "." ? placed : `${folder}/${placed}` }
}

/** Puts back what a removal cut short by a crash left set aside (see removeIfUnchanged); answers the names. */
const restoreSetAside = (root: string, relative = "", depth = 0): Array<string> => {
  const restored: Array<string> = []
  let entries: Array<fs.Dirent> = []
  try {
    entries = fs.readdirSync(relative === "" ? root : path.join(root, relative), { withFileTypes: true })
  } catch {
    return restored
  }
  for (const entry of entries) {
    const rel = relative === "" ? entry.name : `${relative}/${entry.name}`
    const before = nameBeforeSetAside(entry.name)
    if (before !== null) {
      try {
        const placed = putBack(path.join(root, rel), path.join(root, relative), before)
        restored.push(relative === "" ? placed : `${relative}/${placed}`)
      } catch {
        // left for the next start
      }
    } else if (entry.isDirectory() && !entry.name.startsWith(".") && depth < MAX_FOLDER_DEPTH) {
      restored.push(...restoreSetAside(root, rel, depth + 1))
    }
  }
  return restored
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

    /**
     * What a stop of the daemon left in the folder, put right before it is watched (by the
     * daemon, which holds the folder's lock: never by a command run beside it).
     */
    const tidyAfterStop = Effect.gen(function*() {
      // files left in .uploads by an upload cut off by a crash: nobody will finish them
      const stale = yield* Effect.sync(() => removeFilesIn(paths.uploadsDir))
      if (stale.length > 0) {
        yield* Effect.logInfo(`removed ${stale.length} unfinished upload(s) from ${paths.uploadsDir}: ${stale.join(", ")}`).pipe(
          inChannel("daemon")
        )
      }
      // zips half unpacked: unpacked again from the zip, still there
      yield* Effect.sync(() => removeStaleStaging(paths.watchDir))
      const restored = yield* Effect.sync(() => restoreSetAside(paths.watchDir))
      if (restored.length > 0) {
        yield* Effect.logInfo(`put back ${restored.length} file(s) whose removal from the watch folder a stop cut short: ${restored.join(", ")}`).pipe(
          inChannel("daemon")
        )
      }
    }).pipe(Effect.withSpan("WatchDirectory.tidyAfterStop"))

    /**
     * Files whose import failed as truncated while they were young, left in the folder a while
     * in case they were still being written: they have their `failed` row and are not waiting,
     * unless they changed since the bytes of that row were read (then they are imported again
     * from their whole content). A file whose row is being written is held too (see `hold`).
     */
    const held = new Map<string, FileIdentity>()
    const stillHeld = (filename: string, stat: fs.Stats): boolean => {
      const at = held.get(filename)
      if (at === undefined) return false
      if (stat.isFile() && sameIdentity(at, identityOf(stat))) return true
      held.delete(filename)
      return false
    }

    /**
     * Marks `filename` as held (see `held`): `identity` is the file as it was read for its row.
     * A file is held too from just before its row is written until it leaves the folder, so
     * that the import log never lists it both as queued and with its row.
     */
    const hold = (filename: string, identity: FileIdentity): void => {
      held.set(filename, identity)
    }

    /** `filename` is not held any more: its row was not written after all, and it waits again. */
    const release = (filename: string): void => {
      held.delete(filename)
    }

    /**
     * Takes `filename` out of the folder if it is still the file `identity` describes (whose
     * copy is in storage): see removeIfUnchanged. Its subfolder is removed later, once it has
     * stayed empty (sweepEmptied).
     */
    const takeOut = (filename: string, identity: FileIdentity): Removal => {
      const removal = removeIfUnchanged(paths.watchDir, filename, identity)
      if (removal._tag === "Removed") noteRemoved(filename)
      return removal
    }

    /** Names the import wants looked at again (held, kept back, tried later): the watcher lets each settle first. */
    const again = yield* Queue.unbounded<string>()
    const settleAgain = (filename: string) => Queue.offer(again, filename).pipe(Effect.asVoid)

    /**
     * Takes an imported file (or an unpacked zip) out of the folder if it is still the file
     * `identity` describes, whose copy is in storage; a file renamed over its name meanwhile
     * stays, and is imported in turn once it holds still.
     */
    const removeImported = Effect.fn("WatchDirectory.removeImported")(function*(filename: string, identity: FileIdentity) {
      const removal = yield* Effect.sync(() => takeOut(filename, identity))
      if (removal._tag !== "Replaced") return
      yield* Effect.logInfo(
        `"${filename}" was replaced by another file while it was imported; the new one stays in the watch folder${
          removal.name === filename ? "" : ` as "${removal.name}"`
        } and is imported in turn`
      ).pipe(inChannel("daemon"))
      yield* settleAgain(removal.name)
    })

    /** Takes a held, unchanged file out of the folder (its bytes are kept as its failed import's original); true when it did. */
    const takeHeld = (filename: string): boolean => {
      const identity = held.get(filename)
      if (identity === undefined) return false
      held.delete(filename)
      return takeOut(filename, identity)._tag === "Removed"
    }

    /**
     * When each file listed was first seen (its modification time then), kept while it stays:
     * the import log lists the folder on every request, and a bulk import leaves thousands of
     * files there, whose status calls (one each) cost tens of milliseconds a listing. Only the
     * held files, whose identity decides whether they are waiting, are looked at each time.
     */
    let firstSeen = new Map<string, number>()

    /** Supported regular files present in the watch folder and its subfolders, oldest first (read at once: DirectRoutes answers with it). */
    const waiting = (): Array<QueuedFile> => {
      const files: Array<QueuedFile> = []
      const seen = new Map<string, number>()
      walkFolder(paths.watchDir, (filename, entry) => {
        // a zip is unpacked when it arrives, not listed; links, pipes and devices are refused, not queued
        if (!entry.isFile() || isZipName(filename)) return
        const format = formatOf(filename)
        if (format === null) return
        const full = path.join(paths.watchDir, filename)
        let mtimeMs = firstSeen.get(filename)
        if (mtimeMs === undefined || held.has(filename)) {
          try {
            const stat = fs.lstatSync(full)
            if (stillHeld(filename, stat)) return
            mtimeMs ??= stat.mtimeMs
          } catch {
            return // removed meanwhile
          }
        }
        seen.set(filename, mtimeMs)
        files.push({ filename, format, path: full, mtimeMs })
      })
      firstSeen = seen
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
      return yield* Effect.tryPromise(() => publishFileAsync(tempPath, paths.watchDir, name))
    })

    /** Subfolders the import emptied (paths under the folder), with their modification time and since when they are so. */
    const emptied = new Map<string, { readonly mtimeMs: number; readonly since: number }>()

    /** `relative` (a path under the folder) left it: its subfolder may now be empty. */
    const noteRemoved = (relative: string): void => {
      held.delete(relative)
      const folder = path.posix.dirname(relative)
      if (folder !== ".") emptied.set(folder, { mtimeMs: -1, since: Date.now() })
    }

    /**
     * Removes the subfolders the import emptied that have stayed empty and unchanged for
     * `quietMs`, then their parents on the same terms; the watch folder itself stays.
     */
    const sweepEmptied = (quietMs: number): void => {
      const now = Date.now()
      for (const [folder, seen] of [...emptied]) {
        const full = path.join(paths.watchDir, folder)
        let mtimeMs: number
        try {
          const stat = fs.lstatSync(full)
          if (!stat.isDirectory() || fs.readdirSync(full).length > 0) {
            emptied.delete(folder)
            continue
          }
          mtimeMs = stat.mtimeMs
        } catch {
          emptied.delete(folder)
          continue
        }
        if (mtimeMs !== seen.mtimeMs) {
          emptied.set(folder, { mtimeMs, since: now })
          continue
        }
        if (now - seen.since < quietMs) continue
        emptied.delete(folder)
        try {
          fs.rmdirSync(full)
        } catch {
          continue // written into at the last moment
        }
        noteRemoved(folder)
      }
    }

    /** What is wrong with the watch folder, in words without its path (the health probe shows it); null while it is watched. */
    let trouble: string | null = null

    /** How many whole scans of the folder the watcher made: the first once its watches are set, then one every minute. */
    const scans = yield* SubscriptionRef.make(0)

    return {
      tidyAfterStop,
      queued,
      waiting,
      hold,
      release,
      takeOut,
      removeImported,
      takeHeld,
      deliver,
      noteRemoved,
      sweepEmptied,
      settleAgain,
      /** the next name to let settle again (see settleAgain) */
      takeSettleAgain: Queue.take(again),
      /** counts a whole scan of the folder (the watcher's) */
      countScan: SubscriptionRef.update(scans, (n) => n + 1),
      /** the number of whole scans of the folder so far */
      scans: SubscriptionRef.get(scans),
      /** waits until the folder has been scanned `count` times (1: it is watched, and what was there before has been seen) */
      scanned: (count: number = 1): Effect.Effect<void> =>
        scans.changes.pipe(Stream.takeUntil((n) => n >= count), Stream.runDrain),
      problem: (): string | null => trouble,
      setProblem: (problem: string | null): void => {
        trouble = problem
      },
      uploadsDir: paths.uploadsDir,
      watchDir: paths.watchDir
    } as const
  }),
  dependencies: [StoragePaths.Default]
}) {}

/**
 * What a stop left in the watch folder put right (WatchDirectory.tidyAfterStop), as a step of
 * the daemon's start that comes before all its parts: the recovery of kept originals and the
 * uploads pass their files through `.uploads`, which the tidy empties, so neither may start
 * beside it; and the folder is watched only once it is tidy.
 */
export const TidyAfterStopLive = Layer.effectDiscard(Effect.flatMap(WatchDirectory, (watch) => watch.tidyAfterStop))
