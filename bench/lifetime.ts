/**
 * A lifetime export, imported: builds the 5,000-activity export of the whole-history import
 * from the corpus's FIT files (test/support/lifetimeExport: each copy moved in time, so that
 * none duplicates another) in Strava's layout and in Garmin Connect's, then, for each, drops
 * it into the watch folder of the built daemon (`node dist/main.js`, as `npm start` runs it,
 * a fresh storage) and measures, from the drop to the last file's import row: activities per
 * second, the daemon's peak RSS (VmHWM, all its threads) and the latency of GET
 * /api/v1/status asked every 50 ms throughout. Beside them, in the same run, the baseline:
 * the same 5,000 files decoded by the fastest decoder there is, the Garmin FIT SDK (raw
 * values), one thread, the making of each file outside the clock.
 *
 *   npm run bench:lifetime   (builds first; LIFETIME_COUNT=5000, LIFETIME_LAYOUTS=strava,garmin,
 *                             LIFETIME_DEADLINE_S=900 per layout; BENCH_PROFILE_DIR=dir writes a CPU
 *                             profile of the daemon's main thread there, bench/cpuProfile.mjs;
 *                             BENCH_DAEMON_NODE_OPTIONS="..." the daemon's Node flags)
 *
 * Targets: at least 25 activities/s, peak RSS under 400 MB, /status p99 under 50 ms. Prints the
 * figures and the daemon log's progress lines; always exits 0.
 */
import { Decoder, Stream } from "@garmin/fitsdk"
import { Effect, Exit, Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE } from "../test/support/corpus.ts"
import { startChildDaemon } from "../test/support/ChildDaemon.ts"
import { garminExport, stravaExport, writeZip } from "../test/support/exportArchives.ts"
import { makeRoot } from "../test/support/ImportHarness.ts"
import { lifetimeActivities, lifetimeSources } from "../test/support/lifetimeExport.ts"
import { api, daemonDiagnostics, finishedRows, mb, memoryOf, printTable, quantile, sleep } from "./measure.ts"

const COUNT = Number(process.env.LIFETIME_COUNT ?? 5000)
const LAYOUTS = (process.env.LIFETIME_LAYOUTS ?? "strava,garmin").split(",").filter((l): l is "strava" | "garmin" => l === "strava" || l === "garmin")
const DEADLINE_MS = Number(process.env.LIFETIME_DEADLINE_S ?? 900) * 1000
const STATUS_EVERY_MS = 50

const TARGET_RATE = 25
const TARGET_RSS = 400 * 1048576
const TARGET_STATUS_P99_MS = 50

interface Imported {
  readonly seconds: number
  readonly rows: number
  readonly counts: Readonly<Record<"success" | "skipped" | "failed", number>>
  readonly peakRss: number | null
  readonly status: ReadonlyArray<number>
  readonly progress: ReadonlyArray<string>
}

/** Drops the zip `zip` into a fresh built daemon's watch folder; measures until every activity file has its row. */
const importInto = async (zip: string): Promise<Imported> => {
  const root = makeRoot({ LOG_LEVEL: "warning", WATCH_SETTLE: "300ms", ...daemonDiagnostics() })
  const scope = Effect.runSync(Scope.make())
  try {
    const daemon = await Effect.runPromise(startChildDaemon({ env: root.env, apiKey: root.apiKey, built: true }).pipe(Scope.extend(scope)))
    const client = api(daemon.baseUrl, root.apiKey)
    // copied under a dot-name, then renamed in: the drop is one instant
    const staged = path.join(root.watchDir, ".lifetime.zip")
    fs.copyFileSync(zip, staged)
    const started = performance.now()
    fs.renameSync(staged, path.join(root.watchDir, path.basename(zip)))
    const status: Array<number> = []
    let done = false
    const prober = (async () => {
      while (!done) {
        const t0 = performance.now()
        const answer = await client.get("/api/v1/status")
        await answer.arrayBuffer()
        status.push(performance.now() - t0)
        await sleep(Math.max(0, STATUS_EVERY_MS - (performance.now() - t0)))
      }
    })()
    let rows = 0
    while (performance.now() - started < DEADLINE_MS) {
      rows = await finishedRows(client)
      if (rows >= COUNT) break
      await sleep(500)
    }
    const seconds = (performance.now() - started) / 1000
    done = true
    await prober
    const count = async (status: string) =>
      ((await (await client.get(`/api/v1/file-imports?filters[status]=${status}&pagination[size]=1`)).json()) as { pagination: { total: number } }).pagination.total
    const counts = { success: await count("success"), skipped: await count("skipped"), failed: await count("failed") }
    // the daemon channel's files (one a UTC day): its lines' messages
    const logsDir = path.join(root.storageDir, "files", "logs")
    const progress = fs.readdirSync(logsDir).filter((f) => f.startsWith("daemon-")).sort()
      .flatMap((f) => fs.readFileSync(path.join(logsDir, f), "utf8").split("\n"))
      .flatMap((line) => {
        try {
          return [String((JSON.parse(line) as { message: unknown }).message)]
        } catch {
          return []
        }
      })
      .filter((m) => /importing: |import finished|queued for import|unpacked|skipped/.test(m))
    const peakRss = memoryOf(daemon.pid)?.peak ?? null
    // a daemon stopped as `npm start`'s would be writes its profile as it exits
    if (process.env.BENCH_PROFILE_DIR) await Effect.runPromise(daemon.kill("SIGTERM"))
    return { seconds, rows, counts, peakRss, status, progress }
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    fs.rmSync(root.root, { recursive: true, force: true })
  }
}

