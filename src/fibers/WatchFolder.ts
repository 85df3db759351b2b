import * as chokidar from "chokidar"
import { Duration, Effect, Either, Layer, Runtime, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { SUPPORTED_EXTENSIONS } from "../services/import/ActivityFileName.ts"
import { ImportQueue } from "../services/import/ImportQueue.ts"
import { FAILED_RECHECK_SETTLES } from "../services/import/ImportService.ts"
import { isCandidateName, isHiddenName, isHiddenPath, MAX_FOLDER_DEPTH, walkFolder, WatchDirectory } from "../services/import/WatchDirectory.ts"
import { AppConfig } from "../services/platform/AppConfig.ts"
import { inChannel } from "../services/platform/Logs.ts"
import { SettlingFiles } from "./SettlingFiles.ts"
import { supervise } from "./supervise.ts"

/**
 * Offers every supported file of the watch folder and its subfolders to the ImportQueue once
 * it has held still for WATCH_SETTLE (SettlingFiles): change events say which file to look
 * at, a scan of the folder at start and every minute after finds what an event missed (a
 * full event queue).
 *
 * The events are the operating system's, one watch per folder (folderEvents). chokidar 4 and
 * 5 (6 needs Node 22) re-read and lstat every entry of a folder once a second while files
 * arrive or leave, and watch each file on its own: with 10,000 files waiting that took most of
 * the main thread and slowed their import five times, whatever its options. It serves
 * WATCH_POLLING=true (NFS and SMB send no events), configured for a folder that may hold
 * many files: no stats of its own (`alwaysStat: false`), no `awaitWriteFinish` (its polling
 * of every new file is what SettlingFiles does with one timer), no initial events (the scan
 * of our own offers the files already there), dot-files and dot-folders (`.uploads`) not
 * entered, and subfolders down to MAX_FOLDER_DEPTH.
 *
 * The folder itself is checked every few seconds: a folder that is missing, is not a folder
 * or cannot be read is said once at error level, and once more when it is back, when it is
 * watched again from a new scan. /healthz reports it meanwhile (its folder probe).
 */
export const RESCAN_INTERVAL = Duration.minutes(1)
export const FOLDER_CHECK_INTERVAL = Duration.seconds(5)

/** At most this many names of unsupported files are remembered as already mentioned. */
const MAX_MENTIONED = 10_000

/** What is wrong with the watch folder, in a sentence; null when it can be watched. */
export const folderProblem = (dir: string): string | null => {
  try {
    if (!fs.statSync(dir).isDirectory()) return `the watch folder ${dir} is not a folder`
    fs.accessSync(dir, fs.constants.R_OK | fs.constants.X_OK)
    return null
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === "ENOENT") return `the watch folder ${dir} does not exist`
    if (code === "ENOTDIR") return `the watch folder ${dir} is not a folder`
    return `the watch folder ${dir} cannot be read (${code ?? String(e)})`
  }
}

interface FolderWatcher {
  readonly close: () => Promise<void> | void
  /** called before each scan every minute */
  readonly rescanned?: () => void
}

/**
 * The operating system's change events (inotify), one watch per folder (the watch folder and
 * each subfolder down to MAX_FOLDER_DEPTH, dot-folders left out), each event naming the entry
 * that changed; a new subfolder is watched and scanned. Folders that went away are dropped and
 * new ones watched at each scan every minute.
 */
