import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import { SUPPORTED_EXTENSIONS } from "../services/import/files/ActivityFileName.ts"
import { ImportQueue } from "../services/import/ImportQueue.ts"
import { FAILED_RECHECK_SETTLES } from "../services/import/ImportOutcome.ts"
import { garminExportFolder, garminFolderSkipped } from "../services/import/exports/GarminFolder.ts"
import { renameUnreadableNames } from "../services/import/unreadableNames.ts"
import {
  EMPTIED_FOLDER_SETTLES, filesTooDeep, isCandidateName, isHiddenName, isHiddenPath, MAX_FOLDER_DEPTH, walkFolder, type WalkNotices, WatchDirectory
} from "../services/import/WatchDirectory.ts"
import { AppConfig } from "../services/platform/AppConfig.ts"
import { inChannel } from "../services/platform/Logs.ts"
import { describeHolder, HeldLocks, lockHolderOf } from "../services/platform/StorageLock.ts"
import { chooseWatcher } from "./ImportFolderWatcher.ts"
import { SettlingFiles } from "./ImportSettlingFiles.ts"
import { supervise } from "../services/platform/supervise.ts"

/**
 * Offers every supported file of the watch folder and its subfolders to the ImportQueue once
 * it has held still for WATCH_SETTLE (SettlingFiles): change events say which file to look
 * at, a scan of the folder at start and every minute after finds what an event missed (a
 * full event queue). Entries that are not regular files (links, pipes, sockets, devices) are
 * offered whatever their name, to be refused with a row; regular files of other types are
 * named once in the log. Files the import hands back (WatchDirectory.settleAgain) settle again.
 *
 * The watcher is the one FolderWatcher's measurements chose: chokidar 6 where Node runs it
 * (22.22 and later, the image's), else the folders' own change events, one watch per folder;
 * WATCH_POLLING=true (NFS and SMB send no events) is chokidar 5's polling.
 *
 * The folder itself is checked every few seconds. A folder that is missing, is not a folder,
 * cannot be read, or was a mount point at start and no longer is (unmounted: what is left is
 * the empty folder beneath) is said at error level, and again when it is back; /healthz
 * reports it meanwhile (its folder probe). A folder replaced by another (its device and inode
 * changed) is said at error level too, and the new one is watched. A folder that comes back
 * gets its `.uploads` again and the daemon's lock on it.
 */
export const RESCAN_INTERVAL = Duration.minutes(1)

/** How often the folder itself is looked at (tests of a folder that goes away look more often). */
export class FolderCheckInterval extends Context.Reference<FolderCheckInterval>()("fibers/FolderCheckInterval", {
  defaultValue: (): Duration.Duration => Duration.seconds(5)
}) {}

/** At most this many names of unsupported files are remembered as already mentioned. */
const MAX_MENTIONED = 10_000

/** The watch folder as it was looked at: what is wrong with it, or which folder it is. */
type FolderLook =
  | { readonly _tag: "Problem"; readonly reason: string }
  | { readonly _tag: "Folder"; readonly dev: number; readonly ino: number; readonly mountPoint: boolean }

/** The watch folder now; a mount point is a folder on another device than its parent's. */
const lookAtFolder = (dir: string): FolderLook => {
  try {
    const stat = fs.statSync(dir)
    if (!stat.isDirectory()) return { _tag: "Problem", reason: "is not a folder" }
    fs.accessSync(dir, fs.constants.R_OK | fs.constants.X_OK)
    const real = fs.realpathSync(dir)
    const parent = path.dirname(real)
    const mountPoint = parent !== real && fs.statSync(parent).dev !== stat.dev
    return { _tag: "Folder", dev: stat.dev, ino: stat.ino, mountPoint }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === "ENOENT") return { _tag: "Problem", reason: "does not exist" }
    if (code === "ENOTDIR") return { _tag: "Problem", reason: "is not a folder" }
    return { _tag: "Problem", reason: `cannot be read (${code ?? String(e)})` }
  }
}

/** The watched folder went wrong or was replaced: the watching stops, and the folder is looked at again. */
class FolderChanged {}

const supportedTypes = `${SUPPORTED_EXTENSIONS.map((e) => `.${e}`).join(", ")} (also gzipped, ${SUPPORTED_EXTENSIONS.map((e) => `.${e}.gz`).join(", ")}) and .zip archives of them`

