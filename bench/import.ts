/**
 * Import benchmark, fed the shared corpus:
 * 0. the watch folder, this build beside the baseline (the daemon of BENCH_BASELINE_REF, `main`
 *    by default, built once into a temporary folder: bench/measure.ts) in the same run: 10,000 small GPX
 *    files dropped at once and the corpus dropped at once, files per second from the drop to
 *    the last row; then, for this build, the CPU an idle daemon uses with an empty folder and
 *    with 1,000 files left in it, with and without WATCH_POLLING, over 10 s from 20 s after start;
 * 1. the built daemon (`node dist/main.js`, as `npm start` runs it) in a child process over a
 *    fresh temporary STORAGE_DIR / WATCH_DIR on a loopback port: bulk import of the whole
 *    corpus dropped into the watch folder at once, GET /status latency meanwhile, first with
 *    one parse worker (before), then with the default number (one per core; after), side by
 *    side, with a 300 ms settle period; then, into the second daemon, the corpus again (its
 *    activities deleted first) with warm parse workers, and uploads, timed from 202 to
 *    `success`; peak RSS is the child's VmHWM (all its threads);
 * 2. in this process, ImportService.importFile per file and the worker's parse of two
 *    reference FIT files.
 *
 *   npm run bench:import        (builds first; ACTIVITY_CORPUS_DIR overrides the corpus folder)
 *
 * Prints target vs measured; always exits 0. Takes about 8 minutes (the 10,000 files twice).
 */
import { Effect, Exit, Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ParseWorker } from "../src/services/import/ParseWorker.ts"
import { ImportService } from "../src/services/import/ImportService.ts"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE, loadManifest } from "../test/support/corpus.ts"
import { type ChildDaemon, startChildDaemon } from "../test/support/ChildDaemon.ts"
import { dayStart, gpxActivity, makeRoot, type Root, servicesLayer } from "../test/support/ImportHarness.ts"
import { defaultParseWorkers } from "../src/services/platform/AppConfig.ts"
import { api, baselineBuild, cpuMillisOf, finishedRows, mb, memoryOf, printTable, quantile, sleep } from "./measure.ts"

const WATCH_DEADLINE_MS = Number(process.env.BENCH_WATCH_SECONDS ?? 300) * 1000
let DEADLINE = Date.now() + 170_000
const ONE_HOUR_FIT = "fit/garmin-fr945-treadmill-run.fit"
const LARGEST_FIT = "fit/garmin-fr935-ironman-triathlon.fit"

const DIST_MAIN = path.join(import.meta.dirname, "..", "dist", "main.js")


interface DropResult {
  readonly imported: number
  readonly seconds: number
  readonly cpuMillis: number
}


/** Drops `files` into a fresh daemon's watch folder at once; files per second until every one has its row. */
const dropInto = async (main: string | undefined, files: ReadonlyArray<{ name: string; bytes: Uint8Array }>): Promise<DropResult> => {
  // the settle period of the baseline, which had no setting (300 ms): both wait the same, and
  // the figure is the import's (this build's default, 3 s for slow copies, adds its wait once)
  const env = makeRoot({ LOG_LEVEL: "warning", WATCH_SETTLE: "300ms" })
  const scope = Effect.runSync(Scope.make())
  try {
    const daemon = await Effect.runPromise(startChildDaemon({ env: env.env, apiKey: env.apiKey, built: true, ...(main ? { main } : {}) }).pipe(Scope.extend(scope)))
    const client = api(daemon.baseUrl, env.apiKey)
    const staging = path.join(env.watchDir, ".bench")
    fs.mkdirSync(staging)
    for (const f of files) fs.writeFileSync(path.join(staging, f.name), f.bytes)
    const cpu0 = cpuMillisOf(daemon.pid)
    const started = performance.now()
    for (const f of files) fs.renameSync(path.join(staging, f.name), path.join(env.watchDir, f.name))
    let imported = 0
    const deadline = Date.now() + WATCH_DEADLINE_MS
    while (Date.now() < deadline) {
      imported = await finishedRows(client)
      if (imported >= files.length) break
      // each look lists the watch folder: often enough for the rate's precision, not so often as to weigh on it
      await sleep(files.length > 1000 ? 500 : 50)
    }
    return { imported, seconds: (performance.now() - started) / 1000, cpuMillis: cpuMillisOf(daemon.pid) - cpu0 }
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    fs.rmSync(env.root, { recursive: true, force: true })
  }
}

