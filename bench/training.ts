/**
 * Training-analysis benchmark at the scale of a lifetime, beside a baseline measured in the
 * same run:
 * 1. 10,000 activities over ten years (2016-2025; three rides in four with power and heart rate,
 *    a run in four with heart rate, distance and altitude; 40 to 150 minutes at one sample a
 *    second, made by bench:dashboard's generator) are stored through the repositories, each
 *    with its training analysis, under one set of thresholds;
 * 2. the built daemon (`node dist/main.js`) over them answers the training load over the ten
 *    years and the power curve of the whole history (and of the last 90 days): each answer's
 *    first time after a commit (nothing kept: the work done) with the daemon's CPU for it, and
 *    its p99 once kept, beside a plain node:http server answering the same bytes;
 * 3. the FTP changes (one POST): every activity's training load is recomputed in the
 *    background, timed by the daemon's own log line, while clients keep asking `GET
 *    /api/v1/status` (p99 meanwhile, beside the same clients on the quiet daemon);
 * 4. the analysis of every activity is dropped and the daemon started again: it analyses them
 *    all from their stored streams (the upgrade path), /status asked meanwhile.
 *
 *   npm run bench:training       builds first; a few minutes
 *
 * Environment: BENCH_ACTIVITIES=n (default 10000), BENCH_CLIENTS=n (/status clients, default 8),
 * BENCH_SKIP_REANALYSIS=1 (skips step 4). Prints target vs measured; always exits 0.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Exit, Layer, Scope } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import type { EncodedActivityDraft } from "../src/schema/ActivityDraft.ts"
import { ActivityRepo } from "../src/services/activities/ActivityRepo.ts"
import { encodeDraft } from "../src/services/activities/StreamsCodec.ts"
import { type ChildDaemon, startChildDaemon } from "../test/support/ChildDaemon.ts"
import { makeRoot, type Root, servicesLayer } from "../test/support/ImportHarness.ts"
import { generatedRide } from "./generatedActivities.ts"
import { cpuMillisOf, printTable, quantile, sleep, startPlainServer } from "./measure.ts"

const COUNT = Number(process.env.BENCH_ACTIVITIES ?? 10_000)
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8)
const SKIP_REANALYSIS = process.env.BENCH_SKIP_REANALYSIS === "1"
/** First answers timed per request, each after a commit */
const RUNS = 30
const FIRST_DAY = Date.parse("2016-01-01T00:00:00Z")
const DAYS = 3653
const TARGET_ANSWER_MS = 50
const TARGET_RECOMPUTE_S = 60
const TARGET_STATUS_P99_MS = 50

const TEN_YEARS = "/api/v1/stats/training-load?filters[from]=2016-01-01&filters[to]=2025-12-31"
const WHOLE_CURVE = "/api/v1/stats/power-curve"
const RECENT_CURVE = "/api/v1/stats/power-curve?filters[from]=2025-10-03&filters[to]=2025-12-31"
const STATUS = "/api/v1/status"

// ---------------------------------------------------------------------------------------
// Seeding

/** 32 kinds of outing, each encoded once: 24 rides of 40 to 150 minutes and efforts 0.75 to 1.15, 8 runs. */
const variants = (): Array<EncodedActivityDraft> =>
  Array.from({ length: 32 }, (_, k) => {
    const seconds = 2400 + ((k * 7) % 12) * 600
    const ride = generatedRide({ seconds, effort: 0.75 + ((k * 5) % 9) * 0.05, name: `Outing ${k}` })
    if (k % 4 !== 3) return encodeDraft(ride)
    const { watts: _watts, cadence: _cadence, latlng: _latlng, ...streams } = ride.streams
    return encodeDraft({ ...ride, sportType: "Run", averagePower: null, maxPower: null, hasGpx: false, encodedPolyline: null, streams })
  })

