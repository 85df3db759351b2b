/**
 * The watch folder's watchers side by side (src/fibers/ImportFolderWatcher.ts): the folders' own
 * change events, chokidar 5 and chokidar 6, each in a process of its own on the Node running
 * this bench, over the same work:
 * 1. arrival: 10,000 small files renamed into the watched folder at once (as bench:import
 *    drops them): seconds until each was reported, and the watcher's CPU meanwhile;
 * 2. held: the 10,000 files left alone for 10 s: CPU;
 * 3. drain: the 10,000 files leaving the folder at 160 a second (what the daemon imports
 *    them at), each as the import removes it (renamed aside to a dot-name, then unlinked:
 *    removeIfUnchanged): CPU in percent of one core, from the first removal to 2 s after the
 *    last;
 * 4. polling (WATCH_POLLING=true, chokidar only): 1,000 files held and polled every 5 s, CPU
 *    over 60 s from 10 s after the first scan.
 * Each entry reported is looked at as the daemon looks at it (one lstat, as SettlingFiles does).
 * CPU is the watcher process's (all its threads, from /proc), so the bench's own renames and
 * removals are not counted.
 *
 *   npm run bench:watch
 *
 * chokidar 6 needs Node 22.22 and is installed only there (an optional dependency): run the
 * bench on such a Node (the image's) to measure all three, e.g. with the Node that CI installs:
 *   PATH="$(scripts/node/install.sh 26.12.1)/bin:$PATH" npm run bench:watch
 * (better-sqlite3 is not loaded: no rebuild is needed for it). Takes about 7 minutes.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { chokidar5, chokidarWatcher, type FolderWatcher, folderEvents, loadChokidar6, runsChokidar6, type WatcherHandlers } from "../src/fibers/ImportFolderWatcher.ts"
import { identityOf } from "../src/services/import/files/FileOnDisk.ts"
import { removeIfUnchanged, walkFolder } from "../src/services/import/WatchDirectory.ts"
import { cpuMillisOf, printTable, sleep } from "./measure.ts"

const FILES = 10_000
const DRAIN_PER_SECOND = 160
const HELD_POLLED = 1_000
const POLL_EVERY_MS = 5_000

const KINDS = ["folder events", "chokidar 5", "chokidar 6"] as const
type Kind = (typeof KINDS)[number]

interface Counts {
  readonly looks: number
  readonly gones: number
  /** distinct names looked at */
  readonly seen: number
}

// ---------------------------------------------------------------------------------------
// The watcher's process

const watcherOf = async (kind: Kind, dir: string, handlers: WatcherHandlers, pollEvery: number | null): Promise<FolderWatcher> => {
  if (kind === "folder events") return folderEvents(dir, handlers)
  const chokidar = kind === "chokidar 5" ? chokidar5 : await loadChokidar6()
  if (chokidar === null) throw new Error("chokidar 6 is not installed")
  return chokidarWatcher(chokidar, dir, handlers, pollEvery)
}

const child = async (kind: Kind, dir: string, pollEvery: number | null) => {
  let looks = 0
  let gones = 0
  const seen = new Set<string>()
  const look = (relative: string) => {
    looks++
    // what SettlingFiles.observe does with each entry it is told of
    fs.lstatSync(path.join(dir, relative), { throwIfNoEntry: false })
    seen.add(relative)
  }
  const handlers: WatcherHandlers = {
    look,
    gone: () => void gones++,
    notices: {},
    scan: () => {
      walkFolder(dir, (relative) => look(relative))
      process.send!({ ready: true })
    },
    warn: (message) => console.error(`${kind}: ${message}`)
  }
  await watcherOf(kind, dir, handlers, pollEvery)
  process.on("message", (message: { counts?: boolean; reset?: boolean }) => {
    if (message.reset) seen.clear()
    if (message.counts) process.send!({ counts: { looks, gones, seen: seen.size } satisfies Counts })
  })
  process.on("disconnect", () => process.exit(0))
}

// ---------------------------------------------------------------------------------------
// The bench

interface Watcher {
  readonly process: ChildProcess
  readonly pid: number
  readonly counts: () => Promise<Counts>
  readonly reset: () => void
  readonly stop: () => Promise<void>
}

const startWatcher = async (kind: Kind, dir: string, pollEvery: number | null): Promise<Watcher> => {
  const args = ["--import", "tsx", import.meta.filename, "--child", kind, dir, String(pollEvery ?? "")]
  const proc = spawn(process.execPath, args, { cwd: path.join(import.meta.dirname, ".."), stdio: ["ignore", "inherit", "inherit", "ipc"] })
  const waiting: Array<(counts: Counts) => void> = []
  const ready = new Promise<void>((resolve, reject) => {
    proc.on("message", (message: { ready?: boolean; counts?: Counts }) => {
      if (message.ready) resolve()
      if (message.counts) waiting.shift()?.(message.counts)
    })
    proc.once("exit", (code) => reject(new Error(`the ${kind} watcher exited (${code})`)))
  })
  await ready
  return {
    process: proc,
    pid: proc.pid!,
    counts: () =>
      new Promise((resolve) => {
        waiting.push(resolve)
        proc.send({ counts: true })
      }),
    reset: () => proc.send({ reset: true }),
    stop: async () => {
      const exited = new Promise((resolve) => proc.once("exit", resolve))
      proc.disconnect()
      await exited
    }
  }
}

