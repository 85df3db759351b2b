import * as path from "node:path"
import { type FileIdentity, identityOf, lstatIfPresent, sameIdentity } from "../services/import/files/FileOnDisk.ts"

/**
 * The files of the watch folder that were seen to appear or change, each handed on once it has
 * held still: its size, modification time and inode the same on two looks `settleMs` apart.
 * Both looks are this process's own, so a file server whose clock is off cannot make a file
 * look older than it is. One timer serves every file, and runs only while some file settles.
 *
 * What is not a regular file (a link, a pipe, a socket, a device) is handed on at once: it is
 * never read, only refused, and it can be refused right away.
 *
 * A file handed on and seen again unchanged (a scan passing by) is not handed on again for
 * `quietMs`: a file that failed while young stays in the folder for the import to look at it
 * again at its own time (`recheck`); past `quietMs` it is, so that a name the queue lost is found.
 */

export class SettlingFiles {
  private readonly waiting = new Map<string, { identity: FileIdentity; since: number }>()
  private readonly handedOn = new Map<string, { identity: FileIdentity; at: number }>()
  private timer: NodeJS.Timeout | null = null
  private readonly tickMs: number

  constructor(
    private readonly root: string,
    private readonly settleMs: number,
    private readonly quietMs: number,
    private readonly settled: (relative: string) => void
  ) {
    this.tickMs = Math.max(50, Math.min(500, Math.round(settleMs / 4)))
  }

  /** `relative` (a path under the root) appeared or changed, or a scan found it. */
  observe(relative: string): void {
    const stat = lstatIfPresent(path.join(this.root, relative))
    if (stat === null) return this.forget(relative)
    if (stat.isDirectory()) return
    const identity = identityOf(stat)
    const before = this.handedOn.get(relative)
    if (before !== undefined && sameIdentity(before.identity, identity) && Date.now() - before.at < this.quietMs) return
    if (!stat.isFile()) {
      this.waiting.delete(relative)
      return this.handOn(relative, identity)
    }
    const known = this.waiting.get(relative)
    if (known !== undefined && sameIdentity(known.identity, identity)) return
    this.waiting.set(relative, { identity, since: Date.now() })
    this.timer ??= setInterval(() => this.check(), this.tickMs)
  }

  /**
   * The import asks for `relative` again (a file held or kept back for a later look): it is
   * handed on once it has held still for the settle time, whether or not it changed.
   */
  recheck(relative: string): void {
    this.handedOn.delete(relative)
    this.waiting.delete(relative)
    this.observe(relative)
  }

  forget(relative: string): void {
    this.handedOn.delete(relative)
    this.waiting.delete(relative)
    if (this.waiting.size === 0) this.stopTimer()
  }

  get size(): number {
    return this.waiting.size
  }

  close(): void {
    this.waiting.clear()
    this.handedOn.clear()
    this.stopTimer()
  }

  private handOn(relative: string, identity: FileIdentity) {
    // names whose removal went unseen are not kept for ever
    if (this.handedOn.size >= 100_000) this.handedOn.clear()
    this.handedOn.set(relative, { identity, at: Date.now() })
    this.settled(relative)
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
        this.handOn(relative, identityOf(stat))
      } else {
        this.waiting.set(relative, { identity: identityOf(stat), since: now })
      }
    }
    if (this.waiting.size === 0) this.stopTimer()
  }
}