/** CPU an idle daemon uses over 10 s, from 20 s after its start, with `leftFiles` files it does not import in its folder (percent of one core). */
const idleCpu = async (leftFiles: number, polling: boolean): Promise<number> => {
  const env = makeRoot({ LOG_LEVEL: "error", WATCH_SETTLE: "", WATCH_POLLING: String(polling) })
  for (let i = 0; i < leftFiles; i++) fs.writeFileSync(path.join(env.watchDir, `photo-${i}.jpg`), "not an activity")
  const scope = Effect.runSync(Scope.make())
  try {
    const daemon = await Effect.runPromise(startChildDaemon({ env: env.env, apiKey: env.apiKey, built: true }).pipe(Scope.extend(scope)))
    // past the start's tail (the first scan and polls, the compiler's background work): what
    // a daemon left alone uses
    await sleep(20_000)
    const cpu0 = cpuMillisOf(daemon.pid)
    const t0 = performance.now()
    await sleep(10_000)
    return (cpuMillisOf(daemon.pid) - cpu0) / (performance.now() - t0) * 100
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    fs.rmSync(env.root, { recursive: true, force: true })
  }
}

const smallFiles = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    name: `small-${String(i).padStart(5, "0")}.gpx`,
    // one a day apart: none is a duplicate of another
    bytes: Buffer.from(gpxActivity({ start: dayStart(i), seconds: 60, step: 10 }))
  }))

const watchFolderPart = async (corpus: ReadonlyArray<{ name: string; bytes: Uint8Array }>) => {
  const baseline = baselineBuild(process.env.BENCH_BASELINE_REF ?? "main")
  const small = smallFiles(10_000)
  const rate = (r: DropResult | null) => (r === null ? "n/a" : `${(r.imported / r.seconds).toFixed(1)} files/s (${r.imported} in ${r.seconds.toFixed(1)} s, CPU ${(r.cpuMillis / 1000).toFixed(1)} s)`)
  const rows: Array<Array<string>> = []
  for (const [label, files, target] of [["10,000 small GPX dropped at once", small, ">= 150 files/s"], [`corpus (${corpus.length} files) dropped at once`, corpus, "-"]] as const) {
    const before = baseline === null ? null : await dropInto(baseline.main, files)
    const after = await dropInto(undefined, files)
    rows.push([label, target, rate(before), rate(after)])
  }
  console.log(`\nWatch folder: this build beside the baseline (${baseline?.ref ?? "none"}), load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}\n`)
  printTable(["drop", "target", "baseline", "this build"], rows)
  const idle = [
    ["idle, empty folder", await idleCpu(0, false)],
    ["idle, 1,000 files left in the folder", await idleCpu(1000, false)],
    ["idle, 1,000 files left, WATCH_POLLING=true (every 5 s)", await idleCpu(1000, true)]
  ] as const
  console.log("")
  printTable(["daemon CPU over 10 s (this build)", "% of one core"], idle.map(([l, v]) => [l, v.toFixed(2)]))
  console.log(`load average after: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`)
}

// ---------------------------------------------------------------------------------------
// The corpus dropped into the watch folder at once, with a given number of parse workers

interface CorpusFile {
  readonly file: string
  readonly name: string
  readonly bytes: Buffer
}

interface BulkRun {
  /** IMPORT_PARSE_WORKERS of the run (the default when not given) */
  readonly workers: string
  readonly imported: number
  readonly seconds: number
  readonly statusLatencies: ReadonlyArray<number>
  /** VmHWM of the daemon at the end of the bulk import */
  readonly peakRss: number
  readonly idleRss: ReturnType<typeof memoryOf>
}