const seed = async (root: Root) => {
  const kinds = variants()
  await Effect.runPromise(Effect.gen(function*() {
    const repo = yield* ActivityRepo
    const sql = yield* SqlClient.SqlClient
    yield* sql`INSERT INTO athlete_thresholds ("on", cycling_ftp, max_heart_rate, resting_heart_rate, lactate_threshold_heart_rate)
      VALUES ('2015-01-01', 250, 190, 50, 170)`
    for (let batch = 0; batch < COUNT; batch += 500) {
      yield* sql.withTransaction(Effect.gen(function*() {
        for (let i = batch; i < Math.min(COUNT, batch + 500); i++) {
          const kind = kinds[(i * 13) % kinds.length]!
          const startTime = FIRST_DAY + Math.floor((i * DAYS) / COUNT) * 86_400_000 + 7 * 3_600_000 + (i % 3) * 3_600_000
          yield* repo.insert(`activity-bench-${i}`, { ...kind, startTime, startDateLocal: new Date(startTime + 3_600_000).toISOString().slice(0, 19) })
        }
      }))
    }
  }).pipe(Effect.provide(servicesLayer(root).pipe(Layer.orDie))))
}

/** Drops every activity's analysis, as a version before it left them. */
const dropAnalyses = (root: Root) =>
  Effect.runPromise(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`DELETE FROM activity_training`
    yield* sql`DELETE FROM activity_power_curve`
  }).pipe(Effect.provide(servicesLayer(root).pipe(Layer.orDie))))

// ---------------------------------------------------------------------------------------
// Requests

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 })

const request = (base: string, method: string, pathAndQuery: string, key: string | null, body?: unknown) =>
  new Promise<{ status: number; bytes: Buffer; millis: number }>((resolve, reject) => {
    const started = performance.now()
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body))
    const req = http.request(base + pathAndQuery, {
      method,
      agent,
      headers: { ...(key === null ? {} : { authorization: `Bearer ${key}` }), ...(payload === undefined ? {} : { "content-type": "application/json", "content-length": payload.length }) }
    }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, bytes: Buffer.concat(chunks), millis: performance.now() - started }))
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end(payload)
  })

/** `clients` loops asking `pathAndQuery` one request after the other until `done()`; every latency (ms). */
const latenciesWhile = async (base: string, pathAndQuery: string, key: string | null, clients: number, done: () => boolean) => {
  const latencies: Array<number> = []
  let failures = 0
  await Promise.all(Array.from({ length: clients }, async () => {
    while (!done()) {
      const answer = await request(base, "GET", pathAndQuery, key)
      if (answer.status !== 200) failures++
      latencies.push(answer.millis)
    }
  }))
  return { latencies, failures }
}

const forMillis = (ms: number) => {
  const end = Date.now() + ms
  return () => Date.now() >= end
}

/**
 * The first answer after a commit (a weight saved: every kept answer is dropped), `runs` times:
 * each one's time, and the daemon's CPU per answer (its CPU over the runs, less that of as many
 * commits alone: load-independent, where the times are not on a shared machine).
 */
const firstAnswers = async (daemon: ChildDaemon, key: string, pathAndQuery: string | null, runs: number) => {
  const times: Array<number> = []
  const cpu = cpuMillisOf(daemon.pid)
  for (let i = 0; i < runs; i++) {
    const saved = await request(daemon.baseUrl, "POST", "/api/v1/athlete/weights", key, { on: `2030-01-${String((i % 28) + 1).padStart(2, "0")}`, weight: 70 + i / 100 })
    if (saved.status !== 200) throw new Error(`a weight was refused: ${saved.status}`)
    if (pathAndQuery === null) continue
    const answer = await request(daemon.baseUrl, "GET", pathAndQuery, key)
    if (answer.status !== 200) throw new Error(`${pathAndQuery} answered ${answer.status}: ${answer.bytes.toString()}`)
    times.push(answer.millis)
  }
  return { times, cpuPerRun: (cpuMillisOf(daemon.pid) - cpu) / runs }
}

