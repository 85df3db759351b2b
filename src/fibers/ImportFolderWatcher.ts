import * as chokidar5Module from "chokidar"
import * as fs from "node:fs"
import * as path from "node:path"
import { isHiddenPath, MAX_FOLDER_DEPTH, walkFolder, type WalkNotices } from "../services/import/WatchDirectory.ts"

/**
 * The watchers of the watch folder: what tells WatchFolder which entry to look at. Each one
 * names entries by their path under the folder (`2023-rides/a.fit`), leaves dot-entries and
 * dot-folders out, goes down to MAX_FOLDER_DEPTH, and scans the folder once its watches are
 * set (what arrived before them has no event).
 *
 * Which one watches (chooseWatcher) is what `npm run bench:watch` measured, each watcher in a
 * process of its own on Node 26. chokidar 4 and 5 re-read and `lstat` every entry of a folder
 * once a second while files arrive or leave, and watch every file on its own: while 10,000
 * files left a folder at 160 a second, chokidar 5 took 72 to 82 % of a core (in the daemon an
 * import of 10,000 dropped files ran five times slower). chokidar 6, which needs Node 22.22,
 * watches each folder once: 3.7 to 4.4 %, against 1.0 to 1.4 % for the folders' own events,
 * and the daemon imported 10,000 dropped files as fast with it (55 files/s and 67 s of CPU,
 * against 46 files/s and 68 s, in the same run). Its polling, though, costs more than
 * chokidar 5's: 0.35 to 0.42 % of a core for 1,000 files polled every 5 s, against 0.07 to
 * 0.10 %, for as long as the daemon runs. So: chokidar 6's events where Node runs it, else the
 * folders' own change events; chokidar 5's polling (WATCH_POLLING, for network shares, which
 * send no events) everywhere.
 */

/** What a name that is not UTF-8 holds once Node has read it as text. */
const UNREADABLE = "\uFFFD"

/** What a watcher reports, in paths under the watch folder. */
export interface WatcherHandlers {
  /** an entry appeared, changed or went: to be looked at */
  readonly look: (relative: string) => void
  /** an entry went (chokidar says so; the folders' own events leave it to `look`) */
  readonly gone: (relative: string) => void
  /** the whole folder to be looked at: once the watches are set, and every minute after */
  readonly scan: () => void
  /** what a walk of a folder found that is not looked at (a file too deep, a name that is not UTF-8) */
  readonly notices: WalkNotices
  readonly warn: (message: string) => void
}

export interface FolderWatcher {
  readonly close: () => Promise<void> | void
  /** called before each scan every minute */
  readonly rescanned?: () => void
}

/** A chokidar, and its major version. */
export interface Chokidar {
  readonly major: 5 | 6
  readonly watch: typeof chokidar5Module.watch
}

/** chokidar 6's engines: Node 22.22 or later. */
export const runsChokidar6 = (nodeVersion: string = process.versions.node): boolean => {
  const [major = 0, minor = 0] = nodeVersion.split(".").map(Number)
  return major > 22 || (major === 22 && minor >= 22)
}

export const chokidar5: Chokidar = { major: 5, watch: chokidar5Module.watch }

/**
 * chokidar 6, or null where it is not installed. It is an optional dependency under the name
 * `chokidar6`: npm installs it only on a Node its engines accept (an optional package that does
 * not fit is skipped), so on Node 20 it is neither installed nor loaded. The name is held in a
 * variable so that the type check does not look for it (chokidar 5's types describe what is
 * used of both).
 */
export const loadChokidar6 = async (): Promise<Chokidar | null> => {
  const name = "chokidar6"
  try {
    const chokidar6 = (await import(name)) as typeof chokidar5Module
    return { major: 6, watch: chokidar6.watch }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND") return null
    throw e
  }
}

/**
 * The operating system's change events (inotify), one watch per folder (the watch folder and
 * each subfolder down to MAX_FOLDER_DEPTH, dot-folders left out), each event naming the entry
 * that changed; a new subfolder is watched and scanned. Folders that went away are dropped and
 * new ones watched at each scan every minute.
 */
