/**
 * `npm run bench:probes`: how fast the probes answer while the daemon is loaded, beside a plain
 * node:http server measured in the same run. Starts the daemon (from source), imports 50
 * activities, then measures `GET /status` and `GET /healthz`, one probe at a time on a
 * connection of their own (each probe loop in a worker thread of its own, so that the load the
 * bench makes does not delay the probes' own timing), (a) while 1,000 connections read the
 * activity list (autocannon, in a worker thread), (b) during a burst of 200 uploads sent at once.
 * The plain server, in its own process, answers the same paths with the daemon's bytes (an
 * upload once its body is read) and goes through the same two scenarios just before the
 * daemon. Prints p50, p95, p99 and the worst answer of each probe, and the machine's load
 * average before each scenario. The target: p99 under 250 ms in both, the worst `/status` of
 * the upload burst under 250 ms.
 *
 * Environment:
 *   BENCH_PROFILE_DIR=dir  write a CPU profile of the daemon's main thread there (bench/cpuProfile.mjs)
 */
import autocannon from "autocannon"
import { Effect, Exit, Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { startChildDaemon } from "../test/support/ChildDaemon.ts"
import { dayStart, gpxActivity, makeRoot } from "../test/support/ImportHarness.ts"
import { daemonDiagnostics, printTable, type Probe, probeLoop, quantile, sleep, startPlainServer } from "./measure.ts"

const TARGET_MS = 250
const LIST_URL = "/api/v1/activities?pagination[size]=25"
const UPLOAD_URL = "/api/v1/activity/upload"

/** Probes both probes while `load` runs. */
const probedDuring = async <A>(base: string, load: () => Promise<A>) => {
  const health = probeLoop(base, "/healthz")
  const status = probeLoop(base, "/status")
  await sleep(100)
  const result = await load()
  return { result, health: await health.stop(), status: await status.stop() }
}

const loadAverage = () => os.loadavg().map((l) => l.toFixed(1)).join(", ")
const ms = (x: number) => `${x.toFixed(1)} ms`

interface Row {
  readonly scenario: string
  readonly server: string
  readonly probe: string
  readonly probes: ReadonlyArray<Probe>
  readonly worstMatters: boolean
}

const rows: Array<Row> = []
const notes: Array<string> = []

const reads = async (server: string, base: string, headers: Record<string, string>) => {
  const load = `load average ${loadAverage()}`
  const { result, health, status } = await probedDuring(base, () =>
    Promise.resolve(autocannon({ url: base + LIST_URL, connections: 1000, duration: 10, headers, workers: 1 })))
  notes.push(`1,000 concurrent reads, ${server} (${load}): ${result.requests.average.toFixed(0)} req/s, ${result.non2xx} non-2xx, ${result.errors} errors`)
  rows.push({ scenario: "1,000 reads", server, probe: "/healthz", probes: health, worstMatters: false })
  rows.push({ scenario: "1,000 reads", server, probe: "/status", probes: status, worstMatters: false })
}

const uploads = async (server: string, base: string, headers: Record<string, string>, body: string) => {
  const load = `load average ${loadAverage()}`
  const t0 = performance.now()
  const { result, health, status } = await probedDuring(base, () =>
    Promise.all(Array.from({ length: 200 }, async (_, i) => {
      const form = new FormData()
      form.append("file", new Blob([body.replace("<name>", `<name>${i} `)]), `burst-${i}.gpx`)
      const response = await fetch(base + UPLOAD_URL, { method: "POST", headers, body: form })
      await response.arrayBuffer()
      return response.status
    })))
  const answered = result.filter((s) => s >= 200 && s < 300).length
  notes.push(`200 uploads (${(body.length / 1024).toFixed(0)} KB each) at once, ${server} (${load}): ${answered} answered 2xx in ${(performance.now() - t0).toFixed(0)} ms`)
  rows.push({ scenario: "200 uploads", server, probe: "/healthz", probes: health, worstMatters: false })
  rows.push({ scenario: "200 uploads", server, probe: "/status", probes: status, worstMatters: true })
}

const main = async () => {
  const scope = Effect.runSync(Scope.make())
  const root = makeRoot({ LOG_LEVEL: "warning", WATCH_SETTLE: "300ms", ...daemonDiagnostics() })
  const daemon = await Effect.runPromise(Scope.extend(startChildDaemon({ env: root.env, apiKey: root.apiKey, readyTimeout: "300 seconds" }), scope))
  const auth = { authorization: `Bearer ${root.apiKey}` }
  for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(root.watchDir, `seed-${i}.gpx`), gpxActivity({ start: dayStart(i), seconds: 1800 }))
  for (;;) {
    const listed = await fetch(`${daemon.baseUrl}/api/v1/activities?pagination[size]=1`, { headers: auth }).then((r) => r.json() as Promise<{ pagination: { total: number } }>)
    if (listed.pagination.total >= 50) break
    await sleep(500)
  }
  const bytesOf = async (url: string, init?: RequestInit) => Buffer.from(await (await fetch(daemon.baseUrl + url, init)).arrayBuffer())
  const body = gpxActivity({ start: dayStart(500), seconds: 7200 })
  const uploadForm = new FormData()
  uploadForm.append("file", new Blob([body]), "sample.gpx")
  const plain = await startPlainServer(
    new Map([
      ["/healthz", await bytesOf("/healthz")],
      ["/status", await bytesOf("/status")],
      [LIST_URL, await bytesOf(LIST_URL, { headers: auth })],
      [UPLOAD_URL, await bytesOf(UPLOAD_URL, { method: "POST", headers: auth, body: uploadForm })]
    ])
  )
  console.log(`probes on ${os.availableParallelism()} cores (load average ${loadAverage()} at the start)`)

  await reads("plain node:http", plain.base, auth)
  await reads("daemon", daemon.baseUrl, auth)
  await uploads("plain node:http", plain.base, auth, body)
  await uploads("daemon", daemon.baseUrl, auth, body)
  plain.stop()

  for (const note of notes) console.log(`  ${note}`)
  console.log()
  printTable(
    ["scenario", "server", "probe", "probes", "not 200", "p50", "p95", "p99", "worst", `target < ${TARGET_MS} ms`, "met"],
    rows.map((row) => {
      const latencies = row.probes.map((p) => p.ms)
      const p99 = quantile(latencies, 0.99)
      const worst = Math.max(...latencies)
      const daemonRow = row.server === "daemon"
      const met = row.worstMatters ? p99 < TARGET_MS && worst < TARGET_MS : p99 < TARGET_MS
      return [
        row.scenario,
        row.server,
        row.probe,
        String(latencies.length),
        String(row.probes.filter((p) => p.status !== 200).length),
        ms(quantile(latencies, 0.5)),
        ms(quantile(latencies, 0.95)),
        ms(p99),
        ms(worst),
        daemonRow ? (row.worstMatters ? "p99 and worst" : "p99") : "",
        daemonRow ? (met ? "yes" : "NO") : ""
      ]
    })
  )
  console.log(`load average at the end: ${loadAverage()}`)

  await Effect.runPromise(daemon.kill("SIGTERM"))
  await Effect.runPromise(Scope.close(scope, Exit.void))
  fs.rmSync(root.root, { recursive: true, force: true })
}

void main()
