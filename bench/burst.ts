/**
 * `npm run bench:burst`: does an upload burst stall the API? The built daemon (`node
 * dist/main.js`, as `npm start` runs it) over a fresh storage folder; `GET /api/v1/status` asked
 * one request at a time, 20 ms apart, on a connection of its own (in a worker thread), from
 * before the first upload until the last import ends; 200 uploads of a 600-point GPX (each a
 * different ride) sent at once, then imported. Prints p50, p99 and the worst answer, over the
 * whole scenario and over its two phases (while the uploads arrive, then while they are
 * imported), the daemon's peak resident set, and the same for a plain node:http server in its
 * own process answering the same paths with the daemon's bytes (the uploads once their bodies
 * are read), measured in the same run. Target: p99 under 100 ms, no answer over 250 ms.
 *
 * Each daemon's memory is printed beside: its resident set idle over the empty database (target
 * under 100 MB; the median of BENCH_IDLE_STARTS starts of its own, each read 15 s after the
 * daemon answers, when it has settled), its peak through the burst and its import (VmHWM), and
 * the modules it loaded at start (counted in a start of its own, bench/loadedModules.mjs).
 *
 * Environment:
 *   BENCH_UPLOADS=n        uploads in the burst (default 200)
 *   BENCH_IDLE_STARTS=n    starts whose idle resident set gives the median (default 3)
 *   BENCH_BASELINE_REF=ref the daemon of another commit (built once into a temporary folder)
 *                          through the same scenario just before this build's
 *   BENCH_PROFILE_DIR=dir  write a CPU profile of the daemon's main thread there (bench/cpuProfile.mjs)
 *   BENCH_DAEMON_NODE_OPTIONS="..."   NODE_OPTIONS of the daemon (flags NODE_OPTIONS allows)
 */
import { Effect, Exit, Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { startChildDaemon } from "../test/support/ChildDaemon.ts"
import { dayStart, gpxActivity, makeRoot } from "../test/support/ImportHarness.ts"
import { api, baselineBuild, daemonDiagnostics, finishedRows, mb, memoryOf, printTable, type Probe, probeLoop, quantile, sleep, startPlainServer } from "./measure.ts"

const DIST_MAIN = path.join(import.meta.dirname, "..", "dist", "main.js")
const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 200)
const STATUS_URL = "/api/v1/status"
const UPLOAD_URL = "/api/v1/activity/upload"
const P99_TARGET = 100
const WORST_TARGET = 250
const IDLE_TARGET = 100 * 1048576
const IDLE_STARTS = Number(process.env.BENCH_IDLE_STARTS ?? 3)
/** How long after it answers an idle daemon's resident set is read: by then it no longer grows. */
const IDLE_SETTLE_MS = 15_000

/** The i-th upload: 600 points, one every 10 s, on a day of its own (so that none is a duplicate). */
const upload = (i: number) => ({
  name: `burst-${String(i).padStart(3, "0")}.gpx`,
  bytes: new TextEncoder().encode(gpxActivity({ start: dayStart(i), seconds: 5990, step: 10, name: `Burst ${i}` }))
})

interface Run {
  readonly server: string
  readonly load: string
  readonly probes: ReadonlyArray<Probe>
  /** when the last upload was answered, and when the last import ended (ms from the first upload) */
  readonly uploadsAnswered: number
  readonly importsEnded: number
  readonly accepted: number
  readonly peakRss: number
  /** the daemon's resident set idle after start, over the empty database */
  readonly idleRss: number
  /** modules (the daemon's and its dependencies') loaded at start */
  readonly modules: number
}

const loadAverage = () => os.loadavg().map((l) => l.toFixed(2)).join(" ")

