/**
 * The athlete's change of sport, timed through the API beside a change of name in the same run:
 * 1. the built daemon (`node dist/main.js`) over a fresh STORAGE_DIR imports the corpus's long
 *    real rides (1 to 3.5 hours recorded every second or so, thousands of samples each, with
 *    power and heart rate) among BENCH_ACTIVITIES generated GPX rides and runs over six years (the
 *    records, the training load and the year caches have a history to weigh), and a segment is
 *    made on each long ride (a kilometre of it), so that a change of sport has segments to match;
 * 2. RUNS rounds over the long rides, one request at a time: `PATCH {name}` (the baseline: a
 *    plain update), then `PATCH {sportType}` from Ride to Run and back, each answer timed;
 *    p50 and worst of each, and of the figures of the activity read right after (GET);
 * 3. IDLE_CHANGES changes of sport each after the daemon has idled past the parse workers'
 *    recycling (a person reads the activity, opens its edit panel, picks the sport): the parse
 *    worker that computes it again is a fresh one.
 *
 *   npm run bench:sport-change        builds first; about a minute
 *
 * Environment: BENCH_ACTIVITIES=n (default 600), BENCH_RUNS=n (default 10), BENCH_IDLE_CHANGES=n
 * (default 3), BENCH_PROFILE_DIR=dir
 * (a CPU profile of the daemon's main thread, bench/cpuProfile.mjs). Prints target vs measured,
 * with the machine's load; always exits 0.
 */
