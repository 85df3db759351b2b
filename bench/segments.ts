/**
 * Segments on a lifetime: ACTIVITIES generated rides and runs of 3,600 samples (one a second,
 * 3 m of GPS scatter) wandering the streets of one grid town (test/support/gridTown.ts, here
 * TOWN × TOWN blocks of 200 m), stored through the repositories; then
 *
 * (a) a new segment matched against the whole history: POST /segments, then the time until its
 *     page says its background matching is done (polled every 20 ms; the upkeep looks for new
 *     segments every second, so up to a second of it is that wait), for SEGMENTS streets;
 * (b) a new import checked against 500 segments: the time ActivityRepo.insert takes for one
 *     activity of the same kind with 500 segments of the town stored, beside the same insert with
 *     none (measured in this process, before the daemon starts; the 500 are removed after);
 * (c) every segment route's answer time, one request at a time over one connection, RUNS times,
 *     beside a plain node:http server sending the same bytes in the same run.
 *
 *   npm run bench:segments                        builds first; the 10,000 activities
 *   npm run bench:segments -- --activities 1000   a quick run
 *   npm run bench:segments -- --keep DIR          the town stored in DIR and kept; a later run
 *                                                 with the same DIR measures (a) and (c) over it
 *                                                 without storing it again ((b) is then skipped)
 *
 * Environment: BENCH_RUNS=n (default 50), BENCH_PROFILE_DIR=dir (a CPU profile of the daemon's
 * main thread, bench/cpuProfile.mjs), BENCH_LOG_LEVEL (the daemon's, default warning: its output
 * is printed when a request fails). Prints target vs measured; always exits 0.
 */
