/**
 * Dashboard benchmark: with 10,000 activities, how long the list page and the page of a
 * one-hour ride (1 s samples: position, altitude, speed, heart rate, cadence, power) take to
 * be interactive in headless Chromium, beside a baseline measured in the same run (the
 * sign-in page: plain HTML, no script, from the same daemon); and the scripts and styles each
 * page loads, gzipped as the daemon sends them (what the browser received: the code is split,
 * a page loads only its own).
 *
 * The built daemon (`node dist/main.js`) runs over a fresh storage seeded through the
 * repositories. Each page is loaded RUNS times in a fresh browser context signed in with the
 * key; "interactive" is the moment the page has drawn itself (its `waymark:<page>` mark: data
 * fetched, table or charts and map drawn, main thread free), from the start of navigation.
 * With BENCH_BASELINE_REF (a commit, a branch), that commit's built daemon runs too, over a
 * copy of the same storage, and each page is measured on both in turn, in the same browser.
 *
 *   npm run bench:dashboard        builds first; about a minute (two with a baseline)
 *
 * Environment: BENCH_ACTIVITIES=n (default 10000), BENCH_RUNS=n (default 7), BENCH_BASELINE_REF.
 * Prints target vs measured; always exits 0.
 */
import { Effect, Exit, Layer, Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ActivityRepo } from "../src/services/activities/ActivityRepo.ts"
import { encodeDraft } from "../src/services/activities/StreamsCodec.ts"
import { DASHBOARD_OUT } from "../scripts/buildDashboard.ts"
import { startChildDaemon } from "../test/support/ChildDaemon.ts"
import { makeRoot, servicesLayer } from "../test/support/ImportHarness.ts"
import { seedGenerated } from "../test/support/generatedActivities.ts"
import { CHROMIUM, CHROMIUM_MISSING, chromiumAvailable, DESKTOP, launchChromium } from "../test/support/chromium.ts"
import { generatedRide } from "./generatedActivities.ts"
import { baselineBuild, printTable, quantile } from "./measure.ts"

const COUNT = Number(process.env.BENCH_ACTIVITIES ?? 10_000)
const RUNS = Number(process.env.BENCH_RUNS ?? 7)
const TARGET_MS = 1000
const TARGET_KB = 300

const seed = async (root: ReturnType<typeof makeRoot>): Promise<string> => {
  const rideId = "activity-bench-one-hour-ride"
  await Effect.runPromise(Effect.gen(function*() {
    yield* seedGenerated(COUNT - 1)
    yield* (yield* ActivityRepo).insert(rideId, encodeDraft(generatedRide()))
  }).pipe(Effect.provide(servicesLayer(root).pipe(Layer.orDie))))
  return rideId
}

interface Load {
  /** ms from the start of navigation to the page's mark (the sign-in page: its load event) */
  readonly ms: number
  /** the scripts and styles received, bytes as sent (gzipped) */
  readonly assetBytes: number
}