const folderEvents = (dir: string, look: (relative: string) => void, log: (level: "Warning", message: string) => void, scan: () => void): FolderWatcher => {
  const watchers = new Map<string, fs.FSWatcher>()
  let mentioned = false
  const watchFolder = (relative: string) => {
    if (watchers.has(relative) || (relative !== "" && (isHiddenPath(relative) || relative.split("/").length > MAX_FOLDER_DEPTH))) return
    let watcher: fs.FSWatcher
    try {
      watcher = fs.watch(relative === "" ? dir : path.join(dir, relative), { persistent: false }, (_event, name) => {
        if (name === null) return
        const entry = relative === "" ? name : `${relative}/${name}`
        let isFolder = false
        try {
          isFolder = fs.lstatSync(path.join(dir, entry)).isDirectory()
        } catch {
          return
        }
        if (!isFolder) return look(entry)
        // a folder moved or made here: watched, and what it holds already looked at
        watchFolder(entry)
        walkFolder(path.join(dir, entry), (inside) => look(`${entry}/${inside}`))
        watchSubfolders(entry)
      })
    } catch (e) {
      // a folder gone meanwhile, or the system's limit of watches reached: the scans go on finding files
      if (!mentioned && (e as NodeJS.ErrnoException).code !== "ENOENT") {
        mentioned = true
        log("Warning", `a folder of the watch folder cannot be watched (${(e as Error).message}); the scan every minute still finds its files`)
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

class FolderProblem {
  constructor(readonly message: string) {}
}

const supportedTypes = `${SUPPORTED_EXTENSIONS.map((e) => `.${e}`).join(", ")} (also gzipped, ${SUPPORTED_EXTENSIONS.map((e) => `.${e}.gz`).join(", ")}) and .zip archives of them`

export const WatchFolderLive = Layer.scopedDiscard(Effect.gen(function*() {
  const watchDir = yield* WatchDirectory
  const queue = yield* ImportQueue
  const config = yield* AppConfig
  const dir = watchDir.watchDir
  const settleMs = Duration.toMillis(config.watchSettle)
  const interval = Duration.toMillis(config.watchPollingInterval)
  const mentioned = new Set<string>()

  const daemonLog = (level: "Info" | "Warning" | "Error", message: string) =>
    (level === "Info" ? Effect.logInfo(message) : level === "Warning" ? Effect.logWarning(message) : Effect.logError(message)).pipe(inChannel("daemon"))

  /** The folder watched until it can no longer be: the names that settled, failing with the folder's problem. */
  const watching = (log: (level: "Warning", message: string) => void) =>
    Stream.asyncPush<string, FolderProblem>((emit) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          // quiet past the time a young failed file stays for (ImportService), and past a rescan
          const quietMs = Math.max(2 * settleMs * FAILED_RECHECK_SETTLES, Duration.toMillis(RESCAN_INTERVAL))
          const settling = new SettlingFiles(dir, settleMs, quietMs, (relative) => emit.single(relative))
          const look = (relative: string) => {
            if (relative === "" || isHiddenPath(relative) || isHiddenName(path.posix.basename(relative))) return
            if (isCandidateName(relative)) return settling.observe(relative)
            if (mentioned.has(relative) || mentioned.size >= MAX_MENTIONED) return
            mentioned.add(relative)
            log("Warning", `"${relative}" in the watch folder is not imported: only ${supportedTypes} are. It is left where it is.`)
          }
          const relativeOf = (full: string) => path.relative(dir, full).split(path.sep).join("/")
          const scan = () => walkFolder(dir, (relative) => look(relative))
          const watcher = config.watchPolling ? pollingWatcher(dir, relativeOf, look, settling, log, scan) : folderEvents(dir, look, log, scan)
          const rescan = setInterval(() => {
            watcher.rescanned?.()
            scan()
          }, Duration.toMillis(RESCAN_INTERVAL))
          const check = setInterval(() => {
            const problem = folderProblem(dir)
            if (problem !== null) emit.fail(new FolderProblem(problem))
          }, Duration.toMillis(FOLDER_CHECK_INTERVAL))
          return { watcher, settling, timers: [rescan, check] }
        }),
        ({ settling, timers, watcher }) =>
          Effect.promise(async () => {
            for (const timer of timers) clearInterval(timer)
            settling.close()
            await watcher.close()
          })
      )
    )

  /**
   * WATCH_POLLING=true: chokidar polls the folder (NFS and SMB send no change events). Events
   * name files; a scan follows once chokidar has read the folder.
   */
  const pollingWatcher = (
    dir: string,
    relativeOf: (full: string) => string,
    look: (relative: string) => void,
    settling: SettlingFiles,
    log: (level: "Warning", message: string) => void,
    scan: () => void
  ): FolderWatcher => {
          const watcher = chokidar.watch(dir, {
            ignoreInitial: true,
            alwaysStat: false,
            followSymlinks: false,
            depth: MAX_FOLDER_DEPTH,
            ignorePermissionErrors: true,
            usePolling: true,
            interval,
            binaryInterval: interval,
            ignored: (full: string) => {
              const relative = relativeOf(full)
              return relative !== "" && isHiddenPath(relative)
            }
          })
          watcher
            .on("add", (full) => look(relativeOf(full)))
            .on("change", (full) => look(relativeOf(full)))
            .on("unlink", (full) => settling.forget(relativeOf(full)))
            .on("error", (e) => log("Warning", `the watch folder's watcher reported a problem (${e instanceof Error ? e.message : String(e)}); the scan every minute still finds new files`))
            .on("ready", scan)
    return { close: () => watcher.close() }
  }

  const loop = Effect.gen(function*() {
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const log = (level: "Warning", message: string) => void runFork(daemonLog(level, message))
    let reported: string | null = null
    while (true) {
      let problem = folderProblem(dir)
      if (problem === null) {
        if (reported !== null) yield* daemonLog("Info", `the watch folder ${dir} is back: watching it again`)
        reported = null
        const ended = yield* Effect.either(Stream.runForEach(watching(log), queue.offer))
        problem = Either.isLeft(ended) ? ended.left.message : folderProblem(dir)
      }
      if (problem !== null && problem !== reported) {
        yield* daemonLog("Error", `${problem}: nothing is imported from it until it is back`)
        reported = problem
      }
      yield* Effect.sleep(FOLDER_CHECK_INTERVAL)
    }
  })

  yield* supervise("WatchFolder", loop)
  yield* Effect.logInfo(`watching ${dir}${config.watchPolling ? ` (polling every ${Duration.format(config.watchPollingInterval)})` : ""}`).pipe(inChannel("daemon"))
}))
