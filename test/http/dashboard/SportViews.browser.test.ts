import { afterAll, beforeAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { BrowserContext, Page } from "playwright-core"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE, readCorpusFile } from "../../support/corpus.ts"
import { daemonLayer, dropFile, makeRoot, waitForRow } from "../../support/ImportHarness.ts"
import { daemonOrigin, send } from "../../support/TestDaemon.ts"
import { at, encodeFit, Mesg, semicircles } from "../../services/import/parsers/fitFixtures.ts"
import { openDashboardBrowser } from "./browser.ts"
import { CHROMIUM_MISSING, chromiumAvailable, DESKTOP, PHONE, SCREENSHOTS, screenshot } from "../../support/chromium.ts"
import { redrawn as redrawnOn, signIn } from "./pageTools.ts"

/**
 * Each sport as its athlete reads it, in a real browser: a triathlon shown as one event with
 * its legs and transitions, a pool swim's pool, lengths, strokes, SWOLF and paces per 100 m, an
 * open-water swim, a track run's steps, a rowing session's pace per 500 m, a route of placeholder times
 * without times. Screenshots of each at phone and desktop widths, light and dark, in
 * test-artifacts/dashboard/sport-*.png.
 */

/** An hour's row on the Thames from an NK SpeedCoach: a generic session, positions every 10 s, 26 strokes a minute. */
const speedCoachRow = (): Uint8Array => {
  const records = Array.from({ length: 361 }, (_, i) => [Mesg["RECORD"]!, {
    timestamp: at(i * 10), positionLat: semicircles(51.4700 + Math.sin(i / 60) * 0.004), positionLong: semicircles(-0.2400 + i * 0.00055),
    heartRate: 138 + (i % 9), cadence: 25 + (i % 3)
  }] as const)
  return encodeFit([
    [Mesg["FILE_ID"]!, { type: "activity", manufacturer: "nielsenKellerman", product: 1, serialNumber: 7, timeCreated: at(0) }],
    ...records,
    [Mesg["LAP"]!, { timestamp: at(1800), startTime: at(0), totalElapsedTime: 1800, totalTimerTime: 1800 }],
    [Mesg["LAP"]!, { timestamp: at(3600), startTime: at(1800), totalElapsedTime: 1800, totalTimerTime: 1800 }],
    [Mesg["SESSION"]!, { timestamp: at(3600), startTime: at(0), sport: "generic", totalElapsedTime: 3600, totalTimerTime: 3600 }]
  ])
}

/**
 * The GPSBabel lake route with every point at GPSBabel's "no time" placeholder
 * (1901-12-13T20:45:52Z): no usable time, dated by the file's own time (2010-08-06).
 */
const routeOfPlaceholders = () =>
  readCorpusFile("gpx/gpsbabel-gpx10-lake-no-times.gpx").toString("utf8")
    .replace(/<time>[^<]*<\/time>/g, "").replace(/<\/ele>/g, "</ele><time>1901-12-13T20:45:52Z</time>")
    .replace(/(<gpx[^>]*>)/, "$1\n<time>2010-08-06T10:36:35Z</time>")

const FILES: ReadonlyArray<readonly [string, () => Uint8Array | string]> = [
  ["ironman.fit", () => readCorpusFile("fit/garmin-fr935-ironman-triathlon.fit")],
  ["pool-25m.fit", () => readCorpusFile("fit/garmin-fr945-pool-swim-25m.fit")],
  ["ocean.fit", () => readCorpusFile("fit/garmin-fenix6-ocean-swim.fit")],
  ["track.fit", () => readCorpusFile("fit/garmin-fenix6-track-run.fit")],
  ["thames-row.fit", speedCoachRow],
  ["lake-placeholder.gpx", routeOfPlaceholders]
]
const ARTIFACTS = path.resolve("test-artifacts/dashboard")

