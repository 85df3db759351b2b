import { afterAll, beforeAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { builtDashboard } from "../../support/programs.ts"
import { DASHBOARD_PAGES, menuLabelOf, type PageName } from "../../../src/http/dashboard/dashboardPages.ts"
import type { ActivityDraft } from "../../../src/schema/ActivityDraft.ts"
import { FileImportRepo } from "../../../src/services/import/FileImportRepo.ts"
import { daemonLayer, dropFile, gpxActivity, makeRoot, tcxActivity, waitForRow } from "../../support/ImportHarness.ts"
import { daemonOrigin, seedActivity } from "../../support/TestDaemon.ts"
import { CHROMIUM_MISSING, chromiumAvailable, DESKTOP, PHONES, SCREENSHOTS, screenshot, sharedChromium } from "../../support/chromium.ts"
import { expectReadable, markerColor, readPalette } from "./colourChecks.ts"
import { canvasTexts, collectProblems, COLOUR_RULES, distinctLooks, fitsScreen, nextFrames, open, recordCanvasText, redrawn, schemesDifferInColoursOnly, seriousViolations, shoot } from "./pageTools.ts"

/**
 * The dashboard's finish in a real browser, over activities seeded through the repositories and
 * files imported through the watch folder: the import log's pages, every page on phones of 360
 * and 390 px (none wider than the screen, the menu of sections, the list's columns, the import
 * log's messages and actions), the charts (a colour per metric and per sport that reads in
 * both colour schemes and for colour-blind eyes, ticks at round values, values under the
 * cursor), the details (every row of the totals, empty periods, one format per column, plural,
 * names for people, a link to a duplicate, messages that stay on their page, four-digit years),
 * and the list's sport filter, orders and pace or speed. Screenshots of each page at both phone
 * sizes and on a desktop, light and dark, are kept in test-artifacts/dashboard-polish.
 */

const ARTIFACTS = path.resolve("test-artifacts/dashboard-polish")
const skipReason = chromiumAvailable ? undefined : CHROMIUM_MISSING
if (skipReason !== undefined) console.warn(`[dashboard polish browser test] skipped: ${skipReason}`)

const root = makeRoot()
let browser: Browser
let context: BrowserContext
let page: Page
let base = ""
const problems: Array<string> = []
const ids: Record<string, string> = {}

beforeAll(async () => {
  if (skipReason !== undefined) return
  builtDashboard()
  fs.mkdirSync(ARTIFACTS, { recursive: true })
  browser = await sharedChromium()
}, 120_000)

afterAll(async () => {
  await context?.close()
  fs.rmSync(root.root, { recursive: true, force: true })
})

/** A browser context, signed in, on a page that records what its canvases draw. */
const newPage = async () => {
  context = await browser.newContext({ viewport: DESKTOP })
  const signIn = await context.request.post(`${base}/sign-in`, { form: { key: root.apiKey }, headers: { origin: base }, maxRedirects: 0 })
  expect(signIn.status()).toBe(303)
  page = await context.newPage()
  await page.addInitScript(recordCanvasText)
  collectProblems(page, problems)
}

const go = (hash: string, ready: string) => open(page, base, hash, ready)

/** Each test starts on a desktop's screen, whatever the test before it left. */
const desktop = () => page.setViewportSize(DESKTOP)

/** No serious axe-core violation: of every rule, or of `only` (the rules about colours, in a scheme whose other rules were checked already). */
const expectAccessible = async (what: string, only?: ReadonlyArray<string>) => expect(await seriousViolations(page, only), `axe on ${what}`).toEqual([])

/** Screenshots of the page as it is at both phone sizes and on a desktop, in the scheme shown. */
const shootAll = async (name: string, scheme: string) =>
  shoot(page, ARTIFACTS, `${name}-${scheme}`, [["desktop", DESKTOP], ...PHONES])

// ---------------------------------------------------------------------------------------
// Seeded activities

const MONTH = (m: string, day: number, hour = 8) => {
  const startDateLocal = `${m}-${String(day).padStart(2, "0")}T${String(hour).padStart(2, "0")}:00:00`
  return { startDateLocal, startTime: Date.parse(`${startDateLocal}Z`) - 3_600_000 }
}

/** Streams of `seconds` at 1 s: speed in m/s by second, with heart rate and cadence, and altitude and a route unless indoor. */
const streamsOf = (seconds: number, speed: (s: number) => number, options: { readonly indoor?: boolean; readonly power?: boolean; readonly cadence: number }) => {
  const time: Array<number> = []
  const distance: Array<number> = []
  const velocity: Array<number> = []
  const heartrate: Array<number> = []
  const cadence: Array<number> = []
  const watts: Array<number> = []
  const altitude: Array<number> = []
  const latlng: Array<[number, number]> = []
  let d = 0
  for (let s = 0; s < seconds; s++) {
    const v = speed(s)
    d += v
    time.push(s)
    distance.push(Math.round(d * 10) / 10)
    velocity.push(Math.round(v * 100) / 100)
    heartrate.push(Math.round(135 + 20 * Math.sin(s / 400)))
    cadence.push(Math.round(options.cadence + 4 * Math.sin(s / 90)))
    watts.push(Math.round(210 + 60 * Math.sin(s / 60)))
    altitude.push(30 + 25 * Math.sin(s / 700))
    latlng.push([50.85 + d / 111_195, 4.35 + 0.01 * Math.sin(s / 500)])
  }
  return {
    distance: d,
    streams: {
      time, distance, velocity, heartrate, cadence,
      ...(options.power === true ? { watts } : {}),
      ...(options.indoor === true ? {} : { altitude, latlng })
    }
  }
}

const seeded = (name: string, sportType: string, at: { startDateLocal: string; startTime: number }, extra: Partial<ActivityDraft> = {}) =>
  Effect.map(seedActivity({ name, sportType: sportType as ActivityDraft["sportType"], ...at, ...extra }), (id) => {
    ids[name] = id
    return id
  })

const seedAll = Effect.gen(function*() {
  // a run of 70 min at about 5:30 /km, a two-hour ride with power, an indoor ride without altitude
  const run = streamsOf(4200, (s) => 3 + 0.3 * Math.sin(s / 120), { cadence: 86 })
  yield* seeded("Tempo run", "Run", MONTH("2026-11", 3, 7), {
    distanceInMeter: Math.round(run.distance), movingTimeInSeconds: 4200, elapsedTimeInSeconds: 4300, averageSpeedInKmPerHour: run.distance / 4200 * 3.6,
    averagePower: null, maxPower: null, streams: run.streams
  })
  const ride = streamsOf(7200, (s) => 8 + 2 * Math.sin(s / 300), { cadence: 88, power: true })
  yield* seeded("Long ride", "Ride", MONTH("2026-11", 4), {
    distanceInMeter: Math.round(ride.distance), movingTimeInSeconds: 7200, elapsedTimeInSeconds: 7300, averageSpeedInKmPerHour: ride.distance / 7200 * 3.6,
    streams: ride.streams,
    bestEfforts: [
      { distanceInMeter: 8046.72, elapsedTimeInSeconds: 840, startOffsetInSeconds: 30 },
      { distanceInMeter: 20_000, elapsedTimeInSeconds: 2200, startOffsetInSeconds: 1800 },
      { distanceInMeter: 40_000, elapsedTimeInSeconds: 4500, startOffsetInSeconds: 4200 }
    ]
  })
  const indoor = streamsOf(1800, () => 9, { cadence: 90, power: true, indoor: true })
  yield* seeded("Trainer session", "VirtualRide", MONTH("2026-11", 5), {
    distanceInMeter: Math.round(indoor.distance), movingTimeInSeconds: 1800, elapsedTimeInSeconds: 1800, averageSpeedInKmPerHour: 32.4,
    hasGpx: false, encodedPolyline: null, startLatLng: null, streams: indoor.streams
  })
  yield* seeded("Pool swim", "Swim", MONTH("2026-11", 6), { distanceInMeter: 2000, movingTimeInSeconds: 2400, elapsedTimeInSeconds: 2700, averageSpeedInKmPerHour: 3, averagePower: null })
  yield* seeded("Evening walk", "Walk", MONTH("2026-11", 7), { distanceInMeter: 5000, movingTimeInSeconds: 3600, averageSpeedInKmPerHour: 5, averagePower: null })
  yield* seeded("Ridge hike", "Hike", MONTH("2026-11", 8), { distanceInMeter: 14_000, movingTimeInSeconds: 16_800, elevationInMeter: 1200, averageSpeedInKmPerHour: 3, averagePower: null })
  yield* seeded("Gravel loop", "GravelRide", MONTH("2026-11", 9), { distanceInMeter: 62_000, movingTimeInSeconds: 10_800, averageSpeedInKmPerHour: 20.7 })
  // a name that no phone's column holds on one line
  yield* seeded("A very long name for a Sunday morning club run along the canal and back", "Run", MONTH("2026-11", 10), {
    distanceInMeter: 21_097, movingTimeInSeconds: 6300, averageSpeedInKmPerHour: 12.06, averagePower: null
  })
  // more sports in October: with November's, more rows than a dozen in the month view's table
  for (const [i, sport] of ["Ride", "Run", "Swim", "Walk", "Hike", "GravelRide", "Rowing", "Yoga"].entries()) {
    yield* seeded(`October ${sport}`, sport, MONTH("2026-10", 10 + i), { distanceInMeter: 8000 + i * 1000, movingTimeInSeconds: 3000 })
  }
  // rides years apart: the years between have none
  yield* seeded("Old ride", "Ride", MONTH("2021-05", 2), { distanceInMeter: 40_000 })
  // GPSBabel's lowest date
  yield* seeded("Lake survey", "Kayaking", { startDateLocal: "1901-12-13T20:45:52", startTime: Date.parse("1901-12-13T20:45:52Z") }, { distanceInMeter: 3000 })
})

/** Import rows of long ago: with the files imported here, more than one page of the log. */
const seedImportLog = Effect.gen(function*() {
  const repo = yield* FileImportRepo
  for (let i = 0; i < 49; i++) {
    yield* repo.insert({
      id: `fileImport-old-${i}`, filename: `old-${String(i).padStart(2, "0")}.fit`, source: "fitFile", status: i < 2 ? "failed" : "success",
      errorMessage: i < 2 ? "The file ends in the middle of a record." : null, activityId: null,
      importedOn: Date.parse("2025-01-01T08:00:00Z") + i * 60_000, contentHash: `old-${i}`, sourceSize: 1, sourceMtime: 1, originalFile: null
    })
  }
})

/** The texts uPlot drew on the canvas of the chart titled `title`. */
const chartTexts = (title: string) =>
  page.evaluate((t) => {
    const w = globalThis as any
    const box = [...w.document.querySelectorAll(".chart")].find((c: any) => c.querySelector("h3")?.textContent?.startsWith(t))
    return w.drawnTexts(box.querySelector("canvas")) as Array<string>
  }, title)

const seconds = (clock: string) => clock.split(":").map(Number).reduce((sum, part) => sum * 60 + part, 0)

const pageFits = () => fitsScreen(page)

/** Sections to come (the longest names first), added to the menu's list until it holds ten. */
/** The menu's labels, as the shell draws them from the page list. */
const MENU_LABELS = (Object.keys(DASHBOARD_PAGES) as Array<PageName>).filter((name) => DASHBOARD_PAGES[name].menu).map(menuLabelOf)
const TEN = Math.max(10, MENU_LABELS.length)
const addSections = () =>
  page.evaluate((names) => {
    const list = (globalThis as any).document.getElementById("sections")
    for (const name of names) list.insertAdjacentHTML("beforeend", `<li><a href="#/activities" data-nav="extra">${name}</a></li>`)
  }, ["Records and routes", "Year in review", "Milestones", "Calendar", "Segments", "Goals", "Routes", "Photos", "Health", "Body"]
    .filter((name) => !MENU_LABELS.includes(name)).slice(0, TEN - MENU_LABELS.length))

describe.skipIf(skipReason !== undefined)("the dashboard's finish in Chromium", () => {
  layer(daemonLayer(root), { excludeTestServices: true, timeout: 180_000 })("over seeded activities and imports", (it) => {
    it.scoped("seeds activities, imports a file, its duplicate and a broken file, and signs in", () =>
      Effect.gen(function*() {
        base = yield* daemonOrigin
        yield* seedAll
        yield* seedImportLog
        // the same ride twice, as GPX then as TCX: the second is skipped as a duplicate of the first
        const start = new Date("2026-11-20T07:00:00Z")
        dropFile(root.watchDir, "morning.gpx", gpxActivity({ start, seconds: 1800, name: "Canal ride", type: "cycling", speed: 7 }))
        expect((yield* waitForRow("morning.gpx")).status).toBe("success")
        dropFile(root.watchDir, "morning.tcx", tcxActivity({ start, seconds: 1800, sport: "Biking", speed: 7 }))
        const skipped = yield* waitForRow("morning.tcx")
        expect(skipped.status).toBe("skipped")
        expect(skipped.error_message).toMatch(/\("activity-[\w-]+"\)/)
        dropFile(root.watchDir, "broken-export-from-an-old-watch-with-a-long-name.gpx", "<gpx>not really")
        expect((yield* waitForRow("broken-export-from-an-old-watch-with-a-long-name.gpx")).status).toBe("failed")
        yield* Effect.promise(() => newPage())
      }), 300_000)

    it.effect("import log: pages only where there are some, never a page past the last", () =>
      Effect.promise(async () => {
        await desktop()
        // 49 rows of long ago and 3 files: 52 rows, 50 a page
        await go("#/import", "#import-log tbody tr")
        const pager = page.getByRole("navigation", { name: "Pages of the import log" })
        await pager.getByText("Page 1 of 2 · 52 entries").waitFor()
        expect(await pager.getByRole("button", { name: "Older →" }).count()).toBe(1)
        expect(await pager.getByRole("button", { name: "← Newer" }).count()).toBe(0)
        await redrawn(page, () => pager.getByRole("button", { name: "Older →" }).click())
        await pager.getByText("Page 2 of 2 · 52 entries").waitFor()
        expect(await page.locator("#import-log tbody tr").count()).toBe(2)
        expect(await pager.getByRole("button", { name: "Older →" }).count()).toBe(0)
        expect(await pager.getByRole("button", { name: "← Newer" }).count()).toBe(1)
        // an old link past the last page opens the last one
        await go("#/import?page=7", "#import-log tbody tr")
        await page.waitForURL(/#\/import\?page=2$/)
        await pager.getByText("Page 2 of 2 · 52 entries").waitFor()
        // the two rows of page 2 removed meanwhile: the log moves to the page that is left
        const removed = await page.evaluate(async () => {
          const statuses = []
          for (const id of ["fileImport-old-0", "fileImport-old-1"]) statuses.push((await fetch(`/api/v1/file-imports/${id}`, { method: "DELETE" })).status)
          return statuses
        })
        expect(removed).toEqual([204, 204])
        await page.waitForURL(/#\/import$/, { timeout: 15_000 })
        await pager.getByText(/^50 entries$/).waitFor({ timeout: 15_000 })
        expect(await pager.getByRole("button").count()).toBe(0)
        expect(await page.locator("main").textContent()).not.toMatch(/of 1\b|Page 2/)
      }), 60_000)

    it.effect("on phones of 360 and 390 px no page is wider than the screen; the menu, the list's columns and the import log's messages and actions show whole", () =>
      Effect.promise(async () => {
        const pages = [
          ["#/activities", "#activity-list"],
          [`#/activity/${encodeURIComponent(ids["Tempo run"]!)}`, "#activity-charts canvas"],
          [`#/activity/${encodeURIComponent(ids["Long ride"]!)}`, "#best-efforts"],
          ["#/import", "#import-log tbody tr"],
          ["#/stats", "#totals"],
          ["#/training", "#thresholds-form"],
          ["#/gear", "#add-weight"],
          ["#/system", "#fibers"]
        ] as const
        // each page drawn once on a phone and measured at both widths: what follows its box's
        // width (the charts, the tables' scroll hints) has followed it two frames after a resize
        for (const [hash, ready] of pages) {
          await page.setViewportSize(PHONES[0][1])
          await go(hash, ready)
          for (const [name, viewport] of PHONES) {
            await page.setViewportSize(viewport)
            await nextFrames(page)
            expect(await pageFits(), `${hash} on ${name}`).toBe(true)
          }
        }
        // axe-core on the 390 px phone only where a style rule tells it from the 360 px one
        const looks = await distinctLooks(page, PHONES)
        for (const [name, viewport] of PHONES) {
          await page.setViewportSize(viewport)
          // the import log: the failed file's message and its Retry within the screen
          await go("#/import", "#import-log tbody tr")
          const failed = page.locator("#import-log tbody tr", { hasText: "broken-export" })
          for (const part of [failed.locator(".message"), failed.getByRole("button", { name: /^Retry / }), failed.getByRole("button", { name: /^Remove / })]) {
            const box = (await part.boundingBox())!
            expect(box.width, `${name}: ${await part.textContent()}`).toBeGreaterThan(0)
            expect(box.x + box.width, `${name}: ${await part.textContent()}`).toBeLessThanOrEqual(viewport.width)
          }
          expect(await failed.locator(".message").textContent()).toMatch(/\S/)
          if (looks.some(([look]) => look === name)) await expectAccessible(`the import page on a ${name}`)
          // the sections: behind a button, every one whole once unfolded
          await page.getByRole("button", { name: "Menu" }).click()
          const links = page.getByRole("navigation", { name: "Sections" }).getByRole("link")
          expect(await links.count()).toBe(MENU_LABELS.length)
          for (const link of await links.all()) {
            const fits = await link.evaluate((a) => a.scrollWidth <= a.clientWidth && a.getBoundingClientRect().right <= (globalThis as any).innerWidth)
            expect(fits, `${name}: ${await link.textContent()}`).toBe(true)
          }
          await page.keyboard.press("Escape")
          await links.first().waitFor({ state: "hidden" })
          // room for the sections to come: ten, the longest names included, all whole
          await addSections()
          await page.getByRole("button", { name: "Menu" }).click()
          expect(await links.count()).toBe(TEN)
          for (const link of await links.all()) {
            const fits = await link.evaluate((a) => a.scrollWidth <= a.clientWidth && a.getBoundingClientRect().right <= (globalThis as any).innerWidth)
            expect(fits, `${name}, ten sections: ${await link.textContent()}`).toBe(true)
          }
          expect(await pageFits()).toBe(true)
          await screenshot(page, { path: path.join(ARTIFACTS, `menu-ten-sections-${name}.png`) })
          await page.keyboard.press("Escape")
          // the list: distance, time and pace or speed in view, the table within its box
          await go("#/activities", "#activity-list")
          const wrap = page.locator(".table-wrap").first()
          expect(await wrap.evaluate((w) => w.scrollWidth <= w.clientWidth), `the list on a ${name}`).toBe(true)
          for (const column of ["Distance", "Time", "Pace or speed"]) {
            const header = page.locator("#activity-list th", { hasText: column })
            expect(await header.isVisible(), `${column} on ${name}`).toBe(true)
            expect((await header.boundingBox())!.x + (await header.boundingBox())!.width).toBeLessThanOrEqual(viewport.width)
          }
          expect(await page.locator("#activity-list tbody tr").first().locator("td", { hasText: / km$/ }).isVisible()).toBe(true)
        }
        await page.setViewportSize(DESKTOP)
        // ten sections on a desktop and a tablet: the header wraps, never wider than the screen
        await go("#/activities", "#activity-list")
        await addSections()
        for (const viewport of [DESKTOP, { width: 800, height: 900 }]) {
          await page.setViewportSize(viewport)
          // a tablet folds them too
          const menu = page.getByRole("button", { name: "Menu" })
          expect(await menu.isVisible()).toBe(viewport.width < 960)
          if (await menu.isVisible()) await menu.click()
          const links = page.getByRole("navigation", { name: "Sections" }).getByRole("link")
          for (const link of await links.all()) expect(await link.isVisible()).toBe(true)
          expect(await pageFits(), `ten sections at ${viewport.width} px`).toBe(true)
          expect(await links.evaluateAll((all) =>
            all.every((a) => a.getBoundingClientRect().right <= (globalThis as any).innerWidth && a.scrollWidth <= a.clientWidth))).toBe(true)
          await screenshot(page, { path: path.join(ARTIFACTS, `ten-sections-${viewport.width}.png`) })
        }
      }), 120_000)

    it.effect("charts: a colour per metric whatever the charts beside it, a colour per sport, each readable in both schemes and for colour-blind eyes", () =>
      Effect.promise(async () => {
        await desktop()
        const heartRate: Array<string | null> = []
        for (const name of ["Long ride", "Trainer session", "Tempo run"]) {
          await go(`#/activity/${encodeURIComponent(ids[name]!)}`, "#activity-charts canvas")
          await page.locator("#activity-charts .u-legend").first().waitFor({ state: "attached" })
          heartRate.push(await markerColor(page, "#activity-charts", "Heart rate"))
        }
        // the trainer session has no altitude chart: heart rate is second there, third elsewhere
        expect(new Set(heartRate).size).toBe(1)
        await go("#/stats?period=month", "#totals-chart canvas")
        const ride = await markerColor(page, "#totals-chart + .legend-below", "Ride")
        const sports = await page.locator(".legend-below .u-series .u-label").allTextContents()
        expect(sports.length).toBeGreaterThan(5)
        const colors = await Promise.all(sports.map((s) => markerColor(page, "#totals-chart + .legend-below", s)))
        expect(new Set(colors).size).toBe(sports.length)
        await go("#/stats?period=month&sport=Ride,Run", "#totals-chart canvas")
        expect(await markerColor(page, "#totals-chart + .legend-below", "Ride")).toBe(ride)

        for (const scheme of ["light", "dark"] as const) {
          await page.emulateMedia({ colorScheme: scheme })
          const { groups, panel } = await readPalette(page, ["metric", "sport"])
          expect(Object.keys(groups["metric"]!).length).toBeGreaterThanOrEqual(5)
          expect(Object.keys(groups["sport"]!).length).toBeGreaterThanOrEqual(8)
          expectReadable(scheme, panel, [["metrics", groups["metric"]!, 10], ["sports", groups["sport"]!, 7]])
        }
        await page.emulateMedia({ colorScheme: "light" })
        // the dark scheme swaps colours and nothing else (what lets the browser tests check it
        // in place, by axe-core's rules about colours); a rule of it that hid something would not
        expect(await schemesDifferInColoursOnly(page)).toBe(true)
        const sheet = (rule: string | null) =>
          page.evaluate((rule) => {
            // through the style sheet's own interface: the page's policy refuses a style element
            const first = (globalThis as any).document.styleSheets[0]
            if (rule === null) first.deleteRule(0)
            else first.insertRule(rule, 0)
          }, rule)
        await sheet("@media (prefers-color-scheme: dark) { #totals { display: none } }")
        expect(await schemesDifferInColoursOnly(page)).toBe(false)
        await sheet(null)
        expect(await schemesDifferInColoursOnly(page)).toBe(true)
      }), 60_000)

    it.effect("charts: ticks at round values (time at 5, 10, 15, 30 min…, pace at whole minutes) and the values under the cursor", () =>
      Effect.promise(async () => {
        await desktop()
        await go(`#/activity/${encodeURIComponent(ids["Tempo run"]!)}`, "#activity-charts canvas")
        await page.getByLabel("time", { exact: true }).check()
        await page.locator("#activity-charts canvas").nth(3).waitFor()
        const pace = await chartTexts("Pace")
        // over 70 minutes: h:mm:ss at x, m:ss of the pace at y
        const times = pace.filter((t) => /^\d+:\d\d:\d\d$/.test(t)).map(seconds)
        const paces = pace.filter((t) => /^\d+:\d\d$/.test(t)).map(seconds)
        expect(times.length).toBeGreaterThan(2)
        expect(paces.length).toBeGreaterThan(1)
        const step = times[1]! - times[0]!
        expect([300, 600, 900, 1200, 1800, 3600]).toContain(step)
        for (const t of times) expect(t % step, `${pace}`).toBe(0)
        for (const p of paces) expect(p % 60, `${pace}`).toBe(0)
        const heart = await chartTexts("Heart rate")
        expect(heart.filter((t) => /^\d+:\d\d:\d\d$/.test(t)).map(seconds)).toEqual(times)
        await shootAll("activity-run-over-time", "light")

        // over distance: round kilometres
        await page.getByLabel("distance", { exact: true }).check()
        await page.locator("#activity-charts canvas").nth(3).waitFor()
        const kms = (await chartTexts("Heart rate")).filter((t) => / km$/.test(t)).map((t) => Number(t.replace(/ km$/, "").replace(/,/g, "")))
        expect(kms.length).toBeGreaterThan(2)
        const km = kms[1]! - kms[0]!
        expect([0.5, 1, 2, 2.5, 5]).toContain(km)

        // the values under the cursor, in every chart at once
        const plot = page.locator("#activity-charts .u-over").nth(1)
        await plot.scrollIntoViewIfNeeded()
        const box = (await plot.boundingBox())!
        await page.mouse.move(box.x + box.width * 0.4, box.y + box.height / 2)
        const values = async (title: string) =>
          page.locator("#activity-charts .chart", { has: page.locator("h3", { hasText: title }) }).locator(".u-legend .u-value").allTextContents()
        await expect.poll(async () => (await values("Pace"))[1]).toMatch(/^\d+:\d\d \/km$/)
        expect((await values("Pace"))[0]).toMatch(/^\d+\.\d\d km$/)
        expect((await values("Heart rate"))[1]).toMatch(/^\d+ bpm$/)
        expect((await values("Altitude"))[1]).toMatch(/^\d+ m$/)
        await screenshot(page, { path: path.join(ARTIFACTS, "activity-run-hover-light-desktop.png") })
        await page.mouse.move(0, 0)
        await shootAll("activity-run", "light")
        await expectAccessible("the run's page")

        // the totals: hours at round values, each sport's own value under the cursor
        await go("#/stats?period=month&measure=time", "#totals-chart canvas")
        const chartCanvas = await canvasTexts(page, "#totals-chart canvas")
        const yLabels = chartCanvas.filter((t) => / h$|^\d+:\d\d$/.test(t))
        expect(yLabels.length).toBeGreaterThan(1)
        for (const label of yLabels) {
          const value = label.endsWith(" h") ? Number(label.replace(" h", "")) * 3600 : seconds(label) * 60
          expect(value % 900, `${yLabels}`).toBe(0)
        }
        const bars = (await page.locator("#totals-chart .u-over").boundingBox())!
        await page.mouse.move(bars.x + bars.width - 5, bars.y + bars.height - 5)
        await expect.poll(() => page.locator(".legend-below .u-series").first().locator(".u-value").textContent()).toBe(
          new Date(2026, 10, 1).toLocaleDateString(undefined, { year: "numeric", month: "short" })
        )
        const ride = page.locator(".legend-below .u-series", { has: page.locator(".u-label", { hasText: /^Ride$/ }) }).locator(".u-value")
        // November's rides: the long one (2 h) and the canal ride (30 min) imported from GPX
        expect(await ride.textContent()).toBe("2:30")
        // under an hour: h:mm too
        const swim = page.locator(".legend-below .u-series", { has: page.locator(".u-label", { hasText: /^Swim$/ }) }).locator(".u-value")
        expect(await swim.textContent()).toBe("0:40")
        await screenshot(page, { path: path.join(ARTIFACTS, "stats-hover-light-desktop.png"), fullPage: true })
      }), 60_000)

    it.effect("details: every row of the totals, empty periods on the axis, one format of start offsets, plural, names for people, a link to the duplicate, messages on their page, four-digit years", () =>
      Effect.promise(async () => {
        await desktop()
        // more than a dozen sport-months in October and November, every one listed
        await go("#/stats?period=month", "#totals")
        const monthRows = await page.locator("#totals tbody tr td:first-child").allTextContents()
        const november = new Date(2026, 10, 1).toLocaleDateString(undefined, { year: "numeric", month: "long" })
        const october = new Date(2026, 9, 1).toLocaleDateString(undefined, { year: "numeric", month: "long" })
        expect(monthRows.filter((m) => m === november).length).toBe(7)
        expect(monthRows.filter((m) => m === october).length).toBe(8)
        // the years without a ride are on the axis between 2021 and 2026
        await go("#/stats?period=year&sport=Ride", "#totals-chart canvas")
        const years = (await canvasTexts(page, "#totals-chart canvas"))
          .filter((t) => /^\d{4}$/.test(t))
        expect(years).toEqual(["2021", "2022", "2023", "2024", "2025", "2026"])
        // four rides of at least 5 km on four days (one imported from GPX): one more such day reaches 5
        expect(await page.locator("#eddington").textContent()).toContain("1 more day of 5 km or more reaches 5.")
        expect(await page.locator("main").textContent()).not.toMatch(/\b1 more days\b/)

        // best efforts of the ride start at 0:00:30 and 1:10:00: one format
        await go(`#/activity/${encodeURIComponent(ids["Long ride"]!)}`, "#best-efforts")
        expect(await page.locator("#best-efforts tbody tr td:last-child").allTextContents()).toEqual(["0:00:30", "0:30:00", "1:10:00"])

        // names for people in the import log and the gear; the duplicate's message links to it
        await go("#/import", "#import-log tbody tr")
        const log = (await page.locator("#import-log").textContent())!
        for (const raw of ["gpxFile", "tcxFile", "fitFile", "success", "activity-"]) expect(log).not.toContain(raw)
        expect(log).toContain("GPX file")
        expect(log).toContain("Imported")
        const duplicate = page.locator("#import-log tbody tr", { hasText: "morning.tcx" })
        const link = duplicate.locator(".message a")
        expect(await link.textContent()).toBe("“Canal ride”")
        await redrawn(page, () => link.click())
        expect(await page.locator("#activity-name").textContent()).toBe("Canal ride")
        await go("#/gear", "#add-gear")
        await page.fill("#add-gear input[name=name]", "Road bike")
        await redrawn(page, () => page.click("#add-gear button[type=submit]"))
        expect(await page.locator("#gear-list tbody tr td:nth-child(2)").allTextContents()).toEqual(["Added here"])
        await go("#/system", "#fibers")
        expect(await page.locator("#fibers tbody tr td:first-child").allTextContents()).not.toContainEqual(expect.stringMatching(/[a-z][A-Z]/))

        // "Saved." is about the page it was shown on; it does not follow to the next
        await go(`#/activity/${encodeURIComponent(ids["Evening walk"]!)}`, "#activity-name")
        await page.click("#activity-edit summary")
        await page.fill("#edit-activity input[name=name]", "Evening stroll")
        await redrawn(page, () => page.click("#edit-activity button[type=submit]"))
        await page.locator("#activity-name").getByText("Evening stroll").waitFor()
        expect(await page.locator(".toast", { hasText: "Saved." }).count()).toBe(1)
        await redrawn(page, () => page.getByRole("link", { name: "Statistics" }).click())
        expect(await page.locator(".toast").count()).toBe(0)

        // 1901 with its four digits
        await go("#/activities?sort=startDateLocal", "#activity-list")
        const first = page.locator("#activity-list tbody tr").first()
        expect(await first.locator("td.name a").textContent()).toBe("Lake survey")
        expect(await first.locator("td").first().textContent()).toContain("1901")
        expect(await first.textContent()).not.toMatch(/\/01,/)
        await redrawn(page, () => first.locator("td.name a").click())
        expect(await page.locator("main p.muted").first().textContent()).toContain("1901")
      }), 60_000)

    it.effect("the list: several sports at once, sorted by any column either way, pace for runs, walks, hikes and swims, speed for rides", () =>
      Effect.promise(async () => {
        await desktop()
        await go("#/activities", "#activity-list")
        await page.locator("details.picker summary").click()
        await page.getByRole("checkbox", { name: "Running", exact: true }).check()
        await page.getByRole("checkbox", { name: "Swim", exact: true }).check()
        expect(await page.getByRole("checkbox", { name: "Trail run", exact: true }).isChecked()).toBe(true)
        expect(await page.locator("details.picker summary").textContent()).toBe("4 sports")
        await expectAccessible("the list with the sports unfolded")
        await shootAll("sport-filter", "light")
        await redrawn(page, () => page.locator("form[role=search] button[type=submit]").click())
        expect(decodeURIComponent(page.url())).toMatch(/sport=Run,TrailRun,VirtualRun,Swim/)
        const sports = new Set(await page.locator("#activity-list tbody tr td:nth-child(3)").allTextContents())
        expect([...sports].sort()).toEqual(["Run", "Swim"])
        expect(await page.locator("details.picker summary").textContent()).toBe("4 sports")

        // orders: distance largest first, then smallest first; the header says which
        await go("#/activities", "#activity-list")
        const header = page.locator("#activity-list th", { hasText: "Distance" })
        await redrawn(page, () => header.getByRole("button").click())
        expect(page.url()).toMatch(/sort=-distanceInMeter/)
        expect(await header.getAttribute("aria-sort")).toBe("descending")
        const distances = async () =>
          (await page.locator("#activity-list tbody tr td:nth-child(4)").allTextContents()).map((d) => Number(d.replace(/[^\d.]/g, "")))
        const down = await distances()
        expect(down).toEqual([...down].sort((a, b) => b - a))
        await redrawn(page, () => page.locator("#activity-list th", { hasText: "Distance" }).getByRole("button").click())
        expect(page.url()).toMatch(/sort=distanceInMeter/)
        expect(await page.locator("#activity-list th", { hasText: "Distance" }).getAttribute("aria-sort")).toBe("ascending")
        const up = await distances()
        expect(up).toEqual([...up].sort((a, b) => a - b))
        await redrawn(page, () => page.locator("#activity-list th", { hasText: "Name" }).getByRole("button").click())
        const names = await page.locator("#activity-list td.name a").allTextContents()
        expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, undefined, { sensitivity: "base" })))

        // pace or speed, each in its unit
        await go("#/activities", "#activity-list")
        const rate = async (name: string) => page.locator("#activity-list tbody tr", { has: page.locator("td.name a", { hasText: new RegExp(`^${name}$`) }) }).locator("td.rate").textContent()
        expect(await rate("Tempo run")).toMatch(/^\d+:\d\d \/km$/)
        expect(await rate("Evening stroll")).toBe("12:00 /km")
        expect(await rate("Ridge hike")).toBe("20:00 /km")
        expect(await rate("Pool swim")).toBe("2:00 /100 m")
        expect(await rate("Gravel loop")).toBe("20.7 km/h")
        expect(await rate("Long ride")).toMatch(/^\d+\.\d km\/h$/)
        await shootAll("activities", "light")
        await expectAccessible("the list")

        // on the statistics the sports apply as their list closes
        await go("#/stats", "#totals")
        await page.locator("details.picker summary").click()
        await page.getByRole("checkbox", { name: "Cycling", exact: true }).check()
        await redrawn(page, () => page.getByRole("button", { name: "Done" }).click())
        expect(decodeURIComponent(page.url())).toMatch(/sport=Ride,GravelRide,/)
        expect(new Set(await page.locator("#totals tbody tr td:nth-child(2)").allTextContents())).toEqual(new Set(["Ride", "Gravel ride", "Virtual ride"]))
      }), 60_000)

    it.effect("screenshots in the dark colour scheme, the menu unfolded on phones; no error on any page", () =>
      Effect.promise(async () => {
        // the list and the run were shot in the light scheme above
        const pages = [
          ["activities", "#/activities", "#activity-list", ["dark"]],
          ["activity-ride", `#/activity/${encodeURIComponent(ids["Long ride"]!)}`, "#best-efforts", ["dark", "light"]],
          ["import", "#/import", "#import-log tbody tr", ["dark", "light"]],
          ["stats", "#/stats", "#totals-chart canvas", ["dark", "light"]]
        ] as const
        // Every page loaded and drawn in the dark scheme (its charts read the dark colours), then
        // checked in the light one where asked, switched in place: the page's text and
        // backgrounds follow the scheme's custom properties at once, and axe-core reads no
        // canvas. Only the screenshots need the charts drawn again in the light colours. One
        // document throughout: axe-core is loaded into it once, not once per scheme and page.
        // Where the schemes differ in colours only, the light look is checked by the rules about
        // colours, the dark one having been checked by every rule (schemesDifferInColoursOnly).
        await page.emulateMedia({ colorScheme: "dark" })
        await redrawn(page, () => page.reload())
        const lightRules = (await schemesDifferInColoursOnly(page)) ? COLOUR_RULES : undefined
        for (const [name, hash, ready, schemes] of pages) {
          await go(hash, ready)
          for (const scheme of schemes) {
            if (scheme === "light") {
              await page.emulateMedia({ colorScheme: "light" })
              if (SCREENSHOTS) await go(hash, ready)
            }
            await shootAll(name, scheme)
            await expectAccessible(`the ${name} page (${scheme})`, scheme === "light" ? lightRules : undefined)
          }
          await page.emulateMedia({ colorScheme: "dark" })
        }
        // the menu unfolded on a phone, in each scheme
        await page.setViewportSize(PHONES[0][1])
        await go("#/activities", "#activity-list")
        await page.getByRole("button", { name: "Menu" }).click()
        for (const scheme of ["dark", "light"] as const) {
          await page.emulateMedia({ colorScheme: scheme })
          await screenshot(page, { path: path.join(ARTIFACTS, `menu-${scheme}-phone-360.png`) })
          await expectAccessible(`the menu unfolded (${scheme})`, scheme === "light" ? lightRules : undefined)
        }
        await context.close()
        expect(problems).toEqual([])
      }), 120_000)
  })
})
