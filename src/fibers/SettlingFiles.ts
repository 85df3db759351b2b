import * as fs from "node:fs"
import * as path from "node:path"

/**
 * The files of the watch folder that were seen to appear or change, each handed on once it has
 * held still: its size, modification time and inode the same on two looks `settleMs` apart.
 * Both looks are this process's own, so a file server whose clock is off cannot make a file
 * look older than it is. One timer serves every file, and runs only while some file settles.
 *
 * What is not a regular file (a link, a pipe, a socket, a device) is handed on at once: it is
 * never read, only refused, and it can be refused right away.
 */

/** What the import compares to tell whether a file changed since it was looked at. */
export interface FileIdentity {
  readonly size: number
  readonly mtimeMs: number
  readonly ino: number
}

export const identityOf = (stat: fs.Stats): FileIdentity => ({ size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino })

export const sameIdentity = (a: FileIdentity, b: FileIdentity): boolean => a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino

const lstatIfPresent = (file: string): fs.Stats | null => {
  try {
    return fs.lstatSync(file)
  } catch {
    return null
  }
}

export class SettlingFiles {
  private readonly waiting = new Map<string, { identity: FileIdentity; since: number }>()
  private timer: NodeJS.Timeout | null = null
  private readonly tickMs: number

  constructor(
    private readonly root: string,
    private readonly settleMs: number,
    private readonly settled: (relative: string) => void
  ) {
    this.tickMs = Math.max(50, Math.min(500, Math.round(settleMs / 4)))
  }

  /** `relative` (a path under the root) appeared or changed, or a scan found it. */
  observe(relative: string): void {
    const stat = lstatIfPresent(path.join(this.root, relative))
    if (stat === null) return this.forget(relative)
    if (stat.isDirectory()) return
    if (!stat.isFile()) {
      this.forget(relative)
      return this.settled(relative)
    }
    const identity = identityOf(stat)
    const known = this.waiting.get(relative)
    if (known !== undefined && sameIdentity(known.identity, identity)) return
    this.waiting.set(relative, { identity, since: Date.now() })
    this.timer ??= setInterval(() => this.check(), this.tickMs)
  }

  forget(relative: string): void {
    this.waiting.delete(relative)
    if (this.waiting.size === 0) this.stopTimer()
  }

  get size(): number {
    return this.waiting.size
  }

  close(): void {
    this.waiting.clear()
    this.stopTimer()
  }

  private stopTimer() {
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
  }

  private check() {
    const now = Date.now()
    for (const [relative, seen] of this.waiting) {
      if (now - seen.since < this.settleMs) continue
      const stat = lstatIfPresent(path.join(this.root, relative))
      if (stat === null || stat.isDirectory()) {
        this.waiting.delete(relative)
      } else if (!stat.isFile() || sameIdentity(seen.identity, identityOf(stat))) {
        this.waiting.delete(relative)
        this.settled(relative)
      } else {
        this.waiting.set(relative, { identity: identityOf(stat), since: now })
      }
    }
    if (this.waiting.size === 0) this.stopTimer()
  }
}