/** The scenario against `base`: probes, the burst, then waiting for `importsDone` (when given). */
const burst = async (server: string, base: string, key: string, importsDone?: () => Promise<boolean>, pid?: number): Promise<Omit<Run, "server" | "idleRss" | "modules">> => {
  const load = loadAverage()
  const client = api(base, key)
  const files = Array.from({ length: UPLOADS }, (_, i) => upload(i))
  const probes = probeLoop(base, STATUS_URL, { authorization: `Bearer ${key}` })
  await sleep(200)
  const t0 = Date.now()
  const statuses = await Promise.all(files.map(async (file) => {
    const response = await client.upload(file.name, file.bytes)
    await response.arrayBuffer()
    return response.status
  }))
  const uploadsAnswered = Date.now() - t0
  if (importsDone !== undefined) {
    const deadline = Date.now() + 600_000
    while (!(await importsDone()) && Date.now() < deadline) await sleep(50)
  }
  const importsEnded = Date.now() - t0
  const answered = await probes.stop()
  console.log(`  ${server}: ${statuses.filter((s) => s === 202 || s === 200).length}/${UPLOADS} uploads accepted in ${uploadsAnswered} ms, imports ended at ${importsEnded} ms`)
  return {
    load,
    probes: answered.map((p) => ({ ...p, at: p.at - t0 })),
    uploadsAnswered,
    importsEnded,
    accepted: statuses.filter((s) => s === 202 || s === 200).length,
    peakRss: pid === undefined ? NaN : memoryOf(pid)?.peak ?? NaN
  }
}

/** The modules the daemon `main` loaded at start, over an empty database: a start of its own, stopped 3 s after it is ready. */
const modulesAtStart = async (main: string): Promise<number> => {
  const scope = Effect.runSync(Scope.make())
  const list = path.join(os.tmpdir(), `waymark-bench-modules-${process.pid}.txt`)
  const root = makeRoot({ LOG_LEVEL: "warning", NODE_OPTIONS: `--import ${path.join(import.meta.dirname, "loadedModules.mjs")}`, BENCH_MODULES_FILE: list })
  try {
    const daemon = await Effect.runPromise(Scope.extend(startChildDaemon({ env: root.env, apiKey: root.apiKey, built: true, main }), scope))
    await sleep(3000)
    await Effect.runPromise(daemon.kill("SIGTERM"))
    return fs.readFileSync(list, "utf8").trim().split("\n").length
  } catch {
    return NaN
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    fs.rmSync(root.root, { recursive: true, force: true })
    fs.rmSync(list, { force: true })
  }
}

/** The resident set of the daemon `main` idle over an empty database: the median of IDLE_STARTS starts, each read once settled. */
const idleResidentSet = async (main: string): Promise<number> => {
  const readings: Array<number> = []
  for (let i = 0; i < IDLE_STARTS; i++) {
    const scope = Effect.runSync(Scope.make())
    const root = makeRoot({ LOG_LEVEL: "warning" })
    try {
      const daemon = await Effect.runPromise(Scope.extend(startChildDaemon({ env: root.env, apiKey: root.apiKey, built: true, main }), scope))
      await sleep(IDLE_SETTLE_MS)
      readings.push(memoryOf(daemon.pid)?.current ?? NaN)
      await Effect.runPromise(daemon.kill("SIGTERM"))
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      fs.rmSync(root.root, { recursive: true, force: true })
    }
  }
  console.log(`  ${main}: idle resident set ${readings.map(mb).join(", ")}`)
  return quantile(readings, 0.5)
}

/** The daemon `main` over a fresh storage folder through the scenario. */
const daemonRun = async (server: string, main: string): Promise<Run> => {
  const modules = await modulesAtStart(main)
  const idleRss = await idleResidentSet(main)
  const scope = Effect.runSync(Scope.make())
  const root = makeRoot({ LOG_LEVEL: "warning", ...daemonDiagnostics() })
  try {
    const daemon = await Effect.runPromise(Scope.extend(startChildDaemon({ env: root.env, apiKey: root.apiKey, built: true, main }), scope))
    await sleep(3000)
    const client = api(daemon.baseUrl, root.apiKey)
    // an upload is linked into the watch folder and taken out once imported: the folder is
    // looked at often (nothing asked of the daemon), the import log only once it is empty
    const importsDone = async () => {
      const left = fs.readdirSync(root.watchDir).filter((name) => !name.startsWith(".")).length
      if (left > 0) return false
      return (await finishedRows(client)) >= UPLOADS
    }
    const run = await burst(server, daemon.baseUrl, root.apiKey, importsDone, daemon.pid)
    // SIGTERM: a graceful stop, so that a CPU profile is written
    await Effect.runPromise(daemon.kill("SIGTERM"))
    return { server, ...run, idleRss, modules }
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    fs.rmSync(root.root, { recursive: true, force: true })
  }
}