/** The daemon's log lines (the daemon channel). */
const daemonLog = (root: Root): Array<string> => {
  const dir = path.join(root.storageDir, "files", "logs")
  if (!fs.existsSync(dir)) return []
  return fs.readdirSync(dir).filter((n) => n.startsWith("daemon-")).flatMap((n) =>
    fs.readFileSync(path.join(dir, n), "utf8").split("\n").filter((l) => l !== "").map((l) => (JSON.parse(l) as { message: string }).message))
}

/** The largest of many values (spread into Math.max, millions overflow the stack). */
const largest = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => (b > a ? b : a), -Infinity)

const ms = (x: number | undefined) => (x === undefined ? "-" : `${x.toFixed(x < 10 ? 1 : 0)} ms`)
const met = (ok: boolean) => (ok ? "yes" : "NO")

// ---------------------------------------------------------------------------------------

const startDaemon = async (root: Root, scope: Scope.CloseableScope) =>
  Effect.runPromise(startChildDaemon({ env: { ...root.env, LOG_LEVEL: "warning" }, apiKey: root.apiKey, built: true, readyTimeout: "5 minutes" }).pipe(Scope.extend(scope)))

const main = async () => {
  const root = makeRoot()
  const scopes: Array<Scope.CloseableScope> = []
  const load = () => os.loadavg().map((l) => l.toFixed(1)).join(" ")
  try {
    const seedStart = performance.now()
    await seed(root)
    const dbBytes = fs.statSync(path.join(root.storageDir, "database", "waymark.sqlite")).size
    console.log(`seeded ${COUNT.toLocaleString("en-US")} activities over ten years in ${((performance.now() - seedStart) / 1000).toFixed(1)} s (database ${(dbBytes / 1048576).toFixed(0)} MB); load average ${load()}`)

    scopes.push(Effect.runSync(Scope.make()))
    const daemon = await startDaemon(root, scopes[0]!)
    const key = root.apiKey

    // 2. the history's answers, beside a plain server answering the same bytes
    const bodies = new Map<string, Buffer>()
    for (const p of [TEN_YEARS, WHOLE_CURVE, RECENT_CURVE, STATUS]) bodies.set(p, (await request(daemon.baseUrl, "GET", p, key)).bytes)
    const days = (JSON.parse(bodies.get(TEN_YEARS)!.toString()) as { days: Array<unknown> }).days.length
    const plain = await startPlainServer(bodies)
    const rows: Array<Array<string>> = []
    try {
      for (const [label, p] of [[`training load, ten years (${days.toLocaleString("en-US")} days)`, TEN_YEARS], ["power curve, whole history", WHOLE_CURVE], ["power curve, last 90 days", RECENT_CURVE]] as const) {
        const commits = await firstAnswers(daemon, key, null, RUNS)
        const first = await firstAnswers(daemon, key, p, RUNS)
        const kept = await latenciesWhile(daemon.baseUrl, p, key, 1, forMillis(3000))
        const baseline = await latenciesWhile(plain.base, p, null, 1, forMillis(3000))
        const p90 = quantile(first.times, 0.9)!
        rows.push([label, `${ms(quantile(first.times, 0.5))} / ${ms(p90)}`, ms(Math.max(0, first.cpuPerRun - commits.cpuPerRun)), ms(quantile(kept.latencies, 0.99)),
          ms(quantile(baseline.latencies, 0.99)), `< ${TARGET_ANSWER_MS} ms`, met(p90 < TARGET_ANSWER_MS)])
      }
    } finally {
      plain.stop()
    }
    console.log(`\nanswers (one client; "first": after a commit, nothing kept, ${RUNS} times; load average ${load()})\n`)
    printTable(["request", "first p50 / p90", "daemon CPU, first", "kept p99", "plain server p99", "target (first)", "met"], rows)

    // 3. an FTP change recomputes every activity's load while /status is asked
    const quiet = await latenciesWhile(daemon.baseUrl, STATUS, key, CLIENTS, forMillis(5000))
    const before = daemonLog(root).length
    let recomputed: string | undefined
    let posted = 0
    const startedAt = performance.now()
    const during = latenciesWhile(daemon.baseUrl, STATUS, key, CLIENTS, () => recomputed !== undefined)
    await sleep(200)
    const change = await request(daemon.baseUrl, "POST", "/api/v1/athlete/thresholds", key, { on: "2015-01-01", cyclingFtp: 270, maxHeartRate: 190, restingHeartRate: 50, lactateThresholdHeartRate: 170 })
    posted = change.millis
    const changedAt = performance.now()
    while (recomputed === undefined) {
      recomputed = daemonLog(root).slice(before).find((l) => l.startsWith("training load recomputed for"))
      if (recomputed === undefined) await sleep(20)
      if (performance.now() - startedAt > 300_000) throw new Error("no recompute within 5 minutes")
    }
    const wall = (performance.now() - changedAt) / 1000
    const statusDuring = await during
    console.log(`\nan FTP change (POST answered in ${ms(posted)}, status ${change.status}): "${recomputed}", ${wall.toFixed(2)} s from the answer to the log line; load average ${load()}\n`)
    printTable(["GET /api/v1/status", "requests", "p50", "p99", "max", "target", "met"], [
      [`quiet daemon, ${CLIENTS} clients`, String(quiet.latencies.length), ms(quantile(quiet.latencies, 0.5)), ms(quantile(quiet.latencies, 0.99)), ms(largest(quiet.latencies)), "", ""],
      [`while the loads are recomputed, ${CLIENTS} clients`, String(statusDuring.latencies.length), ms(quantile(statusDuring.latencies, 0.5)), ms(quantile(statusDuring.latencies, 0.99)),
        ms(largest(statusDuring.latencies)), `p99 < ${TARGET_STATUS_P99_MS} ms`, met(quantile(statusDuring.latencies, 0.99) < TARGET_STATUS_P99_MS && statusDuring.failures === 0)]
    ])
    console.log(`recompute of ${COUNT.toLocaleString("en-US")} activities: ${wall.toFixed(2)} s (target < ${TARGET_RECOMPUTE_S} s: ${met(wall < TARGET_RECOMPUTE_S)})`)
    const curve = JSON.parse((await request(daemon.baseUrl, "GET", WHOLE_CURVE, key)).bytes.toString()) as { estimatedFtp: number | null; estimatedFtpMethod: string | null }
    console.log(`estimated FTP of the whole history: ${curve.estimatedFtp} W (${curve.estimatedFtpMethod})`)
    await Effect.runPromise(Scope.close(scopes.shift()!, Exit.void))

    // 4. every analysis computed again from the stored streams (an upgrade), /status asked meanwhile
    if (!SKIP_REANALYSIS) {
      await dropAnalyses(root)
      const logged = daemonLog(root).length
      scopes.push(Effect.runSync(Scope.make()))
      const again = await startDaemon(root, scopes[0]!)
      const t0 = performance.now()
      let analysed: string | undefined
      const meanwhile = latenciesWhile(again.baseUrl, STATUS, key, CLIENTS, () => analysed !== undefined)
      while (analysed === undefined) {
        analysed = daemonLog(root).slice(logged).find((l) => l.startsWith("training analysis computed from the stored streams"))
        if (analysed === undefined) await sleep(100)
        if (performance.now() - t0 > 900_000) throw new Error("no analysis within 15 minutes")
      }
      const status = await meanwhile
      console.log(`\nan upgrade: "${analysed}"; load average ${load()}`)
      console.log(`GET /api/v1/status meanwhile (${CLIENTS} clients): ${status.latencies.length} requests, p50 ${ms(quantile(status.latencies, 0.5))}, p99 ${ms(quantile(status.latencies, 0.99))}, max ${ms(largest(status.latencies))}`)
    }
  } finally {
    for (const scope of scopes) await Effect.runPromise(Scope.close(scope, Exit.void))
    agent.destroy()
    fs.rmSync(root.root, { recursive: true, force: true })
  }
}

await main()
