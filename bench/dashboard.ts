/**
 * Dashboard benchmark: with 10,000 activities, how long the list page and the page of a
 * one-hour ride (1 s samples: position, altitude, speed, heart rate, cadence, power) take to
 * be interactive in headless Chromium, beside a baseline measured in the same run (the
 * sign-in page: plain HTML, no script, from the same daemon); and the weight of the page's
 * scripts and styles, gzipped as the daemon sends them.
 *
 * The built daemon (`node dist/main.js`) runs over a fresh storage seeded through the
 * repositories. Each page is loaded RUNS times in a fresh browser context signed in with the
 * key; "interactive" is the moment the page has drawn itself (its `waymark:<page>` mark: data
 * fetched, table or charts and map drawn, main thread free), from the start of navigation.
 *
 *   npm run bench:dashboard        builds first; about a minute
 *
 * Environment: BENCH_ACTIVITIES=n (default 10000), BENCH_RUNS=n (default 7).
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
import { CHROMIUM, CHROMIUM_MISSING, chromiumAvailable, DESKTOP, launchChromium } from "../test/http/dashboard/browser.ts"
import { generatedRide } from "./generatedActivities.ts"
import { printTable, quantile } from "./measure.ts"

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

const main = async () => {
  if (!chromiumAvailable) {
    console.log(`bench:dashboard skipped: ${CHROMIUM_MISSING}`)
    return
  }
  const root = makeRoot()
  const scope = Effect.runSync(Scope.make())
  try {
    const seedStart = performance.now()
    const rideId = await seed(root)
    console.log(`seeded ${COUNT} activities in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`)
    const daemon = await Effect.runPromise(startChildDaemon({ env: { ...root.env, LOG_LEVEL: "warning" }, apiKey: root.apiKey, built: true }).pipe(Scope.extend(scope)))
    const browser = await launchChromium()
    try {
      const load = async (hash: string, mark: string | null) => {
        const context = await browser.newContext({ viewport: DESKTOP })
        // the session cookie: signed in once per context, as a person is
        const signIn = await context.request.post(`${daemon.baseUrl}/sign-in`, { form: { key: root.apiKey }, headers: { origin: daemon.baseUrl }, maxRedirects: 0 })
        if (signIn.status() !== 303) throw new Error(`sign-in answered ${signIn.status()}`)
        const page = await context.newPage()
        try {
          if (mark === null) {
            await context.clearCookies()
            await page.goto(`${daemon.baseUrl}/`, { waitUntil: "load" })
            // the browser's Navigation Timing entry (DOM types are not in this project's lib)
            return await page.evaluate(() => (performance.getEntriesByType("navigation" as never)[0] as unknown as { loadEventEnd: number }).loadEventEnd)
          }
          await page.goto(`${daemon.baseUrl}/${hash}`)
          await page.waitForFunction((name) => performance.getEntriesByName(name).length > 0, `waymark:${mark}`, { timeout: 30_000 })
          return await page.evaluate((name) => performance.getEntriesByName(name)[0]!.startTime, `waymark:${mark}`)
        } finally {
          await context.close()
        }
      }
      const measure = async (hash: string, mark: string | null) => {
        await load(hash, mark) // warm-up: the daemon's first read of these rows
        const times: Array<number> = []
        for (let i = 0; i < RUNS; i++) times.push(await load(hash, mark))
        return times
      }
      const baseline = await measure("", null)
      const list = await measure("#/activities", "activities")
      const ride = await measure(`#/activity/${rideId}`, "activity")
      const row = (label: string, xs: ReadonlyArray<number>, target: string) =>
        [label, `${quantile(xs, 0.5)!.toFixed(0)} ms`, `${Math.max(...xs).toFixed(0)} ms`, target, xs === baseline ? "" : Math.max(...xs) <= TARGET_MS ? "yes" : "NO"]
      console.log(`\nChromium ${browser.version()} (${CHROMIUM}), ${RUNS} loads each after one warm-up, load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}\n`)
      printTable(["page (10,000 activities)", "median", "max", "target", "met"], [
        row("baseline: sign-in page (HTML only, load event)", baseline, ""),
        row("activity list, first page", list, `<= ${TARGET_MS} ms`),
        row("one-hour ride (map, 5 charts, tables)", ride, `<= ${TARGET_MS} ms`)
      ])
    } finally {
      await browser.close()
    }
    const weigh = (name: string) => fs.statSync(path.join(DASHBOARD_OUT, name)).size
    const js = weigh("app.js.gz")
    const css = weigh("app.css.gz")
    const total = (js + css) / 1024
    console.log(`\nscripts + styles, gzipped as sent: ${(js / 1024).toFixed(1)} KB + ${(css / 1024).toFixed(1)} KB = ${total.toFixed(1)} KB (target <= ${TARGET_KB} KB: ${total <= TARGET_KB ? "yes" : "NO"}); uncompressed ${((weigh("app.js") + weigh("app.css")) / 1024).toFixed(1)} KB`)
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    fs.rmSync(root.root, { recursive: true, force: true })
  }
}

await main()
