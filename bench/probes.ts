/**
 * `npm run bench:probes`: how fast the probes answer while the daemon is loaded. Starts the
 * daemon (from source), imports 50 activities, then measures `GET /status` and `GET /healthz`,
 * one probe at a time on a connection of their own, (a) while 1,000 connections read the
 * activity list (autocannon), (b) during a burst of 200 uploads sent at once. Prints p50, p99
 * and the worst answer of each probe, and the machine's load average beside them. The target:
 * p99 under 250 ms in both, the worst `/status` of the upload burst under 250 ms.
 */
import autocannon from "autocannon"
import { Effect, Exit, Scope } from "effect"
import * as http from "node:http"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { startChildDaemon } from "../test/support/ChildDaemon.ts"
import { dayStart, gpxActivity, makeRoot } from "../test/support/ImportHarness.ts"

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const quantile = (xs: Array<number>, q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN

/** Probes `url` one request at a time on one kept-alive connection until `until` resolves. */
const probeWhile = async (base: string, url: string, until: Promise<unknown>) => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const latencies: Array<number> = []
  let running = true
  void until.finally(() => (running = false))
  while (running) {
    const t0 = performance.now()
    await new Promise<void>((resolve) => {
      const request = http.get(base + url, { agent }, (response) => {
        response.resume()
        response.on("end", () => resolve())
      })
      request.on("error", () => resolve())
    })
    latencies.push(performance.now() - t0)
    await sleep(20)
  }
  agent.destroy()
  return latencies
}

const report = (what: string, url: string, xs: Array<number>) =>
  console.log(`  ${what} ${url}: ${xs.length} probes, p50 ${quantile(xs, 0.5).toFixed(1)} ms, p99 ${quantile(xs, 0.99).toFixed(1)} ms, worst ${Math.max(...xs).toFixed(1)} ms`)

const main = async () => {
  const scope = Effect.runSync(Scope.make())
  const root = makeRoot({ LOG_LEVEL: "warning", WATCH_SETTLE: "300ms" })
  const daemon = await Effect.runPromise(Scope.extend(startChildDaemon({ env: root.env, apiKey: root.apiKey, readyTimeout: "300 seconds" }), scope))
  const auth = { authorization: `Bearer ${root.apiKey}` }
  for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(root.watchDir, `seed-${i}.gpx`), gpxActivity({ start: dayStart(i), seconds: 1800 }))
  for (;;) {
    const listed = await fetch(`${daemon.baseUrl}/api/v1/activities?pagination[size]=1`, { headers: auth }).then((r) => r.json() as Promise<{ pagination: { total: number } }>)
    if (listed.pagination.total >= 50) break
    await sleep(500)
  }
  console.log(`probes (load average ${os.loadavg().map((l) => l.toFixed(1)).join(", ")} on ${os.availableParallelism()} cores)`)

  // (a) 1,000 concurrent reads
  const readsDone = Promise.resolve(autocannon({ url: `${daemon.baseUrl}/api/v1/activities?pagination[size]=25`, connections: 1000, duration: 10, headers: auth }))
  const [healthA, statusA, r] = await Promise.all([probeWhile(daemon.baseUrl, "/healthz", readsDone), probeWhile(daemon.baseUrl, "/status", readsDone), readsDone])
  console.log(`  1,000 concurrent reads: ${r.requests.average.toFixed(0)} req/s, ${r.non2xx} non-2xx, ${r.errors} errors`)
  report("reads", "/healthz", healthA)
  report("reads", "/status", statusA)

  // (b) 200 uploads at once
  const body = gpxActivity({ start: dayStart(500), seconds: 7200 })
  const uploads = Promise.all(Array.from({ length: 200 }, async (_, i) => {
    const form = new FormData()
    form.append("file", new Blob([body.replace("<name>", `<name>${i} `)]), `burst-${i}.gpx`)
    const response = await fetch(`${daemon.baseUrl}/api/v1/activity/upload`, { method: "POST", headers: auth, body: form })
    await response.arrayBuffer()
    return response.status
  }))
  const t0 = performance.now()
  const [healthB, statusB, statuses] = await Promise.all([probeWhile(daemon.baseUrl, "/healthz", uploads), probeWhile(daemon.baseUrl, "/status", uploads), uploads])
  console.log(`  200 uploads (${(body.length / 1024).toFixed(0)} KB each) at once: ${statuses.filter((s) => s === 202).length} answered 202 in ${(performance.now() - t0).toFixed(0)} ms`)
  report("upload burst", "/healthz", healthB)
  report("upload burst", "/status", statusB)

  await Effect.runPromise(daemon.kill("SIGTERM"))
  await Effect.runPromise(Scope.close(scope, Exit.void))
  fs.rmSync(root.root, { recursive: true, force: true })
}

void main()