/** The watcher's CPU over `run`, in ms and percent of one core. */
const cpuOver = async (pid: number, run: () => Promise<void>) => {
  const cpu0 = cpuMillisOf(pid)
  const t0 = performance.now()
  await run()
  const ms = performance.now() - t0
  const cpu = cpuMillisOf(pid) - cpu0
  return { cpu, ms, percent: (cpu / ms) * 100 }
}

const GPX = (i: number) =>
  `<?xml version="1.0"?><gpx version="1.1" creator="bench"><trk><trkseg><trkpt lat="50.85" lon="4.35"><time>2024-01-01T00:00:${String(i % 60).padStart(2, "0")}Z</time></trkpt></trkseg></trk></gpx>`

const name = (i: number) => `small-${String(i).padStart(5, "0")}.gpx`

const eventsRun = async (kind: Kind) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-bench-watch-"))
  const dir = path.join(root, "watch")
  const staging = path.join(root, "staging")
  fs.mkdirSync(dir)
  fs.mkdirSync(staging)
  for (let i = 0; i < FILES; i++) fs.writeFileSync(path.join(staging, name(i)), GPX(i))
  const watcher = await startWatcher(kind, dir, null)
  try {
    // past the start's own work
    await sleep(2_000)
    let arrivalSeconds = NaN
    const arrival = await cpuOver(watcher.pid, async () => {
      const started = performance.now()
      for (let i = 0; i < FILES; i++) fs.renameSync(path.join(staging, name(i)), path.join(dir, name(i)))
      const deadline = Date.now() + 120_000
      while (Date.now() < deadline && (await watcher.counts()).seen < FILES) await sleep(100)
      arrivalSeconds = (performance.now() - started) / 1000
    })
    const arrived = (await watcher.counts()).seen
    const held = await cpuOver(watcher.pid, async () => void (await sleep(10_000)))
    const before = await watcher.counts()
    const drain = await cpuOver(watcher.pid, async () => {
      const started = performance.now()
      for (let i = 0; i < FILES; i++) {
        // each file at its time: 160 a second whatever the machine's load
        const due = started + (i * 1000) / DRAIN_PER_SECOND
        const wait = due - performance.now()
        if (wait > 1) await sleep(wait)
        const full = path.join(dir, name(i))
        removeIfUnchanged(dir, name(i), identityOf(fs.lstatSync(full)))
      }
      await sleep(2_000)
    })
    const after = await watcher.counts()
    return {
      row: [
        kind,
        `${arrived} in ${arrivalSeconds.toFixed(1)} s, CPU ${(arrival.cpu / 1000).toFixed(1)} s`,
        `${held.percent.toFixed(1)} %`,
        `${drain.percent.toFixed(1)} % (CPU ${(drain.cpu / 1000).toFixed(1)} s over ${(drain.ms / 1000).toFixed(1)} s)`,
        `${after.looks - before.looks} looks, ${after.gones - before.gones} gone`
      ]
    }
  } finally {
    await watcher.stop()
    fs.rmSync(root, { recursive: true, force: true })
  }
}

const pollingRun = async (kind: Kind) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-bench-poll-"))
  for (let i = 0; i < HELD_POLLED; i++) fs.writeFileSync(path.join(root, name(i)), GPX(i))
  const watcher = await startWatcher(kind, root, POLL_EVERY_MS)
  try {
    await sleep(10_000)
    const idle = await cpuOver(watcher.pid, async () => void (await sleep(60_000)))
    return [kind, `${idle.percent.toFixed(2)} %`]
  } finally {
    await watcher.stop()
    fs.rmSync(root, { recursive: true, force: true })
  }
}

const main = async () => {
  const load = () => os.loadavg().map((l) => l.toFixed(2)).join(" ")
  const chokidar6 = runsChokidar6() ? await loadChokidar6() : null
  const kinds = KINDS.filter((k) => k !== "chokidar 6" || chokidar6 !== null)
  console.log(`Watchers of the watch folder, Node ${process.version}, ${os.cpus().length} cpus, load average ${load()}`)
  if (chokidar6 === null) {
    console.log(runsChokidar6() ? "chokidar 6 is not installed (npm install on this Node installs it)" : "chokidar 6 needs Node 22.22: not measured on this Node")
  }
  const rows: Array<ReadonlyArray<string>> = []
  for (const kind of kinds) rows.push((await eventsRun(kind)).row)
  console.log("")
  printTable([
    "watcher",
    `${FILES.toLocaleString("en")} files renamed in at once: reported`,
    "held 10 s: CPU",
    `drain at ${DRAIN_PER_SECOND}/s: CPU of one core`,
    "handed on during the drain"
  ], rows)
  const polled: Array<ReadonlyArray<string>> = []
  for (const kind of kinds.filter((k) => k !== "folder events")) polled.push(await pollingRun(kind))
  console.log("")
  printTable([`polling ${HELD_POLLED.toLocaleString("en")} files every ${POLL_EVERY_MS / 1000} s`, "CPU of one core over 60 s"], polled)
  console.log(`load average after: ${load()}`)
}

if (process.argv[2] === "--child") {
  const [kind, dir, pollEvery] = process.argv.slice(3)
  await child(kind as Kind, dir!, pollEvery ? Number(pollEvery) : null)
} else {
  await main()
}