import { Effect, Exit, Layer, Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { parseArgs } from "node:util"
import type { ActivityDraft } from "../src/schema/ActivityDraft.ts"
import { ActivityRepo } from "../src/services/activities/ActivityRepo.ts"
import { encodeDraft } from "../src/services/activities/StreamsCodec.ts"
import { Segments } from "../src/services/segments/Segments.ts"
import { startChildDaemon } from "../test/support/ChildDaemon.ts"
import { blocksOf, type Corner, corner, ORIGIN, recordPath, seeded, streetPath } from "../test/support/gridTown.ts"
import { makeRoot, servicesLayer } from "../test/support/ImportHarness.ts"
import { makeDraft } from "../test/support/TestDaemon.ts"
import { daemonDiagnostics, printTable, quantile, startPlainServer } from "./measure.ts"

const { values } = parseArgs({ options: { activities: { type: "string", default: "10000" }, keep: { type: "string" } } })
const COUNT = Number(values.activities)
const RUNS = Number(process.env.BENCH_RUNS ?? 50)
const SAMPLES = 3600
/** the town's width and height in blocks */
const TOWN = 20
const SEGMENTS = 3
const MANY_SEGMENTS = 500
const INSERTS = 20
const TARGET = { history: 5000, import: 200, route: 50 }

/** A wander through the town from corner to neighbouring corner, never straight back. */
const wander = (seed: number, blocks: number): Array<Corner> => {
  const random = seeded(seed)
  let at: Corner = [Math.floor(random() * (TOWN + 1)), Math.floor(random() * (TOWN + 1))]
  const out: Array<Corner> = [at]
  let previous: Corner | null = null
  while (out.length <= blocks) {
    const next = ([[1, 0], [-1, 0], [0, 1], [0, -1]] as const)
      .map(([dx, dy]): Corner => [at[0] + dx, at[1] + dy])
      .filter(([x, y]) => x >= 0 && y >= 0 && x <= TOWN && y <= TOWN && !(previous !== null && x === previous[0] && y === previous[1]))
    // straight on three times in five where the street goes on, as a ride or run mostly does
    const straight = previous === null ? undefined : next.find(([x, y]) => x - at[0] === at[0] - previous![0] && y - at[1] === at[1] - previous![1])
    const step: Corner = straight !== undefined && random() < 0.6 ? straight : next[Math.floor(random() * next.length)]!
    previous = at
    at = step
    out.push(at)
  }
  return out
}

/** The i-th activity: a ride (7.5 m/s) or a run (3 m/s) in turn, a day apart, 3,600 samples. */
const townActivity = (i: number): ActivityDraft => {
  const ride = i % 2 === 0
  const speed = (ride ? 7.5 : 3) * (1 + ((i * 37) % 21 - 10) / 100)
  const route = wander(i + 1, Math.ceil((speed * SAMPLES) / 200) + 1)
  const track = recordPath(streetPath(route), { speed, noise: 3, seed: i + 1 })
  const n = Math.min(SAMPLES, track.time.length)
  const cut = Object.fromEntries(Object.entries(track).map(([k, v]) => [k, (v as Array<unknown>).slice(0, n)])) as unknown as typeof track
  // hills: the town's altitude rises and falls 140 m over a few kilometres, up to 10 % steep
  const streams = { ...cut, altitude: cut.latlng.map(([lat, lon]) => {
    const [east, north] = [(lon - ORIGIN.lon) * 70_000, (lat - ORIGIN.lat) * 111_200]
    return Math.round((80 + 40 * Math.sin(east / 400) + 30 * Math.cos(north / 350)) * 10) / 10
  }) }
  const startTime = Date.parse("2025-12-31T07:00:00Z") - i * 86_400_000
  return makeDraft({
    name: `${ride ? "Ride" : "Run"} in town ${i}`,
    sportType: ride ? "Ride" : "Run",
    startTime,
    startDateLocal: new Date(startTime + 3_600_000).toISOString().slice(0, 19),
    distanceInMeter: Math.round(streams.distance[n - 1]!),
    movingTimeInSeconds: n,
    elapsedTimeInSeconds: n,
    streams
  })
}

/** A street of `blocks` blocks from corner `from`, east or north, as [lat, lon] points. */
const streetLine = (from: Corner, blocks: number, east: boolean) =>
  blocksOf([from, east ? [from[0] + blocks, from[1]] : [from[0], from[1] + blocks]]).map(corner)

const ms = (x: number | undefined) => `${(x ?? NaN).toFixed(1)} ms`
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(" ")

const seedAndMeasureImport = (root: ReturnType<typeof makeRoot>) =>
  Effect.runPromise(Effect.gen(function*() {
    const repo = yield* ActivityRepo
    const segments = yield* Segments
    const started = performance.now()
    for (let i = 0; i < COUNT; i++) {
      yield* repo.insert(`activity-town-${i}`, encodeDraft(townActivity(i)))
      if (i > 0 && i % 1000 === 0) console.log(`  ${i} stored (${((performance.now() - started) / 1000).toFixed(0)} s)`)
    }
    const seedSeconds = (performance.now() - started) / 1000
    // (b): the same kind of activity inserted with no segment, then with MANY_SEGMENTS of the town's streets
    const drafts = Array.from({ length: 2 * INSERTS }, (_, k) => encodeDraft(townActivity(COUNT + k)))
    const timeInserts = (from: number) =>
      Effect.gen(function*() {
        const times: Array<number> = []
        for (let k = from; k < from + INSERTS; k++) {
          const t0 = performance.now()
          yield* repo.insert(`activity-extra-${k}`, drafts[k]!)
          times.push(performance.now() - t0)
        }
        return times
      })
    const none = yield* timeInserts(0)
    const random = seeded(44)
    const ids: Array<string> = []
    for (let k = 0; k < MANY_SEGMENTS; k++) {
      const east = random() < 0.5
      const blocks = 1 + Math.floor(random() * 3)
      const from: Corner = [Math.floor(random() * (TOWN - (east ? blocks : 0) + 1)), Math.floor(random() * (TOWN - (east ? 0 : blocks) + 1))]
      ids.push(yield* segments.create({ name: `Street ${k}`, points: streetLine(from, blocks, east) }).pipe(Effect.orDie))
    }
    const many = yield* timeInserts(INSERTS)
    // the 500 would otherwise be matched against the whole history by the daemon's upkeep
    for (const id of ids) yield* segments.remove(id)
    for (let k = 0; k < 2 * INSERTS; k++) yield* repo.remove(`activity-extra-${k}`)
    return { seedSeconds, none, many, made: ids.length }
  }).pipe(Effect.provide(Segments.Default.pipe(Layer.provideMerge(servicesLayer(root)), Layer.orDie))))

/** The root kept in `dir` (its key and folders as makeRoot makes them), and whether its town is already stored. */
const keptRoot = (dir: string): { root: ReturnType<typeof makeRoot>; seeded: boolean } => {
  const marker = path.join(dir, `seeded-${COUNT}`)
  const seeded = fs.existsSync(marker)
  if (!seeded) fs.rmSync(dir, { recursive: true, force: true })
  fs.mkdirSync(dir, { recursive: true })
  const made = makeRoot()
  fs.rmSync(made.root, { recursive: true, force: true })
  const storageDir = path.join(dir, "storage")
  const watchDir = path.join(dir, "watch")
  fs.mkdirSync(storageDir, { recursive: true })
  fs.mkdirSync(watchDir, { recursive: true })
  const root = { ...made, root: dir, storageDir, watchDir, originalsDir: path.join(storageDir, "files", "originals"), env: { ...made.env, STORAGE_DIR: storageDir, WATCH_DIR: watchDir } }
  return { root, seeded }
}

const main = async () => {
  const kept = values.keep === undefined ? null : keptRoot(path.resolve(values.keep))
  const root = kept?.root ?? makeRoot()
  const scope = Effect.runSync(Scope.make())
  try {
    let imported: { seedSeconds: number; none: Array<number>; many: Array<number>; made: number } | null = null
    if (kept?.seeded === true) {
      console.log(`the town of ${COUNT} activities kept in ${root.root}: not stored again, (b) not measured`)
    } else {
      console.log(`storing ${COUNT} activities of ${SAMPLES} samples in a town of ${TOWN} × ${TOWN} blocks ...`)
      imported = await seedAndMeasureImport(root)
      console.log(`stored in ${imported.seedSeconds.toFixed(1)} s; load average ${load()}`)
      if (kept !== null) fs.writeFileSync(path.join(root.root, `seeded-${COUNT}`), "")
    }
    const profileDir = process.env.BENCH_PROFILE_DIR
    const daemon = await Effect.runPromise(
      startChildDaemon({ env: { ...root.env, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "warning", ...daemonDiagnostics() }, apiKey: root.apiKey, built: true }).pipe(Scope.extend(scope))
    )
    const headers = { authorization: `Bearer ${root.apiKey}`, "content-type": "application/json" }
    const request = async (base: string, path: string, init: RequestInit = {}) => {
      const start = performance.now()
      const response = await fetch(`${base}${path}`, { ...init, headers }).catch((error) => {
        // the daemon's own words when it went away
        console.error(`${path} at ${new Date().toISOString()}, ${(performance.now() - start).toFixed(0)} ms after it was sent: the daemon ${daemon.hasExited() ? "exited" : "runs"}; its output:\n${daemon.output().slice(-4000)}`)
        throw error
      })
      const body = Buffer.from(await response.arrayBuffer())
      const ms = performance.now() - start
      if (!response.ok) throw new Error(`${path} answered ${response.status}: ${body.toString("utf8").slice(0, 300)}`)
      return { ms, body }
    }
    // the daemon makes no track at start (all were stored with theirs): wait for its first pass anyway
    await request(daemon.baseUrl, "/api/v1/status")

    // (a) new segments matched against the whole history
    const history: Array<{ label: string; ms: number; efforts: number; checked: number }> = []
    const lines: ReadonlyArray<readonly [string, Corner, number, boolean]> = [
      ["3 blocks east", [8, 10], 3, true],
      ["1 block north", [10, 4], 1, false],
      ["2 blocks east", [2, 15], 2, true]
    ]
    const segmentIds: Array<string> = []
    for (const [label, from, blocks, east] of lines.slice(0, SEGMENTS)) {
      const t0 = performance.now()
      const made = JSON.parse((await request(daemon.baseUrl, "/api/v1/segments", {
        method: "POST",
        body: JSON.stringify({ name: label, points: streetLine(from, blocks, east) })
      })).body.toString("utf8"))
      for (;;) {
        const segment = JSON.parse((await request(daemon.baseUrl, `/api/v1/segments/${made.id}`)).body.toString("utf8"))
        if (segment.matching.status === "done") {
          history.push({ label, ms: performance.now() - t0, efforts: segment.effortCount, checked: segment.matching.checkedActivities })
          break
        }
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      segmentIds.push(made.id)
    }

    // (c) the routes
    // the segment with the most efforts, and the newest activity that passes it
    const first = segmentIds[history.indexOf(history.reduce((a, b) => (b.efforts > a.efforts ? b : a)))]!
    const efforts = JSON.parse((await request(daemon.baseUrl, `/api/v1/segments/${first}/efforts?sort=date`)).body.toString("utf8"))
    const activityId: string = efforts.efforts[0]?.activityId ?? "activity-town-0"
    const routes: ReadonlyArray<readonly [string, string]> = [
      ["GET /segments", "/api/v1/segments"],
      ["GET /segments/{id}", `/api/v1/segments/${first}`],
      ["GET /segments/{id}/efforts", `/api/v1/segments/${first}/efforts`],
      ["GET /segments/{id}/efforts by date, a year", `/api/v1/segments/${first}/efforts?sort=date&filters[year]=2024`],
      ["GET /activities/{id}/segment-efforts", `/api/v1/activities/${activityId}/segment-efforts`],
      ["GET /activities/{id}/climbs", `/api/v1/activities/${activityId}/climbs`],
      ["baseline: GET /status", "/api/v1/status"]
    ]
    const bodies = new Map<string, Buffer>()
    const measured: Array<{ label: string; path: string; times: Array<number> }> = []
    for (const [label, path] of routes) {
      for (let i = 0; i < 3; i++) bodies.set(path, (await request(daemon.baseUrl, path)).body)
      const times: Array<number> = []
      for (let i = 0; i < RUNS; i++) times.push((await request(daemon.baseUrl, path)).ms)
      measured.push({ label, path, times })
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

    console.log(`\n${COUNT} activities of ${SAMPLES} samples; load average ${load()}\n`)
    console.log("(a) a new segment matched against the whole history (POST until its matching is done)\n")
    printTable(["segment", "time", "activities checked", "efforts", `target < ${TARGET.history} ms`, "met"], history.map((h) =>
      [h.label, ms(h.ms), h.checked.toLocaleString("en-US"), h.efforts.toLocaleString("en-US"), "", h.ms < TARGET.history ? "yes" : "NO"]))
    if (imported !== null) {
      const added = quantile(imported.many, 0.5) - quantile(imported.none, 0.5)
      console.log(`\n(b) a new import checked against ${imported.made} segments (ActivityRepo.insert of one activity, ${INSERTS} times)\n`)
      printTable(["insert", "p50", "max", `added by matching, target < ${TARGET.import} ms`, "met"], [
        ["with no segment", ms(quantile(imported.none, 0.5)), ms(Math.max(...imported.none)), "", ""],
        [`with ${imported.made} segments`, ms(quantile(imported.many, 0.5)), ms(Math.max(...imported.many)), ms(added), added < TARGET.import ? "yes" : "NO"]
      ])
    }
    console.log(`\n(c) the segment routes, ${RUNS} requests each, one at a time\n`)
    printTable(["route", "p50", "p99", "plain server p50", "bytes", `target p99 < ${TARGET.route} ms`, "met"], measured.map(({ label, path, times }) => {
      const baseline = label.startsWith("baseline")
      const p99 = quantile(times, 0.99)
      return [label, ms(quantile(times, 0.5)), ms(p99), ms(quantile(plainMs.get(path)!, 0.5)), bodies.get(path)!.length.toLocaleString("en-US"), "", baseline ? "" : p99 < TARGET.route ? "yes" : "NO"]
    }))
    // a kept town is measured again with the same segments made anew
    if (kept !== null) for (const id of segmentIds) await request(daemon.baseUrl, `/api/v1/segments/${id}`, { method: "DELETE" })
    if (profileDir) await Effect.runPromise(daemon.kill("SIGTERM"))
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    if (kept === null) fs.rmSync(root.root, { recursive: true, force: true })
  }
}

await main()