import { Effect, Exit, Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { startChildDaemon } from "../test/support/ChildDaemon.ts"
import { gpxActivity, makeRoot } from "../test/support/ImportHarness.ts"
import { api, daemonDiagnostics, finishedRows, printTable, quantile, sleep } from "./measure.ts"

const COUNT = Number(process.env.BENCH_ACTIVITIES ?? 600)
const RUNS = Number(process.env.BENCH_RUNS ?? 10)
const IDLE_CHANGES = Number(process.env.BENCH_IDLE_CHANGES ?? 3)
/** past ParseLimits' recycleAfterIdle (10 s) and the 2 s between its checks */
const IDLE_MS = 13_000
const TARGET_MS = 1000
const CORPUS = path.join(import.meta.dirname, "..", "..", "shared", "corpus", "fit")
const LONG_RIDES = [
  "coros-pace2-ride-misaligned-fields.fit",
  "wahoo-elemnt-ride-long-pauses.fit",
  "garmin-edge1030-ride-power-dynamics.fit",
  "sigma-rox11-road-ride.fit",
  "garmin-edge810-vector-power-ride.fit"
]
const FIRST_DAY = Date.parse("2019-01-01T06:00:00Z")

const load = () => os.loadavg().map((l) => l.toFixed(2)).join(" ")

const main = async () => {
  const root = makeRoot({ LOG_LEVEL: "info", WATCH_SETTLE: "300ms" })
  const rides = LONG_RIDES.filter((name) => fs.existsSync(path.join(CORPUS, name)))
  for (const name of rides) fs.copyFileSync(path.join(CORPUS, name), path.join(root.watchDir, name))
  for (let i = 0; i < COUNT; i++) {
    const ride = i % 3 !== 0
    fs.writeFileSync(path.join(root.watchDir, `history-${i}.gpx`), gpxActivity({
      start: new Date(FIRST_DAY + i * Math.floor((6 * 365) / COUNT) * 86_400_000),
      seconds: ride ? 3600 : 2400,
      step: 5,
      speed: ride ? 7 : 3,
      name: `History ${i}`,
      type: ride ? "cycling" : "running"
    }))
  }
  // the import, then the daemon started again over it (a CPU profile, if asked, is of the changes alone)
  const importing = await start(root.env, root.apiKey)
  const files = rides.length + COUNT
  const t0 = performance.now()
  while ((await finishedRows(api(importing.daemon.baseUrl, root.apiKey))) < files) await sleep(500)
  console.log(`imported ${files} files (${rides.length} long real rides) in ${((performance.now() - t0) / 1000).toFixed(0)} s`)
  await importing.stop()

  const { daemon, stop } = await start({ ...root.env, ...daemonDiagnostics() }, root.apiKey)
  const client = api(daemon.baseUrl, root.apiKey)
  const headers = { authorization: `Bearer ${root.apiKey}`, "content-type": "application/json" }
  try {

    const ids: Array<string> = []
    for (const name of rides) {
      const found = await idOf(client, name)
      if (found !== null) ids.push(found)
    }
    const samples = await Promise.all(ids.map(async (id) => ((await (await client.get(`/api/v1/activities/${id}`)).json()) as { sportType: string; distanceInMeter: number })))
    console.log(`long rides: ${ids.length} (${samples.map((s) => `${s.sportType} ${(s.distanceInMeter / 1000).toFixed(1)} km`).join(", ")})`)
    // a kilometre of each long ride as a segment, matched before the timing starts
    for (const [i, id] of ids.entries()) {
      const made = await fetch(`${daemon.baseUrl}/api/v1/segments`, {
        method: "POST",
        headers,
        body: JSON.stringify({ name: `Climb ${i}`, activityId: id, fromDistanceInMeter: 2000, toDistanceInMeter: 3000 })
      })
      if (made.status !== 201 && made.status !== 200) console.log(`segment on ${id}: ${made.status} ${await made.text()}`)
    }
    await sleep(3000)

    const patch = async (id: string, body: Record<string, unknown>) => {
      const started = performance.now()
      const answer = await fetch(`${daemon.baseUrl}/api/v1/activities/${id}`, { method: "PATCH", headers, body: JSON.stringify(body) })
      const text = await answer.text()
      const ms = performance.now() - started
      if (answer.status !== 200) throw new Error(`PATCH ${JSON.stringify(body)}: ${answer.status} ${text}`)
      return { ms, json: JSON.parse(text) as { sportType: string } }
    }
    const named: Array<number> = []
    const changed: Array<number> = []
    const readAfter: Array<number> = []
    // one warm-up round, not counted
    for (let round = -1; round < RUNS; round++) {
      for (const id of ids) {
        const name = await patch(id, { name: `Ride ${round}` })
        const current = name.json.sportType
        const sport = await patch(id, { sportType: current === "Run" ? "Ride" : "Run" })
        const r0 = performance.now()
        await (await client.get(`/api/v1/activities/${id}`)).text()
        if (round >= 0) {
          named.push(name.ms)
          changed.push(sport.ms)
          readAfter.push(performance.now() - r0)
        }
      }
    }
    const afterIdle: Array<number> = []
    const namedAfterIdle: Array<number> = []
    for (let i = 0; i < IDLE_CHANGES; i++) {
      const id = ids[i % ids.length]!
      await sleep(IDLE_MS)
      const name = await patch(id, { name: `Idle ${i}` })
      namedAfterIdle.push(name.ms)
      await sleep(IDLE_MS)
      afterIdle.push((await patch(id, { sportType: name.json.sportType === "Run" ? "Ride" : "Run" })).ms)
    }
    console.log(`\nload average (1, 5, 15 min): ${load()} on ${os.cpus().length} cores; ${RUNS} rounds over ${ids.length} long rides`)
    printTable(["PATCH", "target", "p50", "worst", "n"], [
      ["name (baseline)", "", `${quantile(named, 0.5).toFixed(0)} ms`, `${Math.max(...named).toFixed(0)} ms`, String(named.length)],
      ["sportType Ride <-> Run", `< ${TARGET_MS} ms`, `${quantile(changed, 0.5).toFixed(0)} ms`, `${Math.max(...changed).toFixed(0)} ms`, String(changed.length)],
      ["GET right after", "", `${quantile(readAfter, 0.5).toFixed(0)} ms`, `${Math.max(...readAfter).toFixed(0)} ms`, String(readAfter.length)],
      ...(IDLE_CHANGES === 0 ? [] : [
        ["name, after 13 s idle", "", `${quantile(namedAfterIdle, 0.5).toFixed(0)} ms`, `${Math.max(...namedAfterIdle).toFixed(0)} ms`, String(namedAfterIdle.length)],
        ["sportType, after 13 s idle", `< ${TARGET_MS} ms`, `${quantile(afterIdle, 0.5).toFixed(0)} ms`, `${Math.max(...afterIdle).toFixed(0)} ms`, String(afterIdle.length)]
      ])
    ])
  } finally {
    await stop()
    fs.rmSync(root.root, { recursive: true, force: true })
  }
}

const start = async (env: Readonly<Record<string, string>>, apiKey: string) => {
  const scope = Effect.runSync(Scope.make())
  const daemon = await Effect.runPromise(startChildDaemon({ env, apiKey, built: true }).pipe(Scope.extend(scope)))
  return {
    daemon,
    stop: async () => {
      // SIGTERM: a graceful stop, so that a CPU profile is written
      await Effect.runPromise(daemon.kill("SIGTERM"))
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
}

/** The activity a file made, from the import log's rows of that name. */
const idOf = async (client: ReturnType<typeof api>, filename: string): Promise<string | null> => {
  const rows = (await (await client.get(`/api/v1/file-imports?filters[filename]=${encodeURIComponent(filename)}&pagination[size]=5`)).json()) as {
    fileImports: Array<{ filename: string; activityId: string | null }>
  }
  return rows.fileImports.find((r) => r.filename === filename)?.activityId ?? null
}

await main()