const skipReason = !chromiumAvailable ? CHROMIUM_MISSING : CORPUS_DIR === undefined ? CORPUS_MISSING_MESSAGE : undefined
if (skipReason !== undefined) console.warn(`[sport views browser test] skipped: ${skipReason}`)

// one parse worker: a second would start (about 3 s of processor time, its modules loaded
// through tsx) only to parse a few of the files beside the first
const root = makeRoot({ IMPORT_PARSE_WORKERS: "1" })
let context: BrowserContext | undefined
let page: Page
let base = ""
const problems: Array<string> = []
/** the activities of each file, by file name */
const ids = new Map<string, ReadonlyArray<string>>()

beforeAll(async () => {
  if (skipReason !== undefined) return
  ;({ context, page } = await openDashboardBrowser(ARTIFACTS, problems))
}, 120_000)

afterAll(async () => {
  await context?.close()
  fs.rmSync(root.root, { recursive: true, force: true })
})

const redrawn = (action: () => Promise<unknown>) => redrawnOn(page, action)

/**
 * Screenshots at desktop and phone width, in light and dark, none wider than its viewport. The
 * layout does not depend on the scheme (only colours do, through the style sheets' custom
 * properties, which follow it at once): the scheme is switched in place, and the page is drawn
 * again in each only for the screenshots, so that its charts take the scheme's colours
 * (`ready` is what it waits for then).
 */
const shoot = async (name: string, ready: string) => {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    if (SCREENSHOTS) {
      await redrawn(() => page.reload())
      await page.locator(ready).first().waitFor({ timeout: 15_000 })
    }
    for (const [size, viewport] of [["desktop", DESKTOP], ["phone", PHONE]] as const) {
      await page.setViewportSize(viewport)
      await page.evaluate(() => (globalThis as any).scrollTo(0, 0))
      // the resize handled and drawn: two frames later, whatever the machine's load
      await page.evaluate(() => new Promise((resolve) => (globalThis as any).requestAnimationFrame(() => (globalThis as any).requestAnimationFrame(resolve))))
      const width = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number)
      expect(width, `${name} at ${size}`).toBeLessThanOrEqual(viewport.width)
      await screenshot(page, { path: path.join(ARTIFACTS, `sport-${name}-${size}-${scheme}.png`), fullPage: true })
    }
  }
  await page.emulateMedia({ colorScheme: "light" })
  await page.setViewportSize(DESKTOP)
}

/** Opens an activity and waits until it is drawn. */
const open = async (id: string) => {
  await redrawn(() => page.goto(`${base}/#/activity/${encodeURIComponent(id)}`))
  await page.locator("#activity-name").waitFor()
}

const figure = (label: string) => page.locator(".stats .stat", { has: page.locator("dt", { hasText: new RegExp(`^${label}$`) }) }).locator("dd")

