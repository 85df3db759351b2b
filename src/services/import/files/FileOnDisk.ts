import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"

/**
 * A file of the watch folder as the disk has it, every question the import asks about it in one
 * place: what the entry is (a link is never followed), what identifies the version read (its
 * size, modification time and inode), whether it is still that version, whether it is young
 * enough to be still being written, and its bytes, read without following a link nor waiting
 * on a pipe.
 */

/**
 * What tells whether a file of the watch folder changed since it was looked at: its size,
 * modification time and inode (a file renamed over the name has another inode).
 */
export interface FileIdentity {
  readonly size: number
  readonly mtimeMs: number
  readonly ino: number
}

export const identityOf = (stat: fs.Stats): FileIdentity => ({ size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino })

export const sameIdentity = (a: FileIdentity, b: FileIdentity): boolean => a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino

/** The entry itself (a link is not followed); null when it is gone. */
export const lstatIfPresent = (file: string): fs.Stats | null => {
  try {
    return fs.lstatSync(file)
  } catch {
    return null
  }
}

/** The entry itself (a link is not followed); null when it is gone or is a folder. */
export const statIfPresent = (file: string) =>
  Effect.sync(() => {
    const stat = lstatIfPresent(file)
    return stat === null || stat.isDirectory() ? null : stat
  })

/** Whether `file` is still the regular file `identity` describes (same size, modification time and inode). */
export const isStill = (file: string, identity: FileIdentity): boolean => {
  const stat = lstatIfPresent(file)
  return stat !== null && stat.isFile() && sameIdentity(identityOf(stat), identity)
}

/** Whether the file is still the one read: a regular file of the same size, modification time and inode. */
export const stillSame = (file: string, identity: FileIdentity) => Effect.sync(() => isStill(file, identity))

/** Whether a file of this identity was modified within `recent`: it may still be being written. */
export const isYoung = (identity: FileIdentity, recent: Duration.Duration) =>
  Effect.map(Clock.currentTimeMillis, (now) => now - identity.mtimeMs < Duration.toMillis(recent))

/** Why an entry of the watch folder that is not a regular file is not read. */
export const notRegularReason = (stat: fs.Stats): string =>
  stat.isSymbolicLink()
    ? "a symbolic link is not imported: copy the file itself into the watch folder"
    : stat.isFIFO()
    ? "a named pipe (FIFO) is not imported: copy a regular file into the watch folder"
    : stat.isSocket()
    ? "a socket is not imported: copy a regular file into the watch folder"
    : stat.isBlockDevice() || stat.isCharacterDevice()
    ? "a device is not imported: copy a regular file into the watch folder"
    : "only regular files are imported: copy a regular file into the watch folder"

/**
 * `file` opened for reading without following a link nor waiting on a pipe, and what it is
 * (its descriptor is the caller's to close, also when it is no regular file); null when it is
 * gone. A link fails with ELOOP.
 */
export const openNoFollow = (file: string): { readonly fd: number; readonly stat: fs.Stats } | null => {
  let fd: number
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null
    throw e
  }
  try {
    return { fd, stat: fs.fstatSync(fd) }
  } catch (e) {
    fs.closeSync(fd)
    throw e
  }
}

/**
 * The bytes of a regular file and what it was when read (opened without following a link
 * nor waiting on a pipe); null when it is gone or is no longer a regular file.
 */
export const readIfPresent = (file: string) =>
  Effect.sync(() => {
    let opened: ReturnType<typeof openNoFollow>
    try {
      opened = openNoFollow(file)
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code === "ELOOP" || code === "ENXIO") return null
      throw e
    }
    if (opened === null) return null
    try {
      return opened.stat.isFile() ? { bytes: fs.readFileSync(opened.fd), stat: opened.stat } : null
    } finally {
      fs.closeSync(opened.fd)
    }
  })
