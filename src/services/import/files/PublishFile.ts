import * as fs from "node:fs"
import * as path from "node:path"
import { splitExtension } from "./ActivityFileName.ts"

/**
 * The one rule by which a finished file enters a folder watched by someone else (the watch
 * folder), for uploads and connector downloads alike: the bytes are made durable first, the
 * final name appears in one step (never a half-written file under it), and an existing file
 * is never replaced unless asked. A hard link is what guarantees "never replaced": unlike a
 * rename it fails when the name is taken, even when two writers race for it.
 *
 * On a clash: `suffix` tries `name-1.ext`, `name-2.ext`, ...; `skip` leaves the existing file
 * and drops the new one; `overwrite` replaces it (rename).
 */
export type OnClash = "suffix" | "skip" | "overwrite"

export type Published =
  /** the file is now in the folder under `name` */
  | { readonly _tag: "Published"; readonly name: string }
  /** `skip`: a file named `name` was already there; the new one was dropped */
  | { readonly _tag: "Exists"; readonly name: string }

const MAX_SUFFIX = 10_000

const isCode = (error: unknown, code: string) => (error as NodeJS.ErrnoException | undefined)?.code === code

/** fsync of a file or folder by path. */
export const syncPath = (target: string): void => {
  const fd = fs.openSync(target, "r")
  try {
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

/** Makes a new or removed name in `dir` durable; best effort (some filesystems refuse a folder fsync). */
export const syncFolder = (dir: string): void => {
  try {
    syncPath(dir)
  } catch {
    // the name is in place either way
  }
}

/** `ride.fit` -> `ride-2.fit`, `ride.fit.gz` -> `ride-2.fit.gz`; a name without extension gets the suffix at its end. */
export const suffixedName = (name: string, i: number): string => {
  const [stem, ext] = splitExtension(name)
  return stem === "" ? `${name}-${i}` : `${stem}-${i}${ext}`
}

/**
 * Hard-links `from` into `dir` as `name`, or when taken as the first free `name-1.ext`,
 * `name-2.ext`, ... (`tries` names in all); the name it got, null when none was free. Any
 * entry but a folder can be linked (a link is linked itself, not followed), and nothing is
 * opened: a pipe is placed as well as a file.
 */
export const linkUnderFreeName = (from: string | Buffer, dir: string, name: string, tries = MAX_SUFFIX): string | null => {
  for (let i = 0; i < tries; i++) {
    const candidate = i === 0 ? name : suffixedName(name, i)
    try {
      fs.linkSync(from, path.join(dir, candidate))
      return candidate
    } catch (e) {
      if (!isCode(e, "EEXIST")) throw e
    }
  }
  return null
}

/**
 * Moves the complete file `tempPath` (on the same filesystem) into `dir` as `name`. Throws
 * the filesystem's error when the file cannot be placed; `tempPath` is then left to the caller.
 */
export const publishFile = (tempPath: string, dir: string, name: string, onClash: OnClash): Published => {
  syncPath(tempPath)
  if (onClash === "overwrite") {
    fs.renameSync(tempPath, path.join(dir, name))
    syncFolder(dir)
    return { _tag: "Published", name }
  }
  const placed = linkUnderFreeName(tempPath, dir, name, onClash === "suffix" ? MAX_SUFFIX : 1)
  if (placed !== null) {
    fs.rmSync(tempPath, { force: true })
    syncFolder(dir)
    return { _tag: "Published", name: placed }
  }
  if (onClash === "skip") {
    fs.rmSync(tempPath, { force: true })
    return { _tag: "Exists", name }
  }
  throw new Error(`no free name for ${name} in ${dir}`)
}

/** fsync of a file or folder by path, on libuv's threads (the event loop goes on meanwhile). */
const syncPathAsync = async (target: string): Promise<void> => {
  const handle = await fs.promises.open(target, "r")
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/**
 * `publishFile` with `suffix`, its flushes (the file's, then the folder's) off the event loop:
 * for the uploads, whose bursts must leave the daemon free to answer (a flush of a real disk
 * takes milliseconds, a burst of two hundred of them the event loop's whole second).
 */
export const publishFileAsync = async (tempPath: string, dir: string, name: string): Promise<string> => {
  await syncPathAsync(tempPath)
  const placed = linkUnderFreeName(tempPath, dir, name)
  if (placed === null) throw new Error(`no free name for ${name} in ${dir}`)
  await fs.promises.rm(tempPath, { force: true })
  // the new name made durable; best effort (some filesystems refuse a folder fsync)
  await syncPathAsync(path.join(dir, path.dirname(placed))).catch(() => undefined)
  return placed
}