const stopDaemon = async (daemon: ChildDaemon, scope: Scope.CloseableScope) => {
  await Effect.runPromise(daemon.kill("SIGTERM"))
  await Effect.runPromise(Scope.close(scope, Exit.void))
}

/**
 * The corpus dropped at once into the watch folder of a running daemon (staged in a dot-folder,
 * then renamed) while GET /status is polled: seconds from the drop to the last file's row.
 */
const dropCorpus = async (env: Root, client: ReturnType<typeof api>, files: ReadonlyArray<CorpusFile>) => {
  const statusLatencies: Array<number> = []
  const staging = path.join(env.watchDir, ".bench")
  fs.mkdirSync(staging, { recursive: true })
  for (const f of files) fs.writeFileSync(path.join(staging, f.name), f.bytes)
  const before = await finishedRows(client)
  let polling = true
  const poller = (async () => {
    while (polling) {
      const t = performance.now()
      const r = await client.get("/api/v1/status")
      await r.arrayBuffer()
      statusLatencies.push(performance.now() - t)
      await sleep(5)
    }
  })()
  const started = performance.now()
  for (const f of files) fs.renameSync(path.join(staging, f.name), path.join(env.watchDir, f.name))
  let imported = 0
  while (Date.now() < DEADLINE) {
    imported = (await finishedRows(client)) - before
    if (imported >= files.length) break
    await sleep(20)
  }
  const seconds = (performance.now() - started) / 1000
  polling = false
  await poller
  return { imported, seconds, statusLatencies }
}

/**
 * What the corpus made, deleted, and the files it left in the folder removed, so that the same
 * files dropped again are imported again rather than skipped as duplicates.
 */
const forgetCorpus = async (env: Root, client: ReturnType<typeof api>, baseUrl: string) => {
  const del = (p: string) => fetch(`${baseUrl}${p}`, { method: "DELETE", headers: { authorization: `Bearer ${env.apiKey}` } })
  for (;;) {
    const list = (await (await client.get("/api/v1/activities?pagination[size]=100")).json()) as { activities: Array<{ id: string }> }
    if (list.activities.length === 0) break
    for (const a of list.activities) await (await del(`/api/v1/activities/${a.id}`)).arrayBuffer()
  }
  for (;;) {
    const list = (await (await client.get("/api/v1/file-imports?filters[status]=failed,skipped&pagination[size]=100")).json()) as {
      fileImports: Array<{ id: string | null }>
    }
    const ids = list.fileImports.flatMap((r) => (r.id === null ? [] : [r.id]))
    if (ids.length === 0) break
    for (const id of ids) await (await del(`/api/v1/file-imports/${id}`)).arrayBuffer()
  }
  for (const n of fs.readdirSync(env.watchDir)) if (!n.startsWith(".")) fs.rmSync(path.join(env.watchDir, n), { recursive: true, force: true })
}

/**
 * The built daemon over a fresh storage imports every corpus file dropped at once. The settle
 * period is 300 ms, the fixed one of the build the 12.7 files/s baseline was measured on: the
 * default (3 s, for slow copies) adds its wait once to every drop, whatever the import's rate.
 * With `again`, the corpus is then forgotten and dropped a second time into the same daemon,
 * whose parse workers have compiled their code by then, as they have through most of a drop
 * of thousands of files. The daemon is stopped and its folders removed afterwards unless
 * `keep` (the caller then goes on with it).
 */