const main = async () => {
  if (!CORPUS_DIR) return console.log(CORPUS_MISSING_MESSAGE)
  console.log(`lifetime export: ${COUNT} activities, node ${process.version}, ${os.cpus().length} cpus, load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`)
  const sources = await lifetimeSources()
  console.log(`${sources.length} corpus FIT files as sources`)

  // the baseline: the same files decoded by the FIT SDK, raw values, the making of each file outside the clock
  let decodeSeconds = 0
  let decodeErrors = 0
  for (const a of lifetimeActivities(sources, COUNT)) {
    const t0 = performance.now()
    decodeErrors += new Decoder(Stream.fromBuffer(a.file.bytes)).read({
      applyScaleAndOffset: false, expandSubFields: false, expandComponents: false, convertTypesToStrings: false,
      convertDateTimesToDates: false, mergeHeartRates: false
    }).errors.length
    decodeSeconds += (performance.now() - t0) / 1000
  }
  const decodeRate = COUNT / decodeSeconds
  const rows: Array<Array<string>> = [[
    `baseline: @garmin/fitsdk decode, fastest options, one thread${decodeErrors > 0 ? ` (${decodeErrors} errors)` : ""}`,
    `${decodeRate.toFixed(0)} files/s`, "", "", ""
  ]]

  for (const layout of LAYOUTS) {
    const zip = path.join(os.tmpdir(), `waymark-lifetime-${layout}-${process.pid}`, `${layout === "strava" ? "export_12345678" : "garmin-connect-export"}.zip`)
    fs.mkdirSync(path.dirname(zip), { recursive: true })
    try {
      const spec = { activities: lifetimeActivities(sources, COUNT) }
      const bytes = writeZip(zip, layout === "strava" ? stravaExport(spec) : garminExport(spec))
      console.log(`\n${layout}: export of ${mb(bytes)} written; dropped into the daemon's watch folder ...`)
      const run = await importInto(zip)
      for (const line of run.progress.slice(-12)) console.log(`  log: ${line.slice(0, 220)}`)
      const rate = run.counts.success / run.seconds
      const p99 = quantile(run.status, 0.99)
      rows.push([
        `${layout} export, ${run.counts.success} imported, ${run.counts.skipped} skipped, ${run.counts.failed} failed of ${COUNT} in ${run.seconds.toFixed(0)} s`,
        `${rate.toFixed(1)} activities/s (${(rate / decodeRate * 100).toFixed(0)} % of the decode) ${rate >= TARGET_RATE && run.counts.success >= COUNT ? "ok" : "MISSED"}`,
        `${mb(run.peakRss ?? undefined)} ${run.peakRss !== null && run.peakRss < TARGET_RSS ? "ok" : "MISSED"}`,
        `${p99.toFixed(1)} ms (p50 ${quantile(run.status, 0.5).toFixed(1)}, max ${Math.max(...run.status).toFixed(0)}, n ${run.status.length}) ${p99 < TARGET_STATUS_P99_MS ? "ok" : "MISSED"}`,
        ""
      ])
    } finally {
      fs.rmSync(path.dirname(zip), { recursive: true, force: true })
    }
  }

  console.log("")
  printTable([`measure (targets: ${TARGET_RATE} activities/s, RSS < ${mb(TARGET_RSS)}, /status p99 < ${TARGET_STATUS_P99_MS} ms)`, "rate", "peak RSS", "/api/v1/status p99", ""], rows)
  console.log(`\nload after ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`)
}

main().catch((e) => console.error("benchmark failed:", e)).finally(() => process.exit(0))