export const folderEvents = (dir: string, handlers: WatcherHandlers): FolderWatcher => {
  const { look, notices, scan, warn } = handlers
  const watchers = new Map<string, fs.FSWatcher>()
  let mentioned = false
  const watchFolder = (relative: string) => {
    if (watchers.has(relative) || (relative !== "" && (isHiddenPath(relative) || relative.split("/").length > MAX_FOLDER_DEPTH))) return
    let watcher: fs.FSWatcher
    try {
      watcher = fs.watch(relative === "" ? dir : path.join(dir, relative), { persistent: false }, (_event, name) => {
        // a dot-entry (the lock's heartbeat, a producer's staging) is neither looked at nor
        // watched: no status call for it
        if (name === null || name.startsWith(".")) return
        const entry = relative === "" ? name : `${relative}/${name}`
        // a name that is not UTF-8 comes with replacement characters, under which it cannot be
        // looked up: `look` has it renamed at once (else only the next scan would)
        if (name.includes(UNREADABLE)) return look(entry)
        let isFolder = false
        try {
          isFolder = fs.lstatSync(path.join(dir, entry)).isDirectory()
        } catch {
          return
        }
        if (!isFolder) return look(entry)
        // a folder moved or made here: watched, and what it holds already looked at
        watchFolder(entry)
        walkFolder(dir, look, notices, entry, entry.split("/").length)
        watchSubfolders(entry)
      })
    } catch (e) {
      // a folder gone meanwhile, or the system's limit of watches reached: the scans go on finding files
      if (!mentioned && (e as NodeJS.ErrnoException).code !== "ENOENT") {
        mentioned = true
        warn(`a folder of the watch folder cannot be watched (${(e as Error).message}); the scan every minute still finds its files`)
      }
      return
    }
    watcher.on("error", () => {
      watcher.close()
      watchers.delete(relative)
    })
    watchers.set(relative, watcher)
  }
  const watchSubfolders = (relative: string) => {
    let entries: Array<fs.Dirent> = []
    try {
      entries = fs.readdirSync(relative === "" ? dir : path.join(dir, relative), { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name.startsWith(".")) continue
      const sub = relative === "" ? entry.name : `${relative}/${entry.name}`
      watchFolder(sub)
      if (watchers.has(sub)) watchSubfolders(sub)
    }
  }
  watchFolder("")
  watchSubfolders("")
  // what arrived before the watches began has no event
  scan()
  return {
    close: () => {
      for (const watcher of watchers.values()) watcher.close()
      watchers.clear()
    },
    rescanned: () => {
      for (const [relative, watcher] of watchers) {
        if (relative !== "" && !fs.existsSync(path.join(dir, relative))) {
          watcher.close()
          watchers.delete(relative)
        }
      }
      watchSubfolders("")
    }
  }
}

/**
 * chokidar's events, or its polling every `pollEvery` ms (NFS and SMB send no change events),
 * configured for a folder that may hold many files: no stats of its own (`alwaysStat: false`),
 * no `awaitWriteFinish` (its polling of every new file is what SettlingFiles does with one
 * timer), no merging of an unlink and an add into a change (`atomic: false`: both are looked
 * at anyway), no initial events (the scan offers the files already there), links not followed,
 * dot-files and dot-folders (`.uploads`) not entered. The scan follows chokidar's first read
 * of the folder (when it polls, the polls' first looks).
 */
export const chokidarWatcher = (chokidar: Chokidar, dir: string, handlers: WatcherHandlers, pollEvery: number | null): FolderWatcher => {
  const relativeOf = (full: string) => path.relative(dir, full).split(path.sep).join("/")
  const backend =
    pollEvery === null ? {} :
    chokidar.major === 6 ? { backend: "polling", pollingInterval: pollEvery, pollingBinaryInterval: pollEvery } :
    { usePolling: true, interval: pollEvery, binaryInterval: pollEvery }
  const watcher = chokidar.watch(dir, {
    ignoreInitial: true,
    alwaysStat: false,
    atomic: false,
    followSymlinks: false,
    depth: MAX_FOLDER_DEPTH,
    ignorePermissionErrors: true,
    ignored: (full: string) => {
      const relative = relativeOf(full)
      return relative !== "" && isHiddenPath(relative)
    },
    ...backend
  })
  watcher
    .on("add", (full) => handlers.look(relativeOf(full)))
    .on("change", (full) => handlers.look(relativeOf(full)))
    .on("unlink", (full) => handlers.gone(relativeOf(full)))
    // chokidar drops the event of a name that is not UTF-8 (it cannot stat it): its raw event
    // still names it, to be renamed at once
    .on("raw", (_event, name, details) => {
      if (!name.includes(UNREADABLE)) return
      const watchedPath = (details as { readonly watchedPath?: unknown } | undefined)?.watchedPath
      const full = path.isAbsolute(name) ? name : path.join(typeof watchedPath === "string" ? watchedPath : dir, name)
      const relative = relativeOf(full)
      if (relative !== "" && !relative.startsWith("..") && !isHiddenPath(relative)) handlers.look(relative)
    })
    // chokidar enters no folder below its depth: what lies there is named, as the walk names it
    .on("addDir", (full) => {
      const relative = relativeOf(full)
      const depth = relative === "" ? 0 : relative.split("/").length
      if (depth > MAX_FOLDER_DEPTH) return handlers.notices.tooDeep?.(relative)
      if (depth === MAX_FOLDER_DEPTH) for (const sub of subfoldersOf(full)) handlers.notices.tooDeep?.(`${relative}/${sub}`)
    })
    .on("error", (e) => handlers.warn(`the watch folder's watcher reported a problem (${e instanceof Error ? e.message : String(e)}); the scan every minute still finds new files`))
  if (pollEvery === null) {
    watcher.on("ready", handlers.scan)
    return { close: () => watcher.close() }
  }
  // A poll compares each folder with what its first look saw, and that look runs on the
  // thread pool after chokidar's "ready": a file arriving in between is in that first look
  // and never makes a change (it waited for the scan every minute). What is there at "ready"
  // is looked at once; the scan that says the watches are set comes once a look of the
  // folder queued behind the polls' first looks is back, and a poll's interval more.
  let baseline: NodeJS.Timeout | null = null
  let closed = false
  watcher.on("ready", () => {
    walkFolder(dir, handlers.look, handlers.notices)
    fs.stat(dir, () => {
      if (!closed) baseline = setTimeout(handlers.scan, pollEvery)
    })
  })
  return {
    close: () => {
      closed = true
      if (baseline !== null) clearTimeout(baseline)
      return watcher.close()
    }
  }
}

/** The names of the folders in `full` (none when it cannot be read). */
const subfoldersOf = (full: string): Array<string> => {
  try {
    return fs.readdirSync(full, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name)
  } catch {
    return []
  }
}

/** The watcher of the watch folder on this Node, with its name for the log. */
export interface WatcherChoice {
  readonly name: string
  readonly watch: (dir: string, handlers: WatcherHandlers) => FolderWatcher
}

/**
 * As measured (see above): polling every `pollEvery` ms is chokidar 5's; else chokidar 6's
 * events where Node runs it and npm installed it (not a Node 22.22 running the packages an
 * older Node installed), else the folders' own change events.
 */
export const chooseWatcher = async (pollEvery: number | null): Promise<WatcherChoice> => {
  if (pollEvery !== null) return { name: "chokidar 5 polling", watch: (dir, handlers) => chokidarWatcher(chokidar5, dir, handlers, pollEvery) }
  const chokidar6 = runsChokidar6() ? await loadChokidar6() : null
  if (chokidar6 !== null) return { name: "chokidar 6", watch: (dir, handlers) => chokidarWatcher(chokidar6, dir, handlers, null) }
  return { name: "the folders' own change events", watch: folderEvents }
}