async function corpusBulkImport(files: ReadonlyArray<CorpusFile>, workers: number | undefined): Promise<BulkRun>
async function corpusBulkImport(
  files: ReadonlyArray<CorpusFile>,
  workers: number | undefined,
  options: { keep: true; again: true }
): Promise<{ run: BulkRun; again: BulkRun; env: Root; daemonScope: Scope.CloseableScope; daemon: ChildDaemon; client: ReturnType<typeof api> }>
async function corpusBulkImport(files: ReadonlyArray<CorpusFile>, workers: number | undefined, options?: { keep: true; again: true }) {
  const env = makeRoot({ LOG_LEVEL: "warning", WATCH_SETTLE: "300ms", ...(workers !== undefined ? { IMPORT_PARSE_WORKERS: String(workers) } : {}) })
  const daemonScope = Effect.runSync(Scope.make())
  const daemon = await Effect.runPromise(startChildDaemon({ env: env.env, apiKey: env.apiKey, built: true }).pipe(Scope.extend(daemonScope)))
  const idleRss = memoryOf(daemon.pid)
  const client = api(daemon.baseUrl, env.apiKey)
  const label = workers === undefined ? `default, ${defaultParseWorkers()}` : String(workers)
  const runOf = (drop: Awaited<ReturnType<typeof dropCorpus>> | null): BulkRun => ({
    workers: label,
    imported: drop?.imported ?? 0,
    seconds: drop?.seconds ?? NaN,
    statusLatencies: drop?.statusLatencies ?? [],
    peakRss: memoryOf(daemon.pid)?.peak ?? NaN,
    idleRss
  })
  const attempt = (f: () => ReturnType<typeof dropCorpus>) =>
    f().catch((e) => {
      console.error("bulk phase failed:", e)
      return null
    })
  const run = runOf(await attempt(() => dropCorpus(env, client, files)))
  if (options?.keep) {
    await forgetCorpus(env, client, daemon.baseUrl)
    const again = runOf(await attempt(() => dropCorpus(env, client, files)))
    return { run, again, env, daemonScope, daemon, client }
  }
  await stopDaemon(daemon, daemonScope)
  fs.rmSync(env.root, { recursive: true, force: true })
  return run
}

/** The bulk rows, before (one parse worker) and after side by side. */
const corpusBulkRows = (before: BulkRun, after: BulkRun, again: BulkRun): Array<[string, string, string, boolean]> => {
  const rate = (r: BulkRun) => r.imported / r.seconds
  const ms = (v: number) => (Number.isNaN(v) ? "n/a" : `${v.toFixed(1)} ms`)
  const side = (f: (r: BulkRun) => string) => `before (1 worker) ${f(before)} | after (${after.workers} workers) ${f(after)}`
  const p99 = (r: BulkRun) => quantile(r.statusLatencies, 0.99)
  return [
    [
      "bulk import of the corpus (files/s)",
      ">= 20 after",
      side((r) => `${rate(r).toFixed(1)} (${r.imported} files in ${r.seconds.toFixed(1)} s)`) + `, x${(rate(after) / rate(before)).toFixed(2)}`,
      rate(after) >= 20
    ],
    [
      "the corpus dropped again into the same daemon (workers warm, as through most of a drop of thousands)",
      "-",
      `${rate(again).toFixed(1)} files/s (${again.imported} files in ${again.seconds.toFixed(1)} s), /status p99 ${ms(p99(again))}`,
      true
    ],
    [
      "GET /status p99 during the bulk import",
      "< 50 ms after",
      side((r) => `${ms(p99(r))} (p50 ${ms(quantile(r.statusLatencies, 0.5))}, ${r.statusLatencies.length} requests)`),
      p99(after) < 50
    ],
    ["daemon peak RSS during the bulk import (VmHWM)", "< 350 MB after", side((r) => mb(r.peakRss)), after.peakRss < 350 * 1048576]
  ]
}

