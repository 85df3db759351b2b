import * as Context from "effect/Context"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/**
 * One daemon per storage folder: `<STORAGE_DIR>/waymark.lock` names the daemon that owns the
 * folder (its pid, host name and boot id) for the life of its process; `acquirePidLock` is the
 * same rule for any lock file (the watch folder's `.waymark.lock`). Whether a holder is gone
 * depends on where it runs:
 * - on this host and boot, its pid tells: a process that is gone (a crash, `kill -9`, a zombie
 *   its parent has not reaped yet) leaves a stale lock, taken over at once;
 * - elsewhere (another container sharing the volume, where pids are another namespace's, or
 *   another host over NFS), pids say nothing: the holder touches its lock file every
 *   HEARTBEAT_INTERVAL_MS (`refresh`), and a lock untouched for HEARTBEAT_STALE_MS is stale.
 * A live holder stops the second daemon before it opens anything.
 */
export const LOCK_FILE_NAME = "waymark.lock"

/** How often a holder touches its lock files. */
export const HEARTBEAT_INTERVAL_MS = 10_000
/** A lock of another host or boot untouched this long is stale: its holder missed three heartbeats. */
export const HEARTBEAT_STALE_MS = 3 * HEARTBEAT_INTERVAL_MS

export interface LockHolder {
  readonly pid: number
  readonly hostname: string
  /** the kernel's boot id (`/proc/sys/kernel/random/boot_id`), "" where it cannot be read */
  readonly bootId: string
  readonly startedAt: string
}

/** A lock this process holds. */
export interface HeldLock {
  readonly file: string
  /** removes the lock file if it still names this process; also done when the process exits */
  readonly release: () => void
  /**
   * The heartbeat: touches the lock file if it names this process, writes it again if it is
   * gone (its folder recreated); false when another holder has it now, or it cannot be written.
   */
  readonly refresh: () => boolean
}

export type LockResult =
  | ({ readonly _tag: "Acquired" } & HeldLock)
  | { readonly _tag: "Held"; readonly file: string; readonly holder: LockHolder }

const readBootId = (): string => {
  try {
    return fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()
  } catch {
    return ""
  }
}

/** This process as a lock holder. */
export const thisHolder = (): LockHolder => ({ pid: process.pid, hostname: os.hostname(), bootId: readBootId(), startedAt: new Date().toISOString() })

/** `pid 12 on nas-1`: the holder as the refusal names it. */
export const describeHolder = (holder: LockHolder): string =>
  `pid ${holder.pid}${holder.hostname ? ` on ${holder.hostname}` : ""}${holder.startedAt ? `, started ${holder.startedAt}` : ""}`

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

/** The holder named in `file` and when it last touched it; null when there is no readable lock. */
const readLock = (file: string): { readonly holder: LockHolder; readonly touchedMs: number } | null => {
  try {
    const touchedMs = fs.statSync(file).mtimeMs
    const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<LockHolder>
    if (typeof parsed.pid !== "number") return null
    const holder = { pid: parsed.pid, hostname: String(parsed.hostname ?? ""), bootId: String(parsed.bootId ?? ""), startedAt: String(parsed.startedAt ?? "") }
    return { holder, touchedMs }
  } catch {
    return null
  }
}

/** The holder a lock file names; null when there is none or it cannot be read. */
export const lockHolderOf = (file: string): LockHolder | null => readLock(file)?.holder ?? null

const isSameHolder = (a: LockHolder, b: LockHolder) => a.pid === b.pid && a.hostname === b.hostname && a.bootId === b.bootId && a.startedAt === b.startedAt

/**
 * Whether a lock can be taken over. An unreadable lock file (a crash while an older version
 * wrote it) is stale. On this host and boot: a holder that is this very process (a container
 * restarted with the same pid) or a process that no longer runs. Elsewhere: a lock whose
 * heartbeat stopped.
 */
const isStale = (lock: ReturnType<typeof readLock>, me: LockHolder, nowMs: number): boolean => {
  if (lock === null) return true
  const { holder, touchedMs } = lock
  // a boot id that one side cannot read (or an older lock without one) leaves the host name to tell
  const sameBoot = holder.bootId === "" || me.bootId === "" || holder.bootId === me.bootId
  if (holder.hostname === me.hostname && sameBoot) return holder.pid === me.pid || !isProcessRunning(holder.pid)
  return nowMs - touchedMs > HEARTBEAT_STALE_MS
}

/**
 * Writes `me` as the lock `file` in one step (a temporary file hard-linked under the lock's
 * name: never a half-written lock, and the link fails when another process got there first);
 * false when the name is taken.
 */
const createLock = (file: string, me: LockHolder): boolean => {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(4).toString("hex")}`)
  fs.writeFileSync(temp, JSON.stringify(me) + "\n")
  try {
    fs.linkSync(temp, file)
    return true
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
    return false
  } finally {
    fs.rmSync(temp, { force: true })
  }
}

/**
 * Takes `file` for this process unless a live holder has it (see isStale); released by
 * `release` or when the process exits, kept fresh by `refresh`. The folder must exist.
 */
export const acquirePidLock = (file: string): LockResult => {
  const me = thisHolder()
  for (let attempt = 0; attempt < 3; attempt++) {
    if (createLock(file, me)) return { _tag: "Acquired", ...heldLock(file, me) }
    const lock = readLock(file)
    if (!isStale(lock, me, Date.now())) return { _tag: "Held", file, holder: lock!.holder }
    fs.rmSync(file, { force: true })
  }
  return { _tag: "Held", file, holder: readLock(file)?.holder ?? { pid: -1, hostname: "", bootId: "", startedAt: "" } }
}

const heldLock = (file: string, me: LockHolder): HeldLock => {
  let released = false
  const release = () => {
    if (released) return
    released = true
    process.removeListener("exit", release)
    const lock = readLock(file)
    if (lock !== null && isSameHolder(lock.holder, me)) fs.rmSync(file, { force: true })
  }
  process.once("exit", release)
  const refresh = () => {
    if (released) return false
    try {
      const lock = readLock(file)
      if (lock === null && !fs.existsSync(file)) return createLock(file, me)
      if (lock === null || !isSameHolder(lock.holder, me)) return false
      const now = new Date()
      fs.utimesSync(file, now, now)
      return true
    } catch {
      // the folder is gone or read-only: the watch folder's checks and the health probe say so
      return false
    }
  }
  return { file, release, refresh }
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

/**
 * The locks the running daemon holds, given to its layers by the entry point (none where the
 * daemon runs inside a test): the heartbeat keeps them fresh, and the watch folder takes its
 * lock again when the folder comes back.
 */
export class HeldLocks extends Context.Reference<HeldLocks>()("services/platform/HeldLocks", {
  defaultValue: (): { readonly storage: HeldLock | null; readonly watch: HeldLock | null } => ({ storage: null, watch: null })
}) {}
