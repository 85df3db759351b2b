/**
 * The athlete's year at scale: with 10,000 activities (bench:dashboard's generated ones, over
 * nine years, in nine time zones, rides and runs on three bikes and a pair of shoes), how long
 * each route of the calendar, the streaks, the milestones, the year in review and the gear's
 * components takes to answer, beside what the same daemon takes for /stats/totals (a statistic
 * already there) and /status, and a plain node:http server sending the same bytes in the same run.
 *
 * The built daemon (`node dist/main.js`) runs over a fresh storage seeded through the
 * repositories. Each request is sent one at a time over one connection:
 * - first answer: right after a commit (a weight saved), so that nothing kept serves it (the
 *   milestones and the year in review walk the whole history again), RUNS times;
 * - kept: RUNS times more with no commit between them;
 * - for the milestones and the year in review, which walk the whole history: the first answer
 *   after an activity changed its sport type (the walk starts again from the first activity),
 *   and after a new activity was imported (a GPX run uploaded, its import waited for: the walk
 *   goes on over it), IMPORTS times each.
 *
 *   npm run bench:year        builds first; about a minute
 *
 * Beside the times, the daemon's CPU per answer (from /proc, user and system time of all its
 * threads over the RUNS requests, less what as many commits and /status requests took): the
 * times follow the machine's load, the CPU much less.
 *
 * Environment: BENCH_ACTIVITIES=n (default 10000), BENCH_RUNS=n (default 15),
 * BENCH_PROFILE_DIR=dir (a CPU profile of the daemon's main thread, bench/cpuProfile.mjs).
 * Prints target vs measured; always exits 0.
 */
import { Effect, Exit, Layer, Scope } from "effect"
import * as os from "node:os"
import * as fs from "node:fs"
import { GearRepo } from "../src/services/activities/GearRepo.ts"
import { GearComponents } from "../src/services/gear/GearComponents.ts"
import { startChildDaemon } from "../test/support/ChildDaemon.ts"
import { seedGenerated } from "../test/support/generatedActivities.ts"
import { gpxActivity, makeRoot, servicesLayer } from "../test/support/ImportHarness.ts"
import { cpuMillisOf, daemonDiagnostics, printTable, quantile, startPlainServer } from "./measure.ts"

const COUNT = Number(process.env.BENCH_ACTIVITIES ?? 10_000)
const RUNS = Number(process.env.BENCH_RUNS ?? 15)
const IMPORTS = 8
const TARGET_MS = 50
const GEAR = ["gear-bench-road", "gear-bench-gravel", "gear-bench-commuter", "gear-bench-shoes"]

const seed = (root: ReturnType<typeof makeRoot>) =>
  Effect.runPromise(Effect.gen(function*() {
    const gear = yield* GearRepo
    const components = yield* GearComponents
    for (const id of GEAR) yield* gear.upsert({ id, name: id.replace("gear-bench-", ""), type: "custom", isRetired: false })
    yield* seedGenerated(COUNT, { gearIds: GEAR })
    const ids: Array<string> = []
    for (const [name, interval] of [["Chain", 3_000_000], ["Tyres", 5_000_000], ["Cassette", 10_000_000]] as const) {
      ids.push(yield* components.create(GEAR[0]!, { name, installedOn: "2016-01-01", intervalInMeter: interval, intervalInSeconds: 200 * 3600, intervalInDays: 365 }))
    }
    yield* components.addService(ids[0]!, "2020-06-01", "new chain")
    return ids
  }).pipe(Effect.provide(servicesLayer(root).pipe(Layer.orDie))))

