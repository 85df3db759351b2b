/**
 * Long fuzz run against the built daemon (`node dist/main.js`, as `npm start` runs it) in a
 * child process over a fresh temporary STORAGE_DIR / WATCH_DIR: N seeded mutations of the
 * corpus files (test/fuzz/mutateActivityFile.ts) are dropped into its watch folder, at most
 * a window of them waiting at a time, and each is followed to its final state through the
 * daemon's own log. Prints files per second, outcomes, failures by reason, the slowest files,
 * parse worker restarts, GET /status latency meanwhile, the daemon's peak and idle RSS, and
 * checks that every stored activity is within the bounds and that the daemon still answers.
 * Then M seeded archives (test/fuzz/mutateArchive.ts: exports of each peer and plain zips,
 * their CSVs, summaries and JSON or the zip itself mangled), on a daemon whose metadata limits
 * are lowered so that the attacks are small: each ends unpacked or with its one failed row, and
 * every file an archive let in gets its own row, none twice.
 *
 *   npm run fuzz -- --count 3000 [--seed 1] [--max-bytes 12000000] [--window 50] [--archives 60]
 *
 * Builds first (the npm script does). Exits 1 when a file or an archive did not reach a final
 * state, one took the worker to its limit, an absurd activity was stored, the rows do not add
 * up or the daemon stopped.
 */
import { Effect, Exit, Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { parseArgs } from "node:util"
import { ACTIVITY_BOUNDS } from "../src/schema/ActivityLimits.ts"
import { startChildDaemon } from "../test/support/ChildDaemon.ts"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE } from "../test/support/corpus.ts"
import { makeRoot } from "../test/support/ImportHarness.ts"
import { corpusSources, mutatedFiles, type MutatedFile } from "../test/fuzz/mutateActivityFile.ts"
import { METADATA_LIMITS_ENV, mutatedArchives } from "../test/fuzz/mutateArchive.ts"

const { values: args } = parseArgs({
  options: {
    count: { type: "string", default: "1000" },
    seed: { type: "string", default: "1" },
    "max-bytes": { type: "string", default: String(12 * 1024 * 1024) },
    window: { type: "string", default: "50" },
    archives: { type: "string", default: "60" },
    /** how long a file may wait for its final state before the run gives up on it */
    "file-timeout": { type: "string", default: "120" }
  }
})
const COUNT = Number(args.count)
const SEED = Number(args.seed)
const MAX_BYTES = Number(args["max-bytes"])
const WINDOW = Number(args.window)
const ARCHIVES = Number(args.archives)
/** archives waiting at a time */
const ARCHIVE_WINDOW = 4
const FILE_TIMEOUT_MS = Number(args["file-timeout"]) * 1000
/** the parse worker's time limit (ParseLimits) */
const PARSE_LIMIT_MS = 10_000
/** how long the daemon idles after the run before its resident set is read */
const IDLE_WAIT_MS = 20_000