describe.skipIf(skipReason !== undefined)("each sport in the dashboard", () => {
  layer(daemonLayer(root), { excludeTestServices: true, timeout: 180_000 })("over a triathlon, swims, a track run, a row and a route of placeholder times", (it) => {
    it.scoped("imports the files and signs in", () =>
      Effect.gen(function*() {
        base = yield* daemonOrigin
        for (const [name, bytes] of FILES) dropFile(root.watchDir, name, bytes())
        for (const [name] of FILES) {
          const row = yield* waitForRow(name, "60 seconds")
          expect(row.status, `${name}: ${row.error_message}`).toBe("success")
          const served = yield* send("GET", `/api/v1/file-imports?filters[filename]=${encodeURIComponent(name)}`)
          ids.set(name, served.json.fileImports[0].activityIds)
        }
        yield* Effect.promise(() => signIn(page, base, root.apiKey))
      }), 180_000)

    it.effect("the list gives each its pace: per 100 m for swims, per 500 m for the row, per km on foot; the placeholder route by its file's date, with its whole year", () =>
      Effect.promise(async () => {
        const rows = page.locator("#activity-list tbody tr")
        // the row of a sport: its third cell names it
        const row = (sport: string) => rows.filter({ has: page.locator("td:nth-child(3)", { hasText: new RegExp(`^${sport}$`) }) })
        expect(await row("Swim").textContent()).toMatch(/\d:\d\d \/100 m/)
        expect(await row("Open water swim").first().textContent()).toMatch(/\d:\d\d \/100 m/)
        expect(await row("Rowing").textContent()).toMatch(/\d:\d\d \/500 m/)
        expect(await row("Run").first().textContent()).toMatch(/\d:\d\d \/km/)
        expect(await rows.filter({ hasText: "1901" }).count()).toBe(0)
        const lake = await rows.filter({ hasText: "2010" }).first().locator("td").first().textContent()
        expect(lake).toMatch(/2010/)
        await shoot("list", "#activity-list")
        expect(problems).toEqual([])
      }), 60_000)

    it.effect("a triathlon's leg shows the race as one event: its legs and transitions, each leg linked", () =>
      Effect.promise(async () => {
        const [swim, ride, run] = ids.get("ironman.fit")!
        await open(ride!)
        await page.locator("#race-parts tbody tr").nth(4).waitFor()
        expect(await page.locator("#race-title").textContent()).toMatch(/^Triathlon · \d+:\d\d:\d\d$/)
        const parts = await page.locator("#race-parts tbody tr td:first-child").allTextContents()
        expect(parts.map((p) => p.trim())).toEqual(["Open water swim", "T1", "Ride", "T2", "Run"])
        expect(await page.locator("#race-parts tr[aria-current=true]").textContent()).toContain("Ride")
        expect(await page.locator("#race-parts a").evaluateAll((links) => links.map((a) => a.getAttribute("href")))).toEqual([`#/activity/${swim}`, `#/activity/${run}`])
        expect(await page.locator(".race-bar .race-part").count()).toBe(5)
        await page.locator("#activity-charts canvas").first().waitFor()
        await shoot("triathlon-ride", "#race-parts tbody tr:nth-child(5)")
        // the swim leg's own page: its race, its pace per 100 m
        await page.locator("#race-parts a").first().click()
        await page.locator("#race-parts tr[aria-current=true]", { hasText: "Open water swim" }).waitFor({ timeout: 15_000 })
        expect(await figure("Average pace").textContent()).toMatch(/\/100 m$/)
        expect(problems).toEqual([])
      }), 90_000)

    it.effect("a pool swim: pool, lengths, strokes, SWOLF; pace per 100 m in the figures, laps, splits and lengths; no elevation", () =>
      Effect.promise(async () => {
        await open(ids.get("pool-25m.fit")![0]!)
        // the laps and splits, and the lengths, are drawn each when its own answer comes
        for (const table of ["#lengths", "#laps", "#splits"]) await page.locator(`${table} tbody tr`).first().waitFor({ timeout: 15_000 })
        expect(await figure("Pool").textContent()).toBe("25 m")
        expect(await figure("Lengths").textContent()).toBe("80")
        expect(await figure("Strokes").textContent()).toBe("984")
        expect(await figure("SWOLF").textContent()).toBe("46")
        expect(await figure("Average pace").textContent()).toBe("2:04 /100 m")
        expect(await page.locator(".stats dt", { hasText: "Elevation" }).count()).toBe(0)
        expect(await page.locator("#laps thead th").allTextContents()).toEqual(["#", "Distance", "Time", "Pace", "Lengths", "SWOLF", "Strokes", "Stroke", "HR"])
        expect(await page.locator("#laps tbody tr").first().textContent()).toMatch(/50 m.*\/100 m.*Freestyle/)
        expect(await page.locator("#laps tbody tr").nth(1).textContent()).toMatch(/Rest/)
        expect(await page.locator("h2", { hasText: /^Splits per 100 m$/ }).count()).toBe(1)
        expect(await page.locator("#splits thead th").allTextContents()).toEqual(["100 m", "Pace", "HR"])
        expect(await page.locator("#splits tbody tr").first().textContent()).toMatch(/^1\d:\d\d \/100 m\d+$/)
        expect(await page.locator("#splits tbody tr").count()).toBe(20)
        expect(await page.locator("#lengths tbody tr").count()).toBe(80)
        expect(await page.locator("#lengths tbody tr").first().textContent()).toMatch(/\/100 m.*12.*41.*Freestyle/)
        const charts = await page.locator("#activity-charts .chart h3").allTextContents()
        expect(charts.some((t) => t.startsWith("Altitude"))).toBe(false)
        expect(charts).toContain("Pace (/100 m)")
        await shoot("pool-swim", "#lengths tbody tr")
        expect(problems).toEqual([])
      }), 60_000)

    it.effect("an open-water swim: pace per 100 m, splits per 100 m, no elevation", () =>
      Effect.promise(async () => {
        await open(ids.get("ocean.fit")![0]!)
        await page.locator("#splits tbody tr").first().waitFor({ timeout: 15_000 })
        expect(await figure("Average pace").textContent()).toMatch(/^\d:\d\d \/100 m$/)
        expect(await page.locator("h2", { hasText: /^Splits per 100 m$/ }).count()).toBe(1)
        expect(await page.locator(".stats dt", { hasText: "Elevation" }).count()).toBe(0)
        await page.locator("#activity-map .leaflet-overlay-pane path").waitFor({ timeout: 15_000 })
        await shoot("open-water-swim", "#splits tbody tr")
        expect(problems).toEqual([])
      }), 60_000)

    it.effect("a track run: cadence in steps per minute, pace per km, splits per km", () =>
      Effect.promise(async () => {
        await open(ids.get("track.fit")![0]!)
        await page.locator("#splits tbody tr").first().waitFor({ timeout: 15_000 })
        expect(await figure("Average cadence").textContent()).toBe("178 spm")
        expect(await figure("Average pace").textContent()).toMatch(/^\d:\d\d \/km$/)
        expect(await page.locator("h2", { hasText: /^Splits per km$/ }).count()).toBe(1)
        await shoot("track-run", "#splits tbody tr")
        expect(problems).toEqual([])
      }), 60_000)

    it.effect("a row from a rowing monitor: a rowing session, its pace per 500 m, strokes per minute", () =>
      Effect.promise(async () => {
        await open(ids.get("thames-row.fit")![0]!)
        await page.locator("#laps tbody tr").first().waitFor({ timeout: 15_000 })
        expect(await page.locator("#activity-name + p").textContent()).toContain("Rowing")
        expect(await figure("Average pace").textContent()).toMatch(/^\d:\d\d \/500 m$/)
        expect(await figure("Average cadence").textContent()).toMatch(/^2\d strokes\/min$/)
        expect(await page.locator("#laps tbody tr").count()).toBe(2)
        expect(await page.locator("#laps tbody tr").first().textContent()).toMatch(/\/500 m/)
        await shoot("rowing", "#laps tbody tr")
        expect(problems).toEqual([])
      }), 60_000)

    it.effect("a route of placeholder times: its distance and route, its times unknown, dated by the file's own time, never 1901", () =>
      Effect.promise(async () => {
        await open(ids.get("lake-placeholder.gpx")![0]!)
        await page.locator("#activity-map .leaflet-overlay-pane path").waitFor({ timeout: 15_000 })
        expect(await figure("Moving time").textContent()).toBe("unknown")
        expect(await figure("Distance").textContent()).toMatch(/^4\.\d\d km$/)
        expect(await page.locator("#activity-name + p").textContent()).toMatch(/2010/)
        await shoot("route-placeholder", "#activity-map .leaflet-overlay-pane path")
        expect(problems).toEqual([])
      }), 60_000)
  })
})