const main = async () => {
  const root = makeRoot()
  const scope = Effect.runSync(Scope.make())
  try {
    const seedStart = performance.now()
    const componentIds = await seed(root)
    console.log(`seeded ${COUNT} activities in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`)
    const profileDir = process.env.BENCH_PROFILE_DIR
    const env = {
      ...root.env,
      LOG_LEVEL: "warning",
      ...daemonDiagnostics()
    }
    const daemon = await Effect.runPromise(startChildDaemon({ env, apiKey: root.apiKey, built: true }).pipe(Scope.extend(scope)))
    const headers = { authorization: `Bearer ${root.apiKey}` }
    const request = async (base: string, path: string, init: RequestInit = {}) => {
      const start = performance.now()
      const response = await fetch(`${base}${path}`, { ...init, headers: { ...headers, ...init.headers } })
      const body = Buffer.from(await response.arrayBuffer())
      const ms = performance.now() - start
      if (!response.ok) throw new Error(`${path} answered ${response.status}: ${body.toString("utf8").slice(0, 300)}`)
      return { ms, body }
    }
    let weight = 0
    /** A commit: the next answer of every route reads the database again. */
    const commit = () =>
      request(daemon.baseUrl, "/api/v1/athlete/weights", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ on: "2020-01-01", weight: 60 + (weight++ % 20) })
      })

    const gearPath = `/api/v1/gear/${GEAR[0]}/components`
    const rows: ReadonlyArray<readonly [string, string]> = [
      ["calendar of a month", "/api/v1/stats/calendar?filters[month]=2022-03"],
      ["calendar of a month, runs", "/api/v1/stats/calendar?filters[month]=2022-03&filters[sportType]=Run,TrailRun"],
      ["streaks", "/api/v1/stats/streaks"],
      ["milestones", "/api/v1/milestones"],
      ["year in review", "/api/v1/stats/year-in-review?filters[year]=2021"],
      ["a gear's 3 components", gearPath],
      ["one component", `${gearPath}/${componentIds[0]}`],
      ["baseline: /stats/totals per month", "/api/v1/stats/totals?filters[period]=month"],
      ["baseline: /status", "/api/v1/status"]
    ]
    // warm-up: the daemon's first read of these rows and its compiled code
    for (const [, path] of rows) for (let i = 0; i < 3; i++) await request(daemon.baseUrl, path)
    const bodies = new Map<string, Buffer>()
    const measured: Array<{ label: string; path: string; first: Array<number>; kept: Array<number>; bytes: number; firstCpu: number; keptCpu: number }> = []
    /** The daemon's CPU per round of `round` (ms), over `rounds` rounds. */
    const cpuPer = async (round: (i: number) => Promise<unknown>, rounds = RUNS) => {
      const before = cpuMillisOf(daemon.pid)
      for (let i = 0; i < rounds; i++) await round(i)
      return (cpuMillisOf(daemon.pid) - before) / rounds
    }
    // what a commit and a request of nothing take, to leave out of the rows' CPU
    const overhead = await cpuPer(async () => {
      await commit()
      await request(daemon.baseUrl, "/api/v1/status")
    })
    for (const [label, path] of rows) {
      const first: Array<number> = []
      const kept: Array<number> = []
      const firstCpu = await cpuPer(async () => {
        await commit()
        first.push((await request(daemon.baseUrl, path)).ms)
      })
      const keptCpu = await cpuPer(async () => {
        const answer = await request(daemon.baseUrl, path)
        kept.push(answer.ms)
        bodies.set(path, answer.body)
      })
      measured.push({ label, path, first, kept, bytes: bodies.get(path)!.length, firstCpu: firstCpu - overhead, keptCpu })
    }
    // a new activity imported: what walks the whole history reads it (and its best efforts) too
    let uploads = 0
    const importOne = async () => {
      const n = uploads++
      const name = `bench-run-${n}.gpx`
      const form = new FormData()
      const start = new Date(Date.parse("2025-03-01T07:00:00Z") + n * 86_400_000)
      form.append("file", new Blob([gpxActivity({ start, seconds: 1800, step: 5, lat: 50.85, lng: 4.35, speed: 3.2, type: "running", name: `Run ${n}` })]), name)
      await request(daemon.baseUrl, "/api/v1/activity/upload", { method: "POST", body: form })
      for (let i = 0; i < 400; i++) {
        const rows = JSON.parse((await request(daemon.baseUrl, `/api/v1/file-imports?filters[filename]=${name}`)).body.toString("utf8")).fileImports
        if (rows[0]?.status === "success") return
        if (rows[0]?.status === "failed") throw new Error(`${name}: ${rows[0].errorMessage}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      throw new Error(`${name} was not imported`)
    }
    let changes = 0
    const changeOne = () =>
      request(daemon.baseUrl, "/api/v1/activities/activity-generated-5000", {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ sportType: changes++ % 2 === 0 ? "Hike" : "Walk" })
      })
    const afterImport: Array<{ label: string; times: Array<number>; cpu: number }> = []
    for (const [what, before] of [["an activity changed", changeOne], ["an import", importOne]] as const) {
      // what the change itself and a request of nothing take, to leave out of the rows' CPU (an
      // import's own CPU, parsing on the daemon's worker threads, varies far more than the answer's)
      const alone = what === "an import" ? NaN : await cpuPer(async () => {
        await before()
        await request(daemon.baseUrl, "/api/v1/status")
      }, IMPORTS)
      for (const [route, path] of [["milestones", "/api/v1/milestones"], ["year in review", "/api/v1/stats/year-in-review?filters[year]=2021"]] as const) {
        const times: Array<number> = []
        const cpu = await cpuPer(async () => {
          await before()
          times.push((await request(daemon.baseUrl, path)).ms)
        }, IMPORTS)
        afterImport.push({ label: `${route}, after ${what}`, times, cpu: cpu - alone })
      }
    }
    // a write: a service recorded (the answer reads the component again)
    const service: Array<number> = []
    for (let i = 0; i < RUNS; i++) {
      service.push((await request(daemon.baseUrl, `${gearPath}/${componentIds[1]}/service`, { method: "POST" })).ms)
    }
    const plain = await startPlainServer(bodies)
    const plainMs = new Map<string, Array<number>>()
    try {
      for (const { path } of measured) {
        const times: Array<number> = []
        for (let i = 0; i < RUNS + 3; i++) times.push((await request(plain.base, path)).ms)
        plainMs.set(path, times.slice(3))
      }
    } finally {
      plain.stop()
    }
    const ms = (x: number | undefined) => `${(x ?? NaN).toFixed(1)} ms`
    console.log(`\n${COUNT} activities, ${RUNS} requests each, one at a time; load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}\n`)
    printTable(["route", "first answer p50 / max", "CPU", "kept p50 / max", "CPU", "plain server p50", "bytes", `target <= ${TARGET_MS} ms`, "met"], [
      ...measured.map(({ label, path, first, kept, bytes, firstCpu, keptCpu }) => {
        const baseline = label.startsWith("baseline")
        return [
          label,
          `${ms(quantile(first, 0.5))} / ${ms(Math.max(...first))}`,
          ms(firstCpu),
          `${ms(quantile(kept, 0.5))} / ${ms(Math.max(...kept))}`,
          ms(keptCpu),
          ms(quantile(plainMs.get(path)!, 0.5)),
          bytes.toLocaleString("en-US"),
          baseline ? "" : "first answer max",
          baseline ? "" : Math.max(...first) <= TARGET_MS ? "yes" : "NO"
        ]
      }),
      ...afterImport.map(({ label, times, cpu }) =>
        [label, `${ms(quantile(times, 0.5))} / ${ms(Math.max(...times))}`, Number.isNaN(cpu) ? "" : ms(cpu), "", "", "", "", "first answer max", Math.max(...times) <= TARGET_MS ? "yes" : "NO"]),
      ["POST a component's service (201)", "", "", `${ms(quantile(service, 0.5))} / ${ms(Math.max(...service))}`, "", "", "", "max", Math.max(...service) <= TARGET_MS ? "yes" : "NO"]
    ])
    console.log(`\nCPU: the daemon's user and system time per answer, all threads (clock ticks of 10 ms over ${RUNS} answers); a first answer's less a commit and /status (${ms(overhead)})`)
    // a graceful stop, so that a CPU profile is written
    if (profileDir) await Effect.runPromise(daemon.kill("SIGTERM"))
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    fs.rmSync(root.root, { recursive: true, force: true })
  }
}

await main()
