/**
 * Read-path benchmark at scale, against a ceiling measured in the same run:
 * 1. import: the built daemon (`node dist/main.js`, as `npm start` runs it, through ChildDaemon)
 *    over a fresh STORAGE_DIR; 10,000 generated small GPX rides and runs dropped into its watch
 *    folder at once; the rate over the first and the last thousand files, and the daemon's peak
 *    resident set (VmHWM, all threads) meanwhile;
 * 2. load: the daemon started again over that storage (idle RSS after start), and a plain
 *    node:http server in its own process answering each request with the daemon's own bytes;
 *    autocannon (16 connections) drives both for each request; the daemon's requests then run a
 *    second time and its RSS after each pass is compared (leak check); peak RSS under load.
 *    The daemon keeps an answer until the next commit, so one row reads every activity in
 *    turn, more than it keeps: the cost of reading each from the database every time.
 *    Each request is driven against two daemons over the same data: one untraced, and one
 *    exporting its spans (OTEL_EXPORTER_OTLP_ENDPOINT) to a loopback OTLP/HTTP receiver the
 *    bench starts in its own process, which counts the server spans it receives. The first
 *    answer of a few pages no other request asks (read from the database, nothing kept) is timed
 *    once the daemon is warm.
 *
 *   npm run bench:api                      builds first; about 5 minutes
 *   npm run bench:api -- --seed-only       the import phase only
 *   npm run bench:api -- --tiles           the map tiles only (3. below), in seconds
 *   npm run bench:api -- --compare         with BENCH_BASELINE_REF: only the paired rounds of the
 *                                          baseline and this build, on the rows of 16 connections
 *
 * Environment:
 *   BENCH_SEED_DIR=dir     keep the seeded storage in `dir` and reuse it on later runs (skips the import)
 *   BENCH_DURATION=s       seconds per request and server (default 8)
 *   BENCH_ACTIVITIES=n     files imported (default 10000)
 *   BENCH_PROFILE_DIR=dir  write a CPU profile of each daemon's main thread there (bench/cpuProfile.mjs)
 *   BENCH_BASELINE_REF=ref the daemon of another commit (built once into a temporary folder) driven
 *                          beside this build on each row, untraced and traced, over copies of the storage,
 *                          in BENCH_ROUNDS rounds (default 5) of BENCH_SLICE seconds (default 3) each
 *   BENCH_DAEMON_NODE_OPTIONS="..."   NODE_OPTIONS of the daemon (flags NODE_OPTIONS allows)
 *
 * The statistics (totals by week, records, heatmap, Eddington) and the streams of a one-hour
 * ride recorded every second (imported before the load) are computed on every request; their
 * rows run on one connection, so that p99 is the time of one request.
 * 3. tiles: the built daemon with MAP_TILES_FILE (a PMTiles file of PNG tiles written by the
 *    bench), beside the plain node:http server answering the same bytes; 16 connections ask
 *    the file's tiles in turn; target p99 < 5 ms.
 * Prints target vs measured; always exits 0.
 */
import autocannon from "autocannon"
import { Effect, Exit, Scope } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { type ChildDaemon, startChildDaemon } from "../test/support/ChildDaemon.ts"
import { gpxActivity, makeRoot, type Root } from "../test/support/ImportHarness.ts"
import { pngTile, tilesAround, writePmtiles } from "../test/support/pmtilesWriter.ts"
import { baselineBuild, cpuMillisOf, daemonDiagnostics, mb, memoryOf, printTable, sleep, startPlainServer } from "./measure.ts"

const DIST_MAIN = path.join(import.meta.dirname, "..", "dist", "main.js")
const SEED_ONLY = process.argv.includes("--seed-only")
const TILES_ONLY = process.argv.includes("--tiles")
/** only the baseline beside this build, on the rows of 16 connections (the kept answers' path) */
const COMPARE_ONLY = process.argv.includes("--compare")
const SEED_DIR = process.env.BENCH_SEED_DIR
const DURATION = Number(process.env.BENCH_DURATION ?? 8)
const COUNT = Number(process.env.BENCH_ACTIVITIES ?? 10_000)
const CONNECTIONS = 16
/**
 * Activities read in turn by the row that kept answers cannot serve: every one of them, more
 * than the daemon keeps, read in a cycle, so that each is gone before it is asked again.
 */
const DISTINCT_IDS = COUNT
const MB = 1048576

// ---------------------------------------------------------------------------------------
// The daemon

interface Running {
  readonly daemon: ChildDaemon
  readonly stop: () => Promise<void>
}

/** The process of each daemon started, by its base URL: its processor time per request is read from it. */
const daemonPids = new Map<string, number>()