export const WatchFolderLive = Layer.scopedDiscard(Effect.gen(function*() {
  const watchDir = yield* WatchDirectory
  const queue = yield* ImportQueue
  const config = yield* AppConfig
  const locks = yield* HeldLocks
  const dir = watchDir.watchDir
  const settleMs = Duration.toMillis(config.watchSettle)
  const folderCheck = yield* FolderCheckInterval
  const watcherChoice = yield* Effect.promise(() => chooseWatcher(config.watchPolling ? Duration.toMillis(config.watchPollingInterval) : null))
  const mentioned = new Set<string>()

  const daemonLog = (level: "Info" | "Warning" | "Error", message: string) =>
    (level === "Info" ? Effect.logInfo(message) : level === "Warning" ? Effect.logWarning(message) : Effect.logError(message)).pipe(inChannel("daemon"))

  /** Whether `look` is still the folder watched since `watched`, mounted as it was. */
  const stillWatched = (look: FolderLook, watched: FolderLook & { _tag: "Folder" }) =>
    look._tag === "Folder" && look.dev === watched.dev && look.ino === watched.ino && (look.mountPoint || !watched.mountPoint)

  /** The folder watched until it goes wrong or is replaced: the names that settled, failing with FolderChanged. */
  const watching = (log: (level: "Info" | "Warning", message: string) => void, scanned: () => void, watched: FolderLook & { _tag: "Folder" }) =>
    Stream.asyncPush<string, FolderChanged>((emit) =>
      Effect.gen(function*() {
        const { settling } = yield* Effect.acquireRelease(
          Effect.sync(() => {
            // quiet past the time a young failed file stays for (ImportService), and past a rescan
            const quietMs = Math.max(2 * settleMs * FAILED_RECHECK_SETTLES, Duration.toMillis(RESCAN_INTERVAL))
            const settling = new SettlingFiles(dir, settleMs, quietMs, (relative) => emit.single(relative))
            const look = (relative: string) => {
              if (relative === "" || isHiddenPath(relative)) return
              const name = path.posix.basename(relative)
              if (name.startsWith(".")) return
              // a name that is not UTF-8 reaches a watcher's event with replacement characters: renamed to one that is
              if (relative.includes("\uFFFD")) return notices.unreadable?.(path.posix.dirname(relative) === "." ? "" : path.posix.dirname(relative))
              if (isCandidateName(relative)) return settling.observe(relative)
              const stat = fs.lstatSync(path.join(dir, relative), { throwIfNoEntry: false })
              if (stat === undefined || stat.isDirectory()) return
              // a link, a pipe, a socket or a device, whatever its name: refused with a row, never opened
              if (!stat.isFile()) return settling.observe(relative)
              // a Garmin export unpacked here: its thousands of wellness and settings files are named once, as the export
              const garmin = garminExportFolder(relative)
              const mention = garmin ?? relative
              if (isHiddenName(name) || mentioned.has(mention) || mentioned.size >= MAX_MENTIONED) return
              mentioned.add(mention)
              if (garmin === null) log("Warning", `"${relative}" in the watch folder is not imported: only ${supportedTypes} are. It is left where it is.`)
              else log("Info", garminFolderSkipped(garmin))
            }
            const notices: WalkNotices = {
              // each file of a folder too deep is named once, with what to do
              tooDeep: (folder) => {
                // what a Garmin export holds so deep is no activity (its parts lie three folders down)
                if (garminExportFolder(`${folder}/`) !== null) return
                for (const relative of filesTooDeep(dir, folder)) {
                  if (mentioned.has(relative) || mentioned.size >= MAX_MENTIONED) continue
                  mentioned.add(relative)
                  log("Warning", `"${relative}" in the watch folder is not imported: it lies deeper than ${MAX_FOLDER_DEPTH} folders. Move it up.`)
                }
              },
              unreadable: (folder) => {
                for (const [found, placed] of renameUnreadableNames(folder === "" ? dir : path.join(dir, folder))) {
                  const at = (name: string) => (folder === "" ? name : `${folder}/${name}`)
                  log(
                    "Warning",
                    `"${at(found)}" in the watch folder has a name that is not UTF-8 text: renamed "${at(placed)}" (each byte that is not UTF-8 written %XX) to be imported.`
                  )
                  // the rename's own event may not come (polling): looked at now
                  walkFolder(dir, look, notices, at(placed), at(placed).split("/").length)
                  look(at(placed))
                }
              }
            }
            const scan = () => {
              walkFolder(dir, look, notices)
              scanned()
            }
            const handlers = { look, scan, notices, gone: (relative: string) => settling.forget(relative), warn: (message: string) => log("Warning", message) }
            const watcher = watcherChoice.watch(dir, handlers)
            const rescan = setInterval(() => {
              watcher.rescanned?.()
              scan()
            }, Duration.toMillis(RESCAN_INTERVAL))
            // the folder's own check also removes the subfolders the import emptied, once they
            // stayed so: one timer, and an idle daemon wakes as rarely as it can
            const check = setInterval(() => {
              if (!stillWatched(lookAtFolder(dir), watched)) return emit.fail(new FolderChanged())
              watchDir.sweepEmptied(settleMs * EMPTIED_FOLDER_SETTLES)
            }, Duration.toMillis(folderCheck))
            return { watcher, settling, timers: [rescan, check] }
          }),
          ({ settling, timers, watcher }) =>
            Effect.promise(async () => {
              for (const timer of timers) clearInterval(timer)
              settling.close()
              await watcher.close()
            })
        )
        // what the import hands back settles again before it is offered
        yield* watchDir.takeSettleAgain.pipe(
          Effect.flatMap((relative) => Effect.sync(() => settling.recheck(relative))),
          Effect.forever,
          Effect.forkScoped
        )
      })
    )

  // what the loop knows of the folder, kept across its restarts
  /** the reason said at error level, until the folder is back */
  let reported: string | null = null
  /** the folder watched last */
  let watched: (FolderLook & { _tag: "Folder" }) | null = null
  /** whether the folder is a mount point: learned at the first look, and when a replacement is one */
  let mountPoint: boolean | null = null

  /** Says what is wrong at error level (once per reason), and has /healthz report it. */
  const trouble = (reason: string) =>
    Effect.gen(function*() {
      watchDir.setProblem(`the watch folder ${reason}`)
      if (reason === reported) return
      reported = reason
      yield* daemonLog("Error", `the watch folder ${dir} ${reason}: nothing is imported from it until it is back`)
    })

  /** A folder back or new gets what the daemon keeps in it: `.uploads` and the daemon's lock; the reason it cannot, if any. */
  const settleIn = Effect.sync((): string | null => {
    try {
      fs.mkdirSync(watchDir.uploadsDir, { recursive: true })
    } catch (e) {
      return `cannot be written (${(e as NodeJS.ErrnoException).code ?? String(e)})`
    }
    if (locks.watch === null || locks.watch.refresh()) return null
    const holder = lockHolderOf(locks.watch.file)
    return `is watched by another Waymark daemon now (${holder === null ? "its lock file cannot be read" : describeHolder(holder)})`
  })

  const loop = Effect.gen(function*() {
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const log = (level: "Info" | "Warning", message: string) => void runFork(daemonLog(level, message))
    const scanned = () => void runFork(watchDir.countScan)
    while (true) {
      const look = lookAtFolder(dir)
      if (look._tag === "Problem") {
        yield* trouble(look.reason)
      } else if (mountPoint === true && !look.mountPoint) {
        yield* trouble("is no longer mounted (what is there is the folder beneath, on the parent's file system)")
      } else {
        const replaced = watched !== null && (look.dev !== watched.dev || look.ino !== watched.ino)
        if (replaced) {
          yield* daemonLog("Error", `the watch folder ${dir} was replaced by another folder (device ${look.dev}, inode ${look.ino}): watching the new one`)
        }
        const problem = replaced || reported !== null ? yield* settleIn : null
        if (problem !== null) {
          yield* trouble(problem)
        } else {
          if (reported !== null) yield* daemonLog("Error", `the watch folder ${dir} is back: watching it again`)
          reported = null
          watchDir.setProblem(null)
          mountPoint = (mountPoint ?? false) || look.mountPoint
          watched = { ...look, mountPoint }
          yield* Effect.either(Stream.runForEach(watching(log, scanned, watched), queue.offer))
          // the folder went wrong or was replaced: looked at again at once
          continue
        }
      }
      yield* Effect.sleep(folderCheck)
    }
  })

  yield* supervise("WatchFolder", loop)
  const every = config.watchPolling ? ` every ${Duration.format(config.watchPollingInterval)}` : ""
  yield* Effect.logInfo(`watching ${dir} (${watcherChoice.name}${every})`).pipe(inChannel("daemon"))
}))