/** The plain server, answering with bytes a daemon gave. */
const plainRun = async (): Promise<Run> => {
  const scope = Effect.runSync(Scope.make())
  const root = makeRoot({ LOG_LEVEL: "warning" })
  let bodies: Map<string, Buffer>
  try {
    const daemon = await Effect.runPromise(Scope.extend(startChildDaemon({ env: root.env, apiKey: root.apiKey, built: true }), scope))
    const client = api(daemon.baseUrl, root.apiKey)
    const sample = upload(UPLOADS + 1)
    bodies = new Map([
      [STATUS_URL, Buffer.from(await (await client.get(STATUS_URL)).arrayBuffer())],
      [UPLOAD_URL, Buffer.from(await (await client.upload(sample.name, sample.bytes)).arrayBuffer())]
    ])
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    fs.rmSync(root.root, { recursive: true, force: true })
  }
  const plain = await startPlainServer(bodies)
  try {
    return { server: "plain node:http", ...(await burst("plain node:http", plain.base, root.apiKey)), idleRss: NaN, modules: NaN }
  } finally {
    plain.stop()
  }
}

const main = async () => {
  if (!fs.existsSync(DIST_MAIN)) {
    console.log(`${DIST_MAIN} is missing: run \`npm run build\` first (npm run bench:burst does)`)
    return
  }
  const loadAtStart = loadAverage()
  const baseline = process.env.BENCH_BASELINE_REF === undefined ? null : baselineBuild(process.env.BENCH_BASELINE_REF)
  const runs: Array<Run> = [await plainRun()]
  if (baseline !== null) runs.push(await daemonRun(`daemon ${baseline.ref}`, baseline.main))
  runs.push(await daemonRun("daemon (this build)", DIST_MAIN))

  const ms = (x: number) => (Number.isNaN(x) ? "-" : x.toFixed(1))
  console.log(`\nUpload burst: ${UPLOADS} uploads of a 600-point GPX at once, GET ${STATUS_URL} every 20 ms until the last import ends; node ${process.version}, ${os.availableParallelism()} cores`)
  console.log(`load average (1, 5, 15 min): ${loadAtStart} at the start, ${loadAverage()} at the end\n`)
  const rows: Array<Array<string>> = []
  for (const run of runs) {
    const phases: ReadonlyArray<[string, ReadonlyArray<Probe>]> = [
      ["whole scenario", run.probes],
      ["  while the uploads arrive", run.probes.filter((p) => p.at + p.ms <= run.uploadsAnswered)],
      ["  then while they are imported", run.probes.filter((p) => p.at + p.ms > run.uploadsAnswered)]
    ]
    for (const [phase, probes] of phases) {
      const latencies = probes.map((p) => p.ms)
      const p99 = quantile(latencies, 0.99)
      const worst = latencies.length === 0 ? NaN : Math.max(...latencies)
      const isDaemon = run.server !== "plain node:http"
      rows.push([
        phase === "whole scenario" ? run.server : "",
        phase,
        phase === "whole scenario" ? run.load : "",
        phase === "whole scenario" ? `${run.accepted}/${UPLOADS} in ${(run.uploadsAnswered / 1000).toFixed(1)} s, ended ${(run.importsEnded / 1000).toFixed(1)} s` : "",
        String(latencies.length),
        String(probes.filter((p) => p.status !== 200).length),
        ms(quantile(latencies, 0.5)),
        ms(p99),
        ms(worst),
        phase === "whole scenario" && isDaemon ? mb(run.peakRss) : "",
        phase === "whole scenario" && isDaemon ? (p99 < P99_TARGET && worst < WORST_TARGET && run.accepted === UPLOADS ? "yes" : "NO") : ""
      ])
    }
  }
  printTable(["server", "probes of GET /api/v1/status", "load at start", "uploads, imports", "probes", "not 200", "p50 ms", "p99 ms", "worst ms", "peak RSS", `p99 < ${P99_TARGET}, worst < ${WORST_TARGET}`], rows)
  console.log("")
  printTable(
    ["server", "modules loaded at start", `idle RSS, median of ${IDLE_STARTS} starts (empty database)`, `idle < ${mb(IDLE_TARGET)}`, "peak RSS through the burst and its import (VmHWM)"],
    runs.filter((run) => run.server !== "plain node:http").map((run) => [run.server, String(run.modules), mb(run.idleRss), run.idleRss < IDLE_TARGET ? "yes" : "NO", mb(run.peakRss)])
  )
}

main().catch((e) => console.error("benchmark failed:", e)).finally(() => process.exit(0))
