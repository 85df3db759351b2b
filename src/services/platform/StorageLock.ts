import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/**
 * One daemon per storage folder: `<STORAGE_DIR>/waymark.lock` holds the pid of the daemon
 * that owns the folder for the life of its process. A lock whose process is gone (a crash,
 * `kill -9`, a zombie its parent has not reaped yet) is taken over; a live one stops the
 * second daemon before it opens anything. `acquirePidLock` is the same rule for any lock file.
 */
export const LOCK_FILE_NAME = "waymark.lock"

export interface LockHolder {
  readonly pid: number
  readonly hostname: string
  readonly startedAt: string
}

export type LockResult =
  | { readonly _tag: "Acquired"; readonly file: string; readonly release: () => void }
  | { readonly _tag: "Held"; readonly file: string; readonly holder: LockHolder }

/**
 * The state letter of `/proc/<pid>/stat` ("R", "S", "Z", ...), or undefined where there is
 * no procfs. The command name in parentheses may itself hold spaces and parentheses: the
 * state follows the last ")".
 */
const procState = (pid: number): string | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) || undefined
  } catch {
    return undefined
  }
}

/**
 * Whether `pid` still runs. A zombie (killed, not yet reaped by its parent: for about a
 * second after `kill -9` under a container's init) has released everything and counts as gone.
 */
export const isProcessRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch (e) {
    // EPERM: the process exists but belongs to another user
    if ((e as NodeJS.ErrnoException).code !== "EPERM") return false
  }
  const state = procState(pid)
  return state !== "Z" && state !== "X"
}

const readHolder = (file: string): LockHolder | null => {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<LockHolder>
    return typeof parsed.pid === "number" ? { pid: parsed.pid, hostname: String(parsed.hostname ?? ""), startedAt: String(parsed.startedAt ?? "") } : null
  } catch {
    return null
  }
}

/**
 * A holder that is this very process (a container restarted with the same pid), a process
 * that no longer runs, or an unreadable lock file (a crash while writing it) is stale. The
 * host name is only shown: a recreated container has a new one, and its old lock must not
 * block it forever.
 */
const isStale = (holder: LockHolder | null): boolean => holder === null || holder.pid === process.pid || !isProcessRunning(holder.pid)

/**
 * Takes `file` for this process (its pid, host and start time inside) unless a running
 * process holds it; released by `release` or when the process exits. The folder must exist.
 */
export const acquirePidLock = (file: string): LockResult => {
  const me: LockHolder = { pid: process.pid, hostname: os.hostname(), startedAt: new Date().toISOString() }
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      // "wx": created only if absent, so two processes starting together cannot both win
      fs.writeFileSync(file, JSON.stringify(me) + "\n", { flag: "wx" })
      let released = false
      const release = () => {
        if (released) return
        released = true
        process.removeListener("exit", release)
        if (readHolder(file)?.pid === process.pid) fs.rmSync(file, { force: true })
      }
      process.once("exit", release)
      return { _tag: "Acquired", file, release }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
    }
    const holder = readHolder(file)
    if (!isStale(holder)) return { _tag: "Held", file, holder: holder! }
    fs.rmSync(file, { force: true })
  }
  const holder = readHolder(file)
  return { _tag: "Held", file, holder: holder ?? { pid: -1, hostname: "", startedAt: "" } }
}

export const acquireStorageLock = (storageDir: string): LockResult => {
  fs.mkdirSync(storageDir, { recursive: true })
  return acquirePidLock(path.join(storageDir, LOCK_FILE_NAME))
}

/** The same lock for the watch folder: a dot-file, so that it is never taken for an import. */
export const WATCH_LOCK_FILE_NAME = ".waymark.lock"

export const acquireWatchLock = (watchDir: string): LockResult => {
  fs.mkdirSync(watchDir, { recursive: true })
  return acquirePidLock(path.join(watchDir, WATCH_LOCK_FILE_NAME))
}