const main = async () => {
  if (!chromiumAvailable) {
    console.log(`bench:dashboard skipped: ${CHROMIUM_MISSING}`)
    return
  }
  const baseline = process.env.BENCH_BASELINE_REF === undefined ? null : baselineBuild(process.env.BENCH_BASELINE_REF)
  const root = makeRoot()
  const baselineRoot = makeRoot({ SERVICE_API_KEY: root.apiKey })
  const scope = Effect.runSync(Scope.make())
  try {
    const seedStart = performance.now()
    const rideId = await seed(root)
    console.log(`seeded ${COUNT} activities in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`)
    const start = (r: typeof root, main?: string) =>
      Effect.runPromise(startChildDaemon({ env: { ...r.env, LOG_LEVEL: "warning" }, apiKey: root.apiKey, built: true, ...(main === undefined ? {} : { main }) }).pipe(Scope.extend(scope)))
    const daemons: Array<{ readonly label: string; readonly baseUrl: string }> = []
    if (baseline !== null) {
      // the same activities, in storage of its own: one daemon per storage folder
      fs.rmSync(baselineRoot.storageDir, { recursive: true, force: true })
      fs.cpSync(root.storageDir, baselineRoot.storageDir, { recursive: true })
      fs.rmSync(path.join(baselineRoot.storageDir, "waymark.lock"), { force: true })
      daemons.push({ label: `baseline ${baseline.ref}`, baseUrl: (await start(baselineRoot, baseline.main)).baseUrl })
    }
    daemons.push({ label: "this build", baseUrl: (await start(root)).baseUrl })
    const browser = await launchChromium()
    try {
      const load = async (base: string, hash: string, mark: string | null): Promise<Load> => {
        const context = await browser.newContext({ viewport: DESKTOP })
        // the session cookie: signed in once per context, as a person is
        const signIn = await context.request.post(`${base}/sign-in`, { form: { key: root.apiKey }, headers: { origin: base }, maxRedirects: 0 })
        if (signIn.status() !== 303) throw new Error(`sign-in answered ${signIn.status()}`)
        const page = await context.newPage()
        const sizes: Array<Promise<number>> = []
        page.on("requestfinished", (request) => {
          if (new URL(request.url()).pathname.startsWith("/dashboard/assets/") && request.resourceType() !== "image") {
            sizes.push(request.sizes().then((s) => s.responseBodySize))
          }
        })
        try {
          let ms: number
          if (mark === null) {
            await context.clearCookies()
            await page.goto(`${base}/`, { waitUntil: "load" })
            // the browser's Navigation Timing entry (DOM types are not in this project's lib)
            ms = await page.evaluate(() => (performance.getEntriesByType("navigation" as never)[0] as unknown as { loadEventEnd: number }).loadEventEnd)
          } else {
            await page.goto(`${base}/${hash}`)
            await page.waitForFunction((name) => performance.getEntriesByName(name).length > 0, `waymark:${mark}`, { timeout: 30_000 })
            ms = await page.evaluate((name) => performance.getEntriesByName(name)[0]!.startTime, `waymark:${mark}`)
          }
          return { ms, assetBytes: (await Promise.all(sizes)).reduce((a, b) => a + b, 0) }
        } finally {
          await context.close()
        }
      }
      const pages = [
        { label: "baseline: sign-in page (HTML only, load event)", hash: "", mark: null, target: false },
        { label: "activity list, first page", hash: "#/activities", mark: "activities", target: true },
        { label: "one-hour ride (map, 5 charts, tables)", hash: `#/activity/${rideId}`, mark: "activity", target: true }
      ] as const
      const loads = new Map<string, Array<Load>>()
      for (const { baseUrl } of daemons) for (const p of pages) await load(baseUrl, p.hash, p.mark) // warm-up: the daemon's first read of these rows
      // each run loads every page from each daemon in turn, so that both meet the same load of the machine
      for (let i = 0; i < RUNS; i++) {
        for (const p of pages) {
          for (const { label, baseUrl } of daemons) {
            const key = `${label}\u0000${p.label}`
            loads.set(key, [...(loads.get(key) ?? []), await load(baseUrl, p.hash, p.mark)])
          }
        }
      }
      console.log(`\nChromium ${browser.version()} (${CHROMIUM}), ${RUNS} loads each after one warm-up, load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}\n`)
      const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`
      printTable([`page (${COUNT.toLocaleString("en-US")} activities)`, "daemon", "median", "max", "target", "met", "scripts + styles (gzipped)"], pages.flatMap((p) =>
        daemons.map(({ label }) => {
          const xs = loads.get(`${label}\u0000${p.label}`)!
          const ms = xs.map((x) => x.ms)
          return [
            p.label,
            label,
            `${quantile(ms, 0.5)!.toFixed(0)} ms`,
            `${Math.max(...ms).toFixed(0)} ms`,
            p.target ? `<= ${TARGET_MS} ms` : "",
            p.target ? (Math.max(...ms) <= TARGET_MS ? "yes" : "NO") : "",
            p.mark === null ? "" : `${kb(quantile(xs.map((x) => x.assetBytes), 0.5)!)}${p.mark === "activities" ? ` (target <= ${TARGET_KB} KB)` : ""}`
          ]
        })))
    } finally {
      await browser.close()
    }
    const all = fs.readdirSync(DASHBOARD_OUT).filter((name) => /\.(js|css)\.gz$/.test(name)).reduce((sum, name) => sum + fs.statSync(path.join(DASHBOARD_OUT, name)).size, 0)
    console.log(`\nthis build's scripts and styles together, gzipped: ${(all / 1024).toFixed(1)} KB (every page's)`)
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    fs.rmSync(root.root, { recursive: true, force: true })
    fs.rmSync(baselineRoot.root, { recursive: true, force: true })
  }
}

await main()