const DIST_MAIN = path.join(import.meta.dirname, "..", "dist", "main.js")
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`
const quantile = (xs: ReadonlyArray<number>, q: number) => {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!
}

/** Current and peak resident set of a process (all its threads), from /proc. */
const memoryOf = (pid: number): { current: number; peak: number } => {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) * 1024
    return { current: kb("VmRSS"), peak: kb("VmHWM") }
  } catch {
    return { current: NaN, peak: NaN }
  }
}

/** Lines appended to the daemon's channel logs since the last call. */
const logFollower = (logsDir: string, channel: string) => {
  const offsets = new Map<string, number>()
  let rest = ""
  return (): Array<Record<string, any>> => {
    if (!fs.existsSync(logsDir)) return []
    const lines: Array<Record<string, any>> = []
    for (const name of fs.readdirSync(logsDir).filter((n) => n.startsWith(`${channel}-`) && n.endsWith(".log")).sort()) {
      const file = path.join(logsDir, name)
      const from = offsets.get(name) ?? 0
      const size = fs.statSync(file).size
      if (size <= from) continue
      const fd = fs.openSync(file, "r")
      const buffer = Buffer.alloc(size - from)
      fs.readSync(fd, buffer, 0, buffer.length, from)
      fs.closeSync(fd)
      offsets.set(name, size)
      const text = rest + buffer.toString("utf8")
      const parts = text.split("\n")
      rest = parts.pop() ?? ""
      for (const line of parts) if (line.trim() !== "") lines.push(JSON.parse(line))
    }
    return lines
  }
}

/** A failure message as a reason: the file's name, numbers and quoted values taken out. */
const reasonOf = (message: string): string =>
  message
    .replace(/^"[^"]*"\s*/, "")
    .replace(/"[^"]*"/g, "\"…\"")
    .replace(/\[[^\]]*\]/g, "[…]")
    .replace(/-?\d[\d,.]*(e-?\d+)?/g, "#")
    .slice(0, 90)

interface Tracked {
  readonly file: MutatedFile
  readonly droppedAt: number
}

interface Final {
  readonly name: string
  readonly status: string
  readonly message: string | null
  readonly parseMs: number | null
  readonly waitMs: number
  readonly bytes: number
  readonly source: string
}

const main = async (): Promise<number> => {
  if (!CORPUS_DIR) {
    console.log(CORPUS_MISSING_MESSAGE)
    return 1
  }
  if (!fs.existsSync(DIST_MAIN)) {
    console.log(`${DIST_MAIN} is missing: run \`npm run build\` first (npm run fuzz does)`)
    return 1
  }
  const sources = corpusSources()
  const env = makeRoot({ LOG_LEVEL: "error", ...METADATA_LIMITS_ENV })
  const logsDir = path.join(env.storageDir, "files", "logs")
  const daemonScope = Effect.runSync(Scope.make())
  const closeDaemon = () => Effect.runPromise(Scope.close(daemonScope, Exit.void))
  process.once("SIGINT", () => {
    void closeDaemon().finally(() => {
      fs.rmSync(env.root, { recursive: true, force: true })
      process.exit(130)
    })
  })
  const daemon = await Effect.runPromise(startChildDaemon({ env: env.env, apiKey: env.apiKey, built: true }).pipe(Scope.extend(daemonScope)))
  const headers = { authorization: `Bearer ${env.apiKey}` }
  const getJson = async (p: string) => (await fetch(`${daemon.baseUrl}${p}`, { headers, signal: AbortSignal.timeout(30_000) })).json() as Promise<any>

  await sleep(2000)
  const idleBefore = memoryOf(daemon.pid).current
  console.log(`fuzz: ${COUNT} files from ${sources.length} corpus files, seed ${SEED}, at most ${mb(MAX_BYTES)} each, ${WINDOW} waiting at a time; daemon pid ${daemon.pid}, idle RSS ${mb(idleBefore)}`)

  // GET /status meanwhile, and the daemon's resident set
  const statusLatencies: Array<number> = []
  let statusErrors = 0
  let peakSampled = idleBefore
  let running = true
  const poller = (async () => {
    while (running) {
      const t = performance.now()
      try {
        const r = await fetch(`${daemon.baseUrl}/api/v1/status`, { headers, signal: AbortSignal.timeout(30_000) })
        await r.arrayBuffer()
        statusLatencies.push(performance.now() - t)
      } catch {
        statusErrors++
      }
      peakSampled = Math.max(peakSampled, memoryOf(daemon.pid).current)
      await sleep(200)
    }
  })()

  const follow = logFollower(logsDir, "daemon")
  const staging = path.join(env.watchDir, ".fuzz")
  fs.mkdirSync(staging)
  const pending = new Map<string, Tracked>()
  const finals: Array<Final> = []
  const lost: Array<string> = []
  let restarts = 0
  const restartMessages: Array<string> = []
  const generator = mutatedFiles(sources, COUNT, SEED, { maxBytes: MAX_BYTES })
  let exhausted = false
  let bytesDropped = 0
  const started = performance.now()
  let lastReport = started

  while (!exhausted || pending.size > 0) {
    if (daemon.hasExited()) break
    while (!exhausted && pending.size < WINDOW) {
      const next = generator.next()
      if (next.done) {
        exhausted = true
        break
      }
      const file = next.value
      fs.writeFileSync(path.join(staging, file.name), file.bytes)
      fs.renameSync(path.join(staging, file.name), path.join(env.watchDir, file.name))
      bytesDropped += file.bytes.length
      pending.set(file.name, { file, droppedAt: performance.now() })
    }
    for (const line of follow()) {
      const message = String(line.message)
      if (message.startsWith("parse worker replaced")) {
        restarts++
        restartMessages.push(message)
        continue
      }
      const imported = /^imported "(.*)": (success|skipped|failed)(?: \(([\s\S]*)\))?$/.exec(message)
      if (imported === null) continue
      const tracked = pending.get(imported[1]!)
      if (tracked === undefined) continue
      pending.delete(imported[1]!)
      finals.push({
        name: tracked.file.name,
        status: imported[2]!,
        message: imported[3] ?? null,
        parseMs: typeof line.annotations?.parseMs === "number" ? line.annotations.parseMs : null,
        waitMs: Date.parse(line.timestamp) - (performance.timeOrigin + tracked.droppedAt),
        bytes: tracked.file.bytes.length,
        source: tracked.file.source
      })
    }
    const now = performance.now()
    for (const [name, tracked] of pending) {
      if (now - tracked.droppedAt > FILE_TIMEOUT_MS) {
        pending.delete(name)
        lost.push(name)
      }
    }
    if (now - lastReport > 10_000) {
      lastReport = now
      console.log(`  ${finals.length} final, ${pending.size} waiting, ${((now - started) / 1000).toFixed(0)} s, RSS ${mb(memoryOf(daemon.pid).current)}`)
    }
    await sleep(20)
  }
  const seconds = (performance.now() - started) / 1000

  // archives: each followed to `unpacked "<name>"` (its files then queued) or its own row
  const archiveSources = sources.filter((s) => s.bytes.length <= 300_000)
  const archivesPending = new Map<string, { readonly dropped: number; readonly mutations: ReadonlyArray<string> }>()
  const archiveFinals: Array<{ readonly name: string; readonly outcome: string; readonly message: string; readonly files: number; readonly mutations: ReadonlyArray<string> }> = []
  const archivesLost: Array<string> = []
  const archiveGenerator = mutatedArchives(archiveSources, ARCHIVES, SEED)
  let archivesExhausted = false
  let archiveBytes = 0
  const archivesStarted = performance.now()
  while ((!archivesExhausted || archivesPending.size > 0) && !daemon.hasExited()) {
    while (!archivesExhausted && archivesPending.size < ARCHIVE_WINDOW) {
      const next = archiveGenerator.next()
      if (next.done) {
        archivesExhausted = true
        break
      }
      fs.writeFileSync(path.join(staging, next.value.name), next.value.bytes)
      fs.renameSync(path.join(staging, next.value.name), path.join(env.watchDir, next.value.name))
      archiveBytes += next.value.bytes.length
      archivesPending.set(next.value.name, { dropped: performance.now(), mutations: next.value.mutations })
    }
    for (const line of follow()) {
      const message = String(line.message)
      const unpacked = /^unpacked "(.*?)", .*?: (\d+) activity files/.exec(message)
      const imported = /^imported "(.*?)": (success|skipped|failed)(?: \(([\s\S]*)\))?$/.exec(message)
      const name = unpacked?.[1] ?? imported?.[1]
      const tracked = name === undefined ? undefined : archivesPending.get(name)
      if (tracked === undefined) continue
      archivesPending.delete(name!)
      archiveFinals.push({
        name: name!,
        outcome: unpacked !== null ? "unpacked" : imported![2]!,
        message: imported?.[3] ?? "",
        files: unpacked !== null ? Number(unpacked[2]) : 0,
        mutations: tracked.mutations
      })
    }
    for (const [name, tracked] of archivesPending) {
      if (performance.now() - tracked.dropped > FILE_TIMEOUT_MS) {
        archivesPending.delete(name)
        archivesLost.push(name)
      }
    }
    await sleep(20)
  }
  // every file an archive let in imported: nothing left queued
  const settleDeadline = performance.now() + FILE_TIMEOUT_MS
  while (!daemon.hasExited() && performance.now() < settleDeadline) {
    const waiting = (await getJson("/api/v1/file-imports?filters[status]=queued&pagination[size]=1")).pagination?.total
    if (waiting === 0) break
    await sleep(500)
  }
  const archiveSeconds = (performance.now() - archivesStarted) / 1000
  running = false
  await poller

  // what the daemon says about itself afterwards
  const alive = !daemon.hasExited()
  const queued = alive ? (await getJson("/api/v1/file-imports?filters[status]=queued&pagination[size]=1")).pagination?.total : NaN
  const rows = alive ? (await getJson("/api/v1/file-imports?pagination[size]=1")).pagination?.total : NaN
  const absurd: Array<string> = []
  let activities = 0
  if (alive) {
    const latestStart = new Date(Date.now() + ACTIVITY_BOUNDS.latestStartAheadMs + 14 * 3600_000).toISOString().slice(0, 19)
    for (let page = 1; ; page++) {
      const list = await getJson(`/api/v1/activities?pagination[size]=100&pagination[page]=${page}`)
      const items: Array<any> = list.activities ?? []
      for (const a of items) {
        activities++
        const problems = [
          a.distanceInMeter > ACTIVITY_BOUNDS.maxDistanceMeters && "distance",
          a.elapsedTimeInSeconds > ACTIVITY_BOUNDS.maxDurationSeconds && "elapsed time",
          a.movingTimeInSeconds > a.elapsedTimeInSeconds && "moving time",
          a.averageSpeedInKmPerHour > ACTIVITY_BOUNDS.maxSpeedKmh && "average speed",
          a.maxSpeedInKmPerHour > ACTIVITY_BOUNDS.maxSpeedKmh && "max speed",
          a.elevationInMeter > ACTIVITY_BOUNDS.maxElevationGainMeters && "elevation",
          (a.maxHeartRate ?? 0) > ACTIVITY_BOUNDS.maxHeartRate && "heart rate",
          (a.maxPower ?? 0) > ACTIVITY_BOUNDS.maxPowerWatts && "power",
          (a.calories ?? 0) > ACTIVITY_BOUNDS.maxCalories && "calories",
          !(a.startDateLocal >= "1979-12-31T00:00:00" && a.startDateLocal <= latestStart) && "start"
        ].filter(Boolean)
        if (problems.length > 0) absurd.push(`${a.id} (${problems.join(", ")}): ${JSON.stringify(a).slice(0, 300)}`)
      }
      if (items.length < 100) break
    }
  }
  // memory once the work is over: time for the idle parse worker to be replaced by a fresh one
  // and for the collector to give back
  await sleep(IDLE_WAIT_MS)
  const memory = memoryOf(daemon.pid)
  const statusAfter = alive ? (await fetch(`${daemon.baseUrl}/api/v1/status`, { headers })).status : 0
  const exitedDuringRun = daemon.hasExited()
  const output = daemon.output()
  await closeDaemon()
  fs.rmSync(env.root, { recursive: true, force: true })

  // the report
  const byStatus = new Map<string, number>()
  for (const f of finals) byStatus.set(f.status, (byStatus.get(f.status) ?? 0) + 1)
  const reasons = new Map<string, number>()
  for (const f of finals) if (f.status === "failed") reasons.set(reasonOf(f.message ?? ""), (reasons.get(reasonOf(f.message ?? "")) ?? 0) + 1)
  const parseTimes = finals.flatMap((f) => (f.parseMs === null ? [] : [f.parseMs]))
  const overLimit = finals.filter((f) => (f.parseMs ?? 0) >= PARSE_LIMIT_MS || /took more than|ran out of memory/.test(f.message ?? ""))

  console.log(`\nWaymark fuzz run: ${COUNT} mutated files (${mb(bytesDropped)}), seed ${SEED}, node ${process.version}, ${os.cpus().length} cpus\n`)
  console.log(`files final              ${finals.length} of ${COUNT} in ${seconds.toFixed(1)} s: ${(finals.length / seconds).toFixed(1)} files/s, ${(bytesDropped / 1048576 / seconds).toFixed(1)} MB/s`)
  console.log(`outcomes                 ${[...byStatus].map(([s, n]) => `${s} ${n}`).join(", ")}`)
  console.log(`not final in ${FILE_TIMEOUT_MS / 1000} s        ${lost.length}${lost.length > 0 ? `: ${lost.slice(0, 5).join(", ")}` : ""}`)
  console.log(`rows / still queued      ${rows} / ${queued}`)
  console.log(`parse time (worker)      p50 ${quantile(parseTimes, 0.5)} ms, p99 ${quantile(parseTimes, 0.99)} ms, max ${quantile(parseTimes, 1)} ms; at the ${PARSE_LIMIT_MS / 1000} s or memory limit: ${overLimit.length}`)
  console.log(`drop to final            p50 ${quantile(finals.map((f) => f.waitMs), 0.5).toFixed(0)} ms, max ${quantile(finals.map((f) => f.waitMs), 1).toFixed(0)} ms (${WINDOW} files waiting at a time)`)
  console.log(`parse worker restarts    ${restarts}${restartMessages.length > 0 ? `: ${restartMessages.slice(0, 3).join(" | ")}` : ""}`)
  console.log(`GET /status meanwhile    ${statusLatencies.length} answers, p50 ${quantile(statusLatencies, 0.5).toFixed(1)} ms, p99 ${quantile(statusLatencies, 0.99).toFixed(1)} ms, max ${quantile(statusLatencies, 1).toFixed(0)} ms; ${statusErrors} errors`)
  console.log(`daemon RSS               idle before ${mb(idleBefore)}, peak ${mb(Math.max(memory.peak, peakSampled))} (VmHWM), ${IDLE_WAIT_MS / 1000} s idle after ${mb(memory.current)}`)
  console.log(`activities stored        ${activities}, absurd: ${absurd.length}`)
  for (const a of absurd.slice(0, 5)) console.log(`  ${a}`)
  console.log(`daemon                   ${exitedDuringRun ? "EXITED" : `running, /status ${statusAfter}`}`)
  console.log("\nfailures by reason:")
  for (const [reason, n] of [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`  ${String(n).padStart(6)}  ${reason}`)
  if (reasons.size > 30) console.log(`  (${reasons.size - 30} more reasons)`)
  console.log("\nslowest files (worker time):")
  for (const f of [...finals].sort((a, b) => (b.parseMs ?? 0) - (a.parseMs ?? 0)).slice(0, 8)) {
    console.log(`  ${String(f.parseMs).padStart(6)} ms  ${(f.bytes / 1048576).toFixed(1).padStart(5)} MB  ${f.status.padEnd(7)} ${f.name}${f.message ? `: ${f.message.slice(0, 100)}` : ""}`)
  }
  if (exitedDuringRun) console.log(`\ndaemon output (tail):\n${output.slice(-4000)}`)

  // rows: one per mutated file, one per archive refused, one per file an archive let in
  const archiveRows = archiveFinals.reduce((n, a) => n + (a.outcome === "unpacked" ? a.files : 1), 0)
  const rowsAddUp = rows === finals.length + lost.length + archiveRows
  const archiveOutcomes = new Map<string, number>()
  for (const a of archiveFinals) archiveOutcomes.set(a.outcome, (archiveOutcomes.get(a.outcome) ?? 0) + 1)
  const archiveReasons = new Map<string, number>()
  for (const a of archiveFinals) if (a.outcome === "failed") archiveReasons.set(reasonOf(a.message), (archiveReasons.get(reasonOf(a.message)) ?? 0) + 1)
  console.log(`\narchives final           ${archiveFinals.length} of ${ARCHIVES} (${mb(archiveBytes)}) in ${archiveSeconds.toFixed(1)} s; ${[...archiveOutcomes].map(([s, n]) => `${s} ${n}`).join(", ")}`)
  console.log(`archives not final       ${archivesLost.length}${archivesLost.length > 0 ? `: ${archivesLost.slice(0, 5).join(", ")}` : ""}`)
  console.log(`files let in by archives ${archiveFinals.reduce((n, a) => n + a.files, 0)}; rows ${rows} = files ${finals.length + lost.length} + archives' ${archiveRows}: ${rowsAddUp ? "yes" : "NO"}`)
  console.log("archives refused, by reason:")
  for (const [reason, n] of [...archiveReasons].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`  ${String(n).padStart(6)}  ${reason}`)

  const ok = finals.length === COUNT && lost.length === 0 && overLimit.length === 0 && absurd.length === 0 && !exitedDuringRun && queued === 0 &&
    archiveFinals.length === ARCHIVES && archivesLost.length === 0 && rowsAddUp
  console.log(`\n${ok ? "OK" : "FAILED"}: every file and archive final, none at the worker's limit, none absurd, rows add up, daemon running`)
  return ok ? 0 : 1
}

main().then((code) => process.exit(code), (e) => {
  console.error("fuzz run failed:", e)
  process.exit(1)
})