const main = async () => {
  const loadBefore = os.loadavg().map((v) => v.toFixed(2)).join(", ")
  if (!CORPUS_DIR) {
    console.log(CORPUS_MISSING_MESSAGE)
    return
  }
  const entries = loadManifest().filter((e) => /^(fit|tcx|gpx|bad)\//.test(e.file))
  const files = entries.map((e) => ({ file: e.file, name: path.basename(e.file), bytes: fs.readFileSync(path.join(CORPUS_DIR!, e.file)) }))
  if (process.env.BENCH_WATCH !== "false") await watchFolderPart(files)
  if (process.env.BENCH_WATCH === "only") return
  DEADLINE = Date.now() + 170_000

  if (!fs.existsSync(DIST_MAIN)) {
    console.log(`${DIST_MAIN} is missing: run \`npm run build\` first (npm run bench:import does)`)
    return
  }
  // 1. bulk: the corpus with one parse worker (before), then with the default (one per core)
  const before = await corpusBulkImport(files, 1)
  const { env, daemonScope, daemon, client, run: after, again } = await corpusBulkImport(files, undefined, { keep: true, again: true })
  const idleRss = after.idleRss
  // 2. upload (202) -> success over 10 uploads: corpus FIT files whose activity from the bulk
  //    phase is deleted first, so that the upload is a fresh import and not a duplicate
  const uploadLatencies: Array<number> = []
  const candidates = ["fit/garmin-fr645m-run.fit", "fit/garmin-fenix6-track-run.fit", "fit/zwift-virtual-ride.fit", "fit/garmin-edge820-commute-ride.fit",
    "fit/suunto9-trail-run.fit", "fit/wahoo-elemnt-bolt-ride-short.fit", "fit/coros-pace2-run.fit", "fit/garmin-fr15-10k-run.fit",
    "fit/garmin-fenix5-run.fit", "fit/garmin-edge1030-ride-power-dynamics.fit"]
  for (const [i, file] of candidates.entries()) {
    if (Date.now() > DEADLINE) break
    const bytes = fs.readFileSync(path.join(CORPUS_DIR, file))
    // free the activity first, so that the upload is not a duplicate
    // (its bulk import made it, or was skipped as a duplicate of, the activity to delete)
    const prior = await (await client.get(`/api/v1/file-imports?filters[filename]=${path.basename(file)}`)).json() as any
    const row = prior.fileImports?.[0]
    const id = row?.activityId ?? /"(activity-[0-9a-f-]+)"/.exec(row?.errorMessage ?? "")?.[1]
    if (id) await fetch(`${daemon.baseUrl}/api/v1/activities/${id}`, { method: "DELETE", headers: { authorization: `Bearer ${env.apiKey}` } })
    const name = `upload-${i}-${path.basename(file)}`
    const t = performance.now()
    const accepted = await client.upload(name, bytes)
    await accepted.arrayBuffer()
    if (accepted.status !== 202) continue
    while (Date.now() < DEADLINE) {
      const r = await (await client.get(`/api/v1/file-imports?filters[filename]=${name}`)).json() as any
      const row = r.fileImports?.find((f: any) => f.status !== "queued")
      if (row) {
        if (row.status === "success") uploadLatencies.push(performance.now() - t)
        break
      }
      await sleep(10)
    }
  }
  const daemonMemory = memoryOf(daemon.pid)
  await stopDaemon(daemon, daemonScope)

  // 3. per-file import time: ImportService.importFile directly, over a fresh storage, every file once
  const perFile: Array<number> = []
  const timesOf = new Map<string, Array<number>>()
  const env2 = makeRoot()
  await Effect.runPromise(Effect.gen(function*() {
    const service = yield* ImportService
    const once = (name: string, bytes: Uint8Array, format: string) =>
      Effect.gen(function*() {
        const full = path.join(env2.watchDir, name)
        fs.writeFileSync(full, bytes)
        const t = performance.now()
        yield* service.importFile({ filename: name, format: format as "fit", path: full, mtimeMs: 0 })
        return performance.now() - t
      })
    yield* once("warmup.fit", fs.readFileSync(path.join(CORPUS_DIR!, "fit/garmin-fenix5-run.fit")), "fit")
    for (const f of files) {
      if (Date.now() > DEADLINE) break
      perFile.push(yield* once(f.name, f.bytes, f.file.split(".").pop()!))
    }
    // the two reference files, 7 times each: the worker round trip (parse + compute + transfer),
    // which is what importFile spends on them apart from the commit (a repeat would be skipped
    // as the same bytes before parsing)
    const worker = yield* ParseWorker
    for (const file of [ONE_HOUR_FIT, LARGEST_FIT]) {
      const bytes = fs.readFileSync(path.join(CORPUS_DIR!, file))
      const ms: Array<number> = []
      for (let i = 0; i < 7 && Date.now() < DEADLINE; i++) {
        const copy = new Uint8Array(bytes) // parse hands its bytes over to the worker
        const t = performance.now()
        yield* Effect.orDie(worker.parse(copy, "fit", path.basename(file)))
        ms.push(performance.now() - t)
      }
      timesOf.set(file, ms)
    }
  }).pipe(Effect.provide(servicesLayer(env2)), Effect.scoped))

  for (const e of [env, env2]) fs.rmSync(e.root, { recursive: true, force: true })

  const rows: Array<[string, string, string, boolean]> = []
  const ms = (v: number) => (Number.isNaN(v) ? "n/a" : `${v.toFixed(1)} ms`)
  const p50Hour = quantile(timesOf.get(ONE_HOUR_FIT) ?? [], 0.5)
  const p50Largest = quantile(timesOf.get(LARGEST_FIT) ?? [], 0.5)
  const importOf = (file: string) => perFile[files.findIndex((f) => f.file === file)] ?? NaN
  rows.push(...corpusBulkRows(before, after, again))
  rows.push(["per-file import p50", "-", `${ms(quantile(perFile, 0.5))} (sum over ${perFile.length} files: ${(perFile.reduce((a, b) => a + b, 0) / 1000).toFixed(1)} s)`, true])
  rows.push(["per-file import p95", "-", ms(quantile(perFile, 0.95)), true])
  rows.push([`one-hour FIT p50, parse+compute in worker (${path.basename(ONE_HOUR_FIT)})`, "<= 60 ms", `${ms(p50Hour)} (whole importFile once: ${ms(importOf(ONE_HOUR_FIT))})`, p50Hour <= 60])
  rows.push([`largest FIT p50, parse+compute in worker (${path.basename(LARGEST_FIT)})`, "<= 600 ms", `${ms(p50Largest)} (whole importFile once: ${ms(importOf(LARGEST_FIT))})`, p50Largest <= 600])
  const peakRss = daemonMemory?.peak ?? NaN
  rows.push([`daemon peak RSS after the uploads too (${after.workers} parse workers, VmHWM)`, "< 350 MB", `${mb(peakRss)} (idle after start ${mb(idleRss?.current)})`, peakRss < 350 * 1048576])
  const up50 = quantile(uploadLatencies, 0.5)
  const upMax = quantile(uploadLatencies, 1)
  rows.push([`upload 202 -> success (${uploadLatencies.length} uploads)`, "< 2 s", `p50 ${ms(up50)}, max ${ms(upMax)}`, upMax < 2000])

  const w0 = Math.max(...rows.map((r) => r[0].length))
  const w1 = Math.max(...rows.map((r) => r[1].length))
  const w2 = Math.max(...rows.map((r) => r[2].length))
  console.log(`\nWaymark import benchmark: ${files.length} corpus files, node ${process.version}, ${os.cpus().length} cpus`)
  console.log(`load average (1, 5, 15 min): before the run ${loadBefore}; after it ${os.loadavg().map((v) => v.toFixed(2)).join(", ")}\n`)
  console.log(`${"measure".padEnd(w0)}  ${"target".padEnd(w1)}  ${"measured".padEnd(w2)}  ok`)
  console.log(`${"-".repeat(w0)}  ${"-".repeat(w1)}  ${"-".repeat(w2)}  --`)
  for (const [a, b, c, ok] of rows) console.log(`${a.padEnd(w0)}  ${b.padEnd(w1)}  ${c.padEnd(w2)}  ${ok ? "yes" : "NO"}`)
  for (const [file, list] of timesOf) console.log(`  worker runs of ${path.basename(file)}: ${list.map((v) => v.toFixed(0)).join(", ")} ms`)
}

main().catch((e) => console.error("benchmark failed:", e)).finally(() => process.exit(0))