const startDaemon = async (root: Root, main?: string): Promise<Running> => {
  const scope = Effect.runSync(Scope.make())
  const env = { ...root.env, LOG_LEVEL: "info", ...daemonDiagnostics() }
  const daemon = await Effect.runPromise(startChildDaemon({ env, apiKey: root.apiKey, built: true, ...(main === undefined ? {} : { main }) }).pipe(Scope.extend(scope)))
  daemonPids.set(daemon.baseUrl, daemon.pid)
  return {
    daemon,
    stop: async () => {
      // SIGTERM: a graceful stop, so that a CPU profile is written
      await Effect.runPromise(daemon.kill("SIGTERM"))
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
}

const rssNow = (pid: number) => memoryOf(pid)?.current ?? NaN
const rssPeak = (pid: number) => memoryOf(pid)?.peak ?? NaN

// ---------------------------------------------------------------------------------------
// 1. Seeding through the watch folder

interface ImportFigures {
  readonly files: number
  readonly seconds: number
  readonly firstThousand: number
  readonly lastThousand: number
  readonly succeeded: number
  readonly idleRss: number
  readonly peakRss: number
}

const PLACES: ReadonlyArray<readonly [number, number]> = [[47.37, 8.54], [48.85, 2.35], [51.5, -0.12], [40.71, -74.0], [-33.87, 151.2], [35.68, 139.69]]

/** The i-th file: a 30-minute GPX ride (three in four) or run, 8 hours after the previous one. */
const generated = (i: number) => {
  const ride = i % 4 !== 3
  const [lat, lng] = PLACES[i % PLACES.length]!
  const start = new Date(Date.parse("2016-01-01T06:00:00Z") + i * 8 * 3600_000 + (i % 7) * 660_000)
  return {
    name: `${ride ? "ride" : "run"}-${String(i).padStart(5, "0")}.gpx`,
    text: gpxActivity({ start, seconds: 1800, step: 10, lat, lng, speed: ride ? 7 : 3, type: ride ? "cycling" : "running", name: `${ride ? "Ride" : "Run"} ${i}` })
  }
}

const seedThroughWatchFolder = async (root: Root): Promise<ImportFigures> => {
  const { daemon, stop } = await startDaemon(root)
  try {
    await sleep(3000)
    const idleRss = rssNow(daemon.pid)
    // written into a dot-folder first (ignored by the watcher), then renamed in at once
    const staging = path.join(root.watchDir, ".bench")
    fs.mkdirSync(staging)
    const names: Array<string> = []
    for (let i = 0; i < COUNT; i++) {
      const file = generated(i)
      fs.writeFileSync(path.join(staging, file.name), file.text)
      names.push(file.name)
    }
    const started = performance.now()
    for (const name of names) fs.renameSync(path.join(staging, name), path.join(root.watchDir, name))
    const at = new Map<number, number>()
    const marks = [Math.min(1000, COUNT), Math.max(0, COUNT - 1000), COUNT]
    const deadline = Date.now() + Math.max(120_000, COUNT * 100)
    while (Date.now() < deadline && !daemon.hasExited()) {
      const left = fs.readdirSync(root.watchDir).filter((n) => !n.startsWith(".")).length
      const done = COUNT - left
      for (const mark of marks) if (done >= mark && !at.has(mark)) at.set(mark, (performance.now() - started) / 1000)
      if (left === 0) break
      await sleep(100)
    }
    const peakRss = rssPeak(daemon.pid)
    const seconds = at.get(COUNT) ?? NaN
    const succeeded = (await Effect.runPromise(daemon.get("/api/v1/file-imports?filters[status]=success&pagination[size]=1"))).json?.pagination?.total ?? 0
    const t1 = at.get(marks[0]!) ?? NaN
    const t9 = at.get(marks[1]!) ?? NaN
    return {
      files: COUNT,
      seconds,
      firstThousand: marks[0]! / t1,
      lastThousand: (COUNT - marks[1]!) / (seconds - t9),
      succeeded,
      idleRss,
      peakRss
    }
  } finally {
    await stop()
  }
}

// ---------------------------------------------------------------------------------------
// 2. Load: the daemon and the plain server, side by side

interface Row {
  readonly label: string
  readonly path: string
  /** paths requested in turn, when not just `path` */
  readonly paths?: ReadonlyArray<string>
  readonly target?: "page 1" | "deep page" | "one" | "status" | { readonly p99Below: number }
  /** connections of the row (16 by default); 1 measures the time of one request alone */
  readonly connections?: number
}

interface Load {
  /** requests sent (answered or not) */
  readonly sent: number
  readonly reqPerSec: number
  readonly p50: number
  readonly p99: number
  readonly failures: number
  /** the daemon's processor time (all its threads) per request answered, in µs; NaN for a server not ours */
  readonly cpuMicros: number
}

const drive = async (base: string, row: Row, apiKey: string, seconds: number): Promise<Load> => {
  let next = 0
  const paths = row.paths
  const pid = daemonPids.get(base)
  const cpuBefore = pid === undefined ? NaN : cpuMillisOf(pid)
  const result = await autocannon({
    url: base + row.path,
    connections: row.connections ?? CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${apiKey}` },
    ...(paths === undefined ? {} : { requests: [{ setupRequest: (request: any) => ({ ...request, path: paths[next++ % paths.length] }) }] })
  })
  const cpuMicros = pid === undefined ? NaN : ((cpuMillisOf(pid) - cpuBefore) * 1000) / Math.max(1, result["2xx"] + result.non2xx)
  return { sent: result.requests.sent, reqPerSec: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, failures: result.errors + result.timeouts + result.non2xx, cpuMicros }
}

/**
 * A loopback OTLP/HTTP trace receiver in its own process (as a collector would be): it accepts
 * POST /v1/traces (JSON) and counts the spans and the server spans received; GET /count says.
 */
const startOtlpReceiver = async () => {
  const script = `
    const http = require("node:http")
    let spans = 0, serverSpans = 0, posts = 0
    const server = http.createServer((req, res) => {
      if (req.method === "GET" && req.url === "/count") {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({ spans, serverSpans, posts }))
        return
      }
      const chunks = []
      req.on("data", (c) => chunks.push(c))
      req.on("end", () => {
        if (req.method === "POST" && req.url === "/v1/traces") {
          posts++
          try {
            const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
            for (const rs of body.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) {
              spans++
              if (s.kind === 2) serverSpans++
            }
          } catch {}
        }
        res.writeHead(200, { "content-type": "application/json" })
        res.end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () => console.log(server.address().port))
  `
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] })
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim())))
    child.once("exit", (code) => reject(new Error(`the OTLP receiver exited (${code})`)))
  })
  const url = `http://127.0.0.1:${port}`
  return {
    url,
    count: async (): Promise<{ spans: number; serverSpans: number; posts: number }> => (await fetch(`${url}/count`)).json() as any,
    stop: () => child.kill("SIGKILL")
  }
}

interface RowFigures {
  readonly row: Row
  readonly plain: Load
  readonly waymark: Load
  readonly traced: Load
  readonly again: Load
  readonly bytes: number
  /** the baseline's daemon, untraced and traced, driven beside this build's in paired rounds */
  readonly baseline?: { readonly waymark: Paired; readonly traced: Paired }
}

/**
 * The baseline and this build driven in turn over `ROUNDS` rounds of `SLICE` seconds each, the
 * order swapped every round, so that a change in the machine's load meets both alike: the
 * figure is the median of the rounds' ratios (this build's req/s over the baseline's), its
 * spread the lowest and highest ratio. One long drive of each, one after the other, swung
 * by -16 % to +32 % between runs on the 2-core machine: more than the difference it measures.
 * Beside it, each daemon's processor time per request (this build's over the baseline's, the
 * median of the rounds'): the work a request costs, which the bench's own share of the two
 * cores moves far less than the rate.
 */
interface Paired {
  readonly before: Load
  readonly after: Load
  /** the rounds' ratios of req/s, this build's over the baseline's */
  readonly rate: Spread
  /** the rounds' ratios of processor time per request, this build's over the baseline's */
  readonly cpu: Spread
}

/** The median of the rounds' ratios, and the lowest and highest of them. */
interface Spread {
  readonly median: number
  readonly lowest: number
  readonly highest: number
}

/** a figure not measured (`--compare` measures only the paired rounds) */
const NO_LOAD: Load = { sent: 0, reqPerSec: NaN, p50: NaN, p99: NaN, failures: 0, cpuMicros: NaN }

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const SLICE = Number(process.env.BENCH_SLICE ?? 3)

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** The load whose req/s is the median of the rounds' (its latencies with it). */
const medianLoad = (loads: ReadonlyArray<Load>): Load => {
  const sorted = [...loads].sort((a, b) => a.reqPerSec - b.reqPerSec)
  return sorted[(sorted.length - 1) >> 1]!
}

const pairedRounds = async (run: (base: string, seconds: number) => Promise<Load>, beforeBase: string, afterBase: string): Promise<Paired> => {
  const befores: Array<Load> = []
  const afters: Array<Load> = []
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      befores.push(await run(beforeBase, SLICE))
      afters.push(await run(afterBase, SLICE))
    } else {
      afters.push(await run(afterBase, SLICE))
      befores.push(await run(beforeBase, SLICE))
    }
  }
  const spreadOf = (figure: (load: Load) => number): Spread => {
    const ratios = afters.map((after, i) => figure(after) / figure(befores[i]!))
    return { median: median(ratios), lowest: Math.min(...ratios), highest: Math.max(...ratios) }
  }
  return { before: medianLoad(befores), after: medianLoad(afters), rate: spreadOf((l) => l.reqPerSec), cpu: spreadOf((l) => l.cpuMicros) }
}

interface LoadFigures {
  readonly rows: ReadonlyArray<RowFigures>
  /** the commit measured beside this build (BENCH_BASELINE_REF), when there is one */
  readonly baselineRef: string | null
  /** the uncached first answer of pages, right after start (ms) */
  readonly firstAnswers: ReadonlyArray<{ readonly path: string; readonly ms: number }>
  readonly tracedRequests: number
  readonly spans: { spans: number; serverSpans: number; posts: number }
  readonly idleRss: number
  readonly rssAfterFirst: number
  readonly rssAfterSecond: number
  readonly peakRss: number
  readonly tracedPeakRss: number
}

/** Pages no request of the bench asks otherwise: answered from the database, not kept. */
const FIRST_ANSWERS = [
  "/api/v1/activities?pagination[size]=25&pagination[page]=150",
  "/api/v1/activities?pagination[size]=100&pagination[page]=50",
  "/api/v1/activities?filters[sportType]=Run&filters[from]=2019-01-01&filters[to]=2020-12-31&pagination[size]=25&pagination[page]=3",
  "/api/v1/activities?filters[hasGpx]=true&pagination[size]=25&pagination[page]=333"
]

/** Milliseconds of one authorised GET, the connection opened beforehand. */
const timedGet = async (base: string, path: string, apiKey: string) => {
  const started = performance.now()
  const response = await fetch(base + path, { headers: { authorization: `Bearer ${apiKey}` } })
  await response.arrayBuffer()
  const ms = performance.now() - started
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}`)
  return ms
}

/**
 * The daemon untraced, the daemon exporting every span to the OTLP receiver (over a copy of
 * the same storage), and the plain server, driven in turn for each request.
 */
const HOUR_RIDE = "bench-hour-ride.gpx"

/** The id of a one-hour ride recorded every second, imported through the watch folder unless there already. */
const importHourRide = async (root: Root, daemon: ChildDaemon): Promise<string> => {
  const find = async () =>
    (await Effect.runPromise(daemon.get("/api/v1/activities?filters[search]=bench%20hour%20ride&pagination[size]=1"))).json.activities[0]?.id as string | undefined
  const existing = await find()
  if (existing !== undefined) return existing
  const text = gpxActivity({ start: new Date("2015-06-01T06:00:00Z"), seconds: 3600, step: 1, speed: 8, type: "cycling", name: "Bench hour ride" })
  fs.writeFileSync(path.join(root.watchDir, `.${HOUR_RIDE}`), text)
  fs.renameSync(path.join(root.watchDir, `.${HOUR_RIDE}`), path.join(root.watchDir, HOUR_RIDE))
  for (let i = 0; i < 600; i++) {
    const id = await find()
    if (id !== undefined) return id
    await sleep(100)
  }
  throw new Error("the one-hour ride was not imported within a minute")
}

/** A copy of `root`'s storage under a root of its own (one daemon per storage folder). */
const copyOf = (root: Root): Root => {
  const copy = makeRoot()
  fs.rmSync(copy.storageDir, { recursive: true, force: true })
  fs.cpSync(root.storageDir, copy.storageDir, { recursive: true })
  return { ...copy, apiKey: root.apiKey, env: { ...copy.env, SERVICE_API_KEY: root.apiKey } }
}

const loadAll = async (root: Root): Promise<LoadFigures> => {
  const baselineOf = process.env.BENCH_BASELINE_REF === undefined ? null : baselineBuild(process.env.BENCH_BASELINE_REF)
  // the ride is imported first, so that the copies of the storage have it too
  const seeding = await startDaemon(root)
  const hourRide = await importHourRide(root, seeding.daemon).finally(seeding.stop)
  const copies = [copyOf(root), ...(baselineOf === null ? [] : [copyOf(root), copyOf(root)])]
  const [tracedRoot, baselineRoot, baselineTracedRoot] = copies
  const receiver = await startOtlpReceiver()
  const tracedEnv = (r: Root): Root => ({ ...r, env: { ...r.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } })
  const { daemon, stop } = await startDaemon(root)
  let traced: Running | undefined
  let plain: { base: string; stop: () => void } | undefined
  const baseline: Array<Running> = []
  try {
    traced = await startDaemon(tracedEnv(tracedRoot!))
    if (baselineOf !== null) {
      baseline.push(await startDaemon(baselineRoot!, baselineOf.main))
      baseline.push(await startDaemon(tracedEnv(baselineTracedRoot!), baselineOf.main))
    }
    await sleep(3000)
    const idleRss = rssNow(daemon.pid)
    const ids: Array<string> = []
    for (let page = 1; ids.length < DISTINCT_IDS; page++) {
      const answer = await Effect.runPromise(daemon.get(`/api/v1/activities?pagination[size]=100&pagination[page]=${page}`))
      if (answer.json.activities.length === 0) break
      ids.push(...answer.json.activities.map((a: { id: string }) => a.id))
    }
    const idPaths = ids.slice(0, DISTINCT_IDS).map((id) => `/api/v1/activities/${id}`)
    const rows: ReadonlyArray<Row> = [
      { label: "GET /api/v1/activities?pagination[size]=25", path: "/api/v1/activities?pagination[size]=25", target: "page 1" },
      {
        label: "  the same, filters[sportType]=Ride&filters[from]=2018-01-01, page 40",
        path: "/api/v1/activities?filters[sportType]=Ride&filters[from]=2018-01-01&pagination[size]=25&pagination[page]=40",
        target: "deep page"
      },
      { label: "GET /api/v1/activities/{id}", path: idPaths[0]!, target: "one" },
      { label: `  ${idPaths.length} different ids in turn`, path: idPaths[0]!, paths: idPaths },
      { label: "GET /api/v1/status", path: "/api/v1/status", target: "status" },
      { label: "GET /api/v1/file-imports?pagination[size]=25", path: "/api/v1/file-imports?pagination[size]=25" },
      // the statistics and the streams are computed on every request (nothing kept): one
      // connection, so that p99 is the time of one request, not of a queue of 16
      { label: "GET /api/v1/stats/totals?filters[period]=week (1 conn.)", path: "/api/v1/stats/totals?filters[period]=week", connections: 1, target: { p99Below: 50 } },
      { label: "GET /api/v1/stats/records (1 conn.)", path: "/api/v1/stats/records", connections: 1, target: { p99Below: 50 } },
      { label: "GET /api/v1/stats/heatmap (1 conn.)", path: "/api/v1/stats/heatmap", connections: 1, target: { p99Below: 500 } },
      { label: "GET /api/v1/stats/eddington (1 conn.)", path: "/api/v1/stats/eddington", connections: 1 },
      { label: "GET /api/v1/activities/{id}/streams, 1 h at 1 s (1 conn.)", path: `/api/v1/activities/${hourRide}/streams`, connections: 1, target: { p99Below: 20 } },
      { label: "  the same, points=500 (1 conn.)", path: `/api/v1/activities/${hourRide}/streams?points=500`, connections: 1, target: { p99Below: 20 } }
    ]
    const bodies = new Map<string, Buffer>()
    for (const path of new Set(rows.flatMap((row) => row.paths ?? [row.path]))) {
      const response = await fetch(daemon.baseUrl + path, { headers: { authorization: `Bearer ${root.apiKey}` } })
      const bytes = Buffer.from(await response.arrayBuffer())
      if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${bytes.toString("utf8").slice(0, 300)}`)
      bodies.set(path, bytes)
    }
    plain = await startPlainServer(bodies)
    let tracedRequests = 0
    const driveTraced = async (base: string, row: Row, seconds: number) => {
      const load = await drive(base, row, root.apiKey, seconds)
      tracedRequests += load.sent
      return load
    }
    // warm them all up (JIT, SQLite page cache) before anything is measured
    for (const row of rows) {
      if (COMPARE_ONLY && row.connections !== undefined) continue
      await drive(daemon.baseUrl, row, root.apiKey, 2)
      await driveTraced(traced.daemon.baseUrl, row, 2)
      if (baseline.length > 0) {
        await drive(baseline[0]!.daemon.baseUrl, row, root.apiKey, 2)
        await driveTraced(baseline[1]!.daemon.baseUrl, row, 2)
      }
      await drive(plain.base, row, root.apiKey, 1)
    }
    // once warm, pages asked for the first time
    const firstAnswers: Array<{ path: string; ms: number }> = []
    for (const path of FIRST_ANSWERS) firstAnswers.push({ path, ms: await timedGet(daemon.baseUrl, path, root.apiKey) })
    const firstPass: Array<Omit<RowFigures, "again" | "bytes">> = []
    for (const row of rows) {
      if (COMPARE_ONLY && row.connections !== undefined) continue
      process.stdout.write(`  ${row.paths === undefined ? row.path : row.label.trim()} ...\n`)
      const single = (run: () => Promise<Load>) => (COMPARE_ONLY ? Promise.resolve(NO_LOAD) : run())
      const plainLoad = await single(() => drive(plain!.base, row, root.apiKey, DURATION))
      const waymark = await single(() => drive(daemon.baseUrl, row, root.apiKey, DURATION))
      const tracedLoad = await single(() => driveTraced(traced!.daemon.baseUrl, row, DURATION))
      const paired = baseline.length > 0
        ? {
          waymark: await pairedRounds((base, seconds) => drive(base, row, root.apiKey, seconds), baseline[0]!.daemon.baseUrl, daemon.baseUrl),
          traced: await pairedRounds((base, seconds) => driveTraced(base, row, seconds), baseline[1]!.daemon.baseUrl, traced.daemon.baseUrl)
        }
        : undefined
      firstPass.push({ row, plain: plainLoad, waymark, traced: tracedLoad, ...(paired === undefined ? {} : { baseline: paired }) })
    }
    await sleep(2000)
    const rssAfterFirst = rssNow(daemon.pid)
    const again: Array<Load> = []
    for (const { row } of firstPass) again.push(COMPARE_ONLY ? NO_LOAD : await drive(daemon.baseUrl, row, root.apiKey, DURATION))
    await sleep(2000)
    const rssAfterSecond = rssNow(daemon.pid)
    const tracedPeakRss = rssPeak(traced.daemon.pid)
    // a graceful stop exports the spans still queued
    await traced.stop()
    traced = undefined
    for (const running of baseline.splice(0)) await running.stop()
    await sleep(1000)
    return {
      rows: firstPass.map((r, i) => ({ ...r, again: again[i]!, bytes: bodies.get(r.row.path)!.length })),
      baselineRef: baselineOf?.ref ?? null,
      firstAnswers,
      tracedRequests,
      spans: await receiver.count(),
      idleRss,
      rssAfterFirst,
      rssAfterSecond,
      peakRss: rssPeak(daemon.pid),
      tracedPeakRss
    }
  } finally {
    plain?.stop()
    await traced?.stop()
    for (const running of baseline) await running.stop()
    await stop()
    receiver.stop()
    for (const copy of copies) fs.rmSync(copy.root, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------------------
// 3. Tiles from a local file, beside the plain server

const TILE_P99_MS = 5

const tileLoad = async () => {
  const root = makeRoot()
  const tiles = tilesAround(2.35, 48.85, 0, 10, pngTile)
  const file = path.join(root.root, "bench.pmtiles")
  fs.writeFileSync(file, writePmtiles({ tileType: "png", tiles }))
  const paths = tiles.map((t) => `/tiles/${t.z}/${t.x}/${t.y}`)
  let plain: { base: string; stop: () => void } | undefined
  const running = await startDaemon({ ...root, env: { ...root.env, MAP_TILES_FILE: file } })
  try {
    const daemon = running.daemon
    plain = await startPlainServer(new Map(tiles.map((t, i) => [paths[i]!, Buffer.from(t.bytes)])))
    const row: Row = { label: "a tile from the file", path: paths[0]!, paths }
    await drive(daemon.baseUrl, row, root.apiKey, 2)
    await drive(plain.base, row, root.apiKey, 1)
    const plainLoad = await drive(plain.base, row, root.apiKey, DURATION)
    const waymark = await drive(daemon.baseUrl, row, root.apiKey, DURATION)
    return { tiles: tiles.length, bytes: tiles.reduce((n, t) => n + t.bytes.length, 0) / tiles.length, plain: plainLoad, waymark }
  } finally {
    plain?.stop()
    await running.stop()
    fs.rmSync(root.root, { recursive: true, force: true })
  }
}

const printTiles = (figures: Awaited<ReturnType<typeof tileLoad>>) => {
  const { plain, waymark } = figures
  console.log(`\nmap tiles from a PMTiles file: ${figures.tiles} PNG tiles of ${figures.bytes.toFixed(0)} bytes on average, asked in turn, ${CONNECTIONS} connections, ${DURATION} s`)
  printTable(
    ["server", "req/s", "p50 ms", "p99 ms", "failures", "target", "ok"],
    [
      ["plain node:http (same bytes)", plain.reqPerSec.toFixed(0), plain.p50.toFixed(1), plain.p99.toFixed(1), String(plain.failures), "", ""],
      ["waymark /tiles/{z}/{x}/{y}", waymark.reqPerSec.toFixed(0), waymark.p50.toFixed(1), waymark.p99.toFixed(1), String(waymark.failures), `p99 < ${TILE_P99_MS} ms`, waymark.p99 < TILE_P99_MS && waymark.failures === 0 ? "yes" : "NO"]
    ]
  )
}

const seedMarker = (dir: string) => path.join(dir, "bench-seed.json")

const main = async () => {
  if (!fs.existsSync(DIST_MAIN)) {
    console.log(`${DIST_MAIN} is missing: run \`npm run build\` first (npm run bench:api does)`)
    return
  }
  const loadAtStart = os.loadavg()
  if (TILES_ONLY) {
    const figures = await tileLoad()
    console.log(`load average (1, 5, 15 min): ${loadAtStart.map((v) => v.toFixed(2)).join(" ")} at the start, ${os.loadavg().map((v) => v.toFixed(2)).join(" ")} at the end`)
    printTiles(figures)
    return
  }
  if (COMPARE_ONLY && process.env.BENCH_BASELINE_REF === undefined) {
    console.log("--compare measures the baseline beside this build: set BENCH_BASELINE_REF")
    return
  }
  const root = makeRoot()
  try {
    let imported: ImportFigures | null = null
    const reusable = SEED_DIR !== undefined && fs.existsSync(seedMarker(SEED_DIR)) &&
      JSON.parse(fs.readFileSync(seedMarker(SEED_DIR), "utf8")).count === COUNT
    if (reusable && !SEED_ONLY) {
      console.log(`reusing the seeded storage of ${SEED_DIR} (${COUNT} files)`)
      fs.cpSync(SEED_DIR!, root.storageDir, { recursive: true })
    } else {
      console.log(`importing ${COUNT} generated GPX files through the watch folder...`)
      imported = await seedThroughWatchFolder(root)
      if (SEED_DIR !== undefined) {
        fs.rmSync(SEED_DIR, { recursive: true, force: true })
        fs.cpSync(root.storageDir, SEED_DIR, { recursive: true })
        fs.writeFileSync(seedMarker(SEED_DIR), JSON.stringify({ count: COUNT }))
      }
    }
    const load = SEED_ONLY ? null : await loadAll(root)

    // the machine may be shared: its load says how far the figures are from a quiet machine's
    const loads = (l: ReadonlyArray<number>) => l.map((v) => v.toFixed(2)).join(" ")
    console.log(`\nWaymark API benchmark: ${COUNT} activities, ${CONNECTIONS} connections, ${DURATION} s per request, node ${process.version}, ${os.cpus().length} cpus`)
    console.log(`load average (1, 5, 15 min): ${loads(loadAtStart)} at the start, ${loads(os.loadavg())} at the end\n`)
    if (load !== null) {
      const num = (v: number) => v.toFixed(0)
      const msOf = (v: number) => `${v.toFixed(1)}`
      const pct = (v: number) => `${(100 * v).toFixed(1)}%`
      // untraced: at least the figures of the direct routes before every request was traced;
      // traced: every request with its server span exported
      const UNTRACED: Partial<Record<Extract<Row["target"], string>, number>> = { "page 1": 0.285, one: 0.53, status: 0.8 }
      const TRACED: Partial<Record<Extract<Row["target"], string>, number>> = { "page 1": 0.2, one: 0.25, status: 0.3 }
      const targetOf = (row: Row, load: Load, plainLoad: Load, page1: Load, shares: typeof UNTRACED): [string, boolean] => {
        const share = load.reqPerSec / plainLoad.reqPerSec
        if (row.target === "deep page") return ["within 1.5x of page 1", load.reqPerSec * 1.5 >= page1.reqPerSec && load.p99 <= page1.p99 * 1.5 + 1]
        if (typeof row.target === "object") return [`p99 < ${row.target.p99Below} ms`, load.p99 < row.target.p99Below]
        const min = row.target === undefined ? undefined : shares[row.target]
        if (min === undefined) return ["-", true]
        return [`>= ${pct(min)}, p99 < 10 ms`, share >= min && load.p99 < 10]
      }
      const okOf = (ok: boolean, failures: number) => (ok && failures === 0 ? "yes" : "NO") + (failures > 0 ? ` (${failures} failed)` : "")
      if (!COMPARE_ONLY) printTable(
        ["request", "bytes", "plain req/s", "p99 ms", "untraced req/s", "p50", "p99", "share", "2nd run", "target", "ok", "traced req/s", "p50", "p99", "share", "target", "ok"],
        load.rows.map((r) => {
          const [target, ok] = targetOf(r.row, r.waymark, r.plain, load.rows[0]!.waymark, UNTRACED)
          const [tracedTarget, tracedOk] = targetOf(r.row, r.traced, r.plain, load.rows[0]!.traced, TRACED)
          return [
            r.row.label, String(r.bytes),
            num(r.plain.reqPerSec), msOf(r.plain.p99),
            num(r.waymark.reqPerSec), msOf(r.waymark.p50), msOf(r.waymark.p99), pct(r.waymark.reqPerSec / r.plain.reqPerSec), num(r.again.reqPerSec),
            target, okOf(ok, r.waymark.failures + r.again.failures + r.plain.failures),
            num(r.traced.reqPerSec), msOf(r.traced.p50), msOf(r.traced.p99), pct(r.traced.reqPerSec / r.plain.reqPerSec),
            tracedTarget, okOf(tracedOk, r.traced.failures)
          ]
        })
      )
      console.log("")
      if (load.baselineRef !== null) {
        const percent = (ratio: number, digits: number) => `${ratio >= 1 ? "+" : ""}${(100 * (ratio - 1)).toFixed(digits)}`
        const change = (s: Spread) => `${percent(s.median, 1)}% (${percent(s.lowest, 0)}..${percent(s.highest, 0)})`
        /** One table of the paired rounds: each side's figure, and the change of `spread` with whether `within` holds. */
        const pairedTable = (title: string, figure: (l: Load) => string, spread: (p: Paired) => Spread, within: (s: Spread) => boolean) => {
          console.log(title)
          const cells = (p: Paired) => [figure(p.before), figure(p.after), change(spread(p)), within(spread(p)) ? "yes" : "NO"]
          printTable(
            ["request", "baseline untraced", "this build untraced", "change", "within 5 %", "baseline traced", "this build traced", "change", "within 5 %"],
            load.rows.map((r) => [r.row.label, ...cells(r.baseline!.waymark), ...cells(r.baseline!.traced)])
          )
          console.log("")
        }
        pairedTable(
          `The baseline (${load.baselineRef}) beside this build: each row driven on both in turn, ${ROUNDS} rounds of ${SLICE} s, the order swapped every round;\n` +
            "median req/s (p99 ms), and this build's change as the median of the rounds' ratios (lowest..highest); target: not more than 5 % slower.\n",
          (l) => `${num(l.reqPerSec)} (p99 ${msOf(l.p99)})`,
          (p) => p.rate,
          (s) => s.median >= 0.95
        )
        pairedTable(
          "The same rounds: each daemon's processor time per request answered (µs, of the round of median req/s), and this build's change as the median\n" +
            "of the rounds' ratios (lowest..highest); target: not more than 5 % more.\n",
          (l) => l.cpuMicros.toFixed(0),
          (p) => p.cpu,
          (s) => s.median <= 1.05
        )
      }
    }
    const memoryRows: Array<Array<string>> = []
    if (imported !== null) {
      const rate = imported.files / imported.seconds
      const steady = imported.lastThousand >= 0.9 * imported.firstThousand
      memoryRows.push(
        ["import through the watch folder", ">= 85 files/s", `${rate.toFixed(1)} files/s (${imported.files} files in ${imported.seconds.toFixed(1)} s; ${imported.succeeded} success)`, rate >= 85 && imported.succeeded === imported.files ? "yes" : "NO"],
        ["  first thousand vs last thousand", "not falling", `${imported.firstThousand.toFixed(1)} vs ${imported.lastThousand.toFixed(1)} files/s`, steady ? "yes" : "NO"],
        ["  idle RSS after start (empty database)", "< 100 MB", mb(imported.idleRss), imported.idleRss < 100 * MB ? "yes" : "NO"],
        ["  peak RSS during the import (VmHWM)", "< 350 MB", mb(imported.peakRss), imported.peakRss < 350 * MB ? "yes" : "NO"]
      )
    }
    if (load !== null && !COMPARE_ONLY) {
      const growth = load.rssAfterSecond - load.rssAfterFirst
      memoryRows.push(
        [`idle RSS after start (${COUNT} activities)`, "< 120 MB", mb(load.idleRss), load.idleRss < 120 * MB ? "yes" : "NO"],
        ["peak RSS under load (VmHWM)", "< 350 MB", mb(load.peakRss), load.peakRss < 350 * MB ? "yes" : "NO"],
        ["leak check: RSS after 1st vs 2nd load", "< +16 MB", `${mb(load.rssAfterFirst)} -> ${mb(load.rssAfterSecond)} (${growth >= 0 ? "+" : ""}${(growth / MB).toFixed(1)} MB)`, growth < 16 * MB ? "yes" : "NO"],
        ["peak RSS of the traced daemon (VmHWM)", "< 350 MB", mb(load.tracedPeakRss), load.tracedPeakRss < 350 * MB ? "yes" : "NO"],
        [
          "traced: server spans received / requests sent",
          "every request",
          `${load.spans.serverSpans} / ${load.tracedRequests} (${load.spans.spans} spans in ${load.spans.posts} exports)`,
          load.spans.serverSpans >= load.tracedRequests ? "yes" : "NO"
        ],
        ...load.firstAnswers.map(({ path, ms }) => [`uncached first answer: ${path}`, "< 20 ms", `${ms.toFixed(1)} ms`, ms < 20 ? "yes" : "NO"])
      )
    }
    if (memoryRows.length > 0) printTable(["measure", "target", "measured", "ok"], memoryRows)
    if (!SEED_ONLY && !COMPARE_ONLY) printTiles(await tileLoad())
  } finally {
    fs.rmSync(root.root, { recursive: true, force: true })
  }
}

main().catch((e) => console.error("benchmark failed:", e)).finally(() => process.exit(0))
