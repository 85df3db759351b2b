import type * as fs from "node:fs"

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
