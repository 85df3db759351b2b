import { afterAll, beforeAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { BrowserContext, Page } from "playwright-core"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE, readCorpusFile } from "../../support/corpus.ts"
import { daemonLayer, dropFile, makeRoot, waitForRow } from "../../support/ImportHarness.ts"
import { blocksFit } from "../../support/trainingFits.ts"
import { dashboardHelpers, openDashboardBrowser } from "./browser.ts"
import { CHROMIUM_MISSING, chromiumAvailable, DESKTOP, PHONES, SCREENSHOTS, screenshot } from "../../support/chromium.ts"
import { cssColor, expectReadable, markerColor, readPalette } from "./colourChecks.ts"
import { canvasTexts, COLOUR_RULES, fitsScreen, nextFrames, recordCanvasText, schemesDifferInColoursOnly, seriousViolations, shoot, signIn } from "./pageTools.ts"
import { daemonOrigin } from "../../support/TestDaemon.ts"

/**
 * The Training page and an activity's training analysis in a real browser: the fitness,
 * fatigue and form chart, the power curve of a period against the history with the estimated
 * FTP beside the FTP in force, the thresholds' form (add, change, delete), and a ride's NP, IF,
 * load, power curve and zones; the charts' fixed colours, round ticks and values under the
 * cursor; screenshots on phones of 360 and 390 px (neither page wider than the screen) and a
 * desktop, light and dark (kept in test-artifacts/dashboard), each checked with axe-core.
 */

const RIDE = "fit/garmin-edge810-vector-power-ride.fit"
const ARTIFACTS = path.resolve("test-artifacts/dashboard")

const skipReason = !chromiumAvailable ? CHROMIUM_MISSING : CORPUS_DIR === undefined ? CORPUS_MISSING_MESSAGE : undefined
if (skipReason !== undefined) console.warn(`[training browser test] skipped: ${skipReason}`)

const root = makeRoot()
let context: BrowserContext
let page: Page
let base = ""
const problems: Array<string> = []

beforeAll(async () => {
  if (skipReason !== undefined) return
  ;({ context, page } = await openDashboardBrowser(ARTIFACTS, problems))
  await page.addInitScript(recordCanvasText)
}, 120_000)

afterAll(async () => {
  await context?.close()
  fs.rmSync(root.root, { recursive: true, force: true })
})

const { redrawn } = dashboardHelpers(() => page, ARTIFACTS)

const go = async (hash: string, ready: string) => {
  await redrawn(() => page.goto(`${base}/${hash}`))
  await page.locator(ready).first().waitFor({ timeout: 15_000 })
}

/**
 * Screenshots on a desktop and both phones and an axe-core check, in the dark and the light
 * scheme (the page is left drawn in the light one, on a desktop); on the phones the page is no
 * wider than the screen.
 */
const shootBothSchemes = async (name: string) => {
  // the toasts of the last actions gone: they would cover the page
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll(".toast").length === 0, undefined, { timeout: 10_000 })
  // the light scheme, the page's own, is switched to in place after the dark one but for the
  // screenshots: its charts then read the light colours again; axe-core reads no canvas, and
  // where the schemes differ in colours only, the rules about colours are all that can find
  // anything the dark look's check did not (schemesDifferInColoursOnly)
  const lightRules = (await schemesDifferInColoursOnly(page)) ? COLOUR_RULES : undefined
  for (const scheme of ["dark", "light"] as const) {
    if (scheme === "dark" || SCREENSHOTS) {
      await redrawn(async () => {
        await page.emulateMedia({ colorScheme: scheme })
        // the charts read their colours when drawn: draw the page again in this scheme
        await page.evaluate(() => (globalThis as any).dispatchEvent(new (globalThis as any).HashChangeEvent("hashchange")))
      })
    } else await page.emulateMedia({ colorScheme: scheme })
    expect(await seriousViolations(page, scheme === "light" ? lightRules : undefined), `axe on the ${name} (${scheme}) page`).toEqual([])
    await shoot(page, ARTIFACTS, `${name}-${scheme}`, [["desktop", DESKTOP], ...PHONES])
    for (const [size, viewport] of PHONES) {
      await page.setViewportSize(viewport)
      await nextFrames(page)
      expect(await fitsScreen(page), `${name} on a ${size} (${scheme})`).toBe(true)
    }
    await page.setViewportSize(DESKTOP)
  }
}

/** The colour a CSS value (a custom property's reference) computes to, as the legend's markers give theirs. */
const paletteColor = (value: string) => cssColor(page, value)

/** Moves the mouse to a share of the width of the plot under `chart` and returns the values its legend shows. */
const hover = async (chart: string, legend: string, share: number) => {
  const plot = page.locator(`${chart} .u-over`)
  await plot.scrollIntoViewIfNeeded()
  const box = (await plot.boundingBox())!
  await page.mouse.move(box.x + box.width * share, box.y + box.height / 2)
  await page.locator(`${legend}:not(.idle)`).waitFor()
  return page.locator(`${legend} .u-value`).allTextContents()
}

/** The durations a power curve's axis may be ticked at. */
const ROUND_DURATIONS = ["1s", "2s", "5s", "10s", "15s", "30s", "1m", "2m", "5m", "10m", "15m", "20m", "30m", "1h", "2h", "3h", "4h", "5h", "6h", "12h", "24h"]
const durationTicks = async (canvas: string) => (await canvasTexts(page, canvas)).filter((t) => /^\d+[smh]\d*$/.test(t))
const expectRoundDurations = async (canvas: string) => {
  const ticks = await durationTicks(canvas)
  expect(ticks.length, canvas).toBeGreaterThanOrEqual(3)
  for (const tick of ticks) expect(ROUND_DURATIONS, `${ticks}`).toContain(tick)
}

/** The labels of the fitness chart's date axis: what is drawn on its canvas but numbers. */
const dateTicks = async () => (await canvasTexts(page, "#fitness-chart canvas")).filter((t) => !/^-?[\d,.]+$/.test(t))

/** How the browser labels the Mondays of the last months (a day and a month) or the first days of months (a month), with or without the year. */
const dateLabels = (kind: "weeks" | "months") =>
  page.evaluate((kind) => {
    const labels: Array<string> = []
    const day = new Date()
    day.setHours(12, 0, 0, 0)
    for (let i = 0; i < (kind === "weeks" ? 120 : 400); i++, day.setDate(day.getDate() - 1)) {
      if (kind === "weeks" && day.getDay() === 1) {
        labels.push(new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short" }).format(day), new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", year: "numeric" }).format(day))
      }
      if (kind === "months" && day.getDate() === 1) {
        labels.push(new Intl.DateTimeFormat(undefined, { month: "short" }).format(day), new Intl.DateTimeFormat(undefined, { month: "short", year: "numeric" }).format(day))
      }
    }
    return labels
  }, kind)

/** Rides of the last eight weeks, every two or three days: warm-up, intervals, cool-down. */
const recentRides = () => {
  const now = Date.now()
  return Array.from({ length: 20 }, (_, k) => {
    const start = new Date(now - (56 - k * 2.8) * 86_400_000)
    start.setUTCHours(7, 0, 0, 0)
    const effort = 240 + (k % 5) * 15
    const intervals = 2 + (k % 4)
    const power: Array<readonly [number, number]> = [[900, 160]]
    const heartRate: Array<readonly [number, number]> = []
    for (let i = 0; i < intervals; i++) power.push([300 + (k % 3) * 120, effort], [240, 140])
    power.push([600, 150])
    for (const [seconds, watts] of power) for (let s = 0; s < seconds; s++) heartRate.push([1, Math.round(100 + watts / 4) + (s % 2)])
    return { name: `interval-ride-${String(k).padStart(2, "0")}.fit`, bytes: blocksFit({ start, power, heartRate }) }
  })
}

describe.skipIf(skipReason !== undefined)("the training pages in Chromium", () => {
  layer(daemonLayer(root), { excludeTestServices: true, timeout: 180_000 })("over a corpus ride and eight weeks of rides", (it) => {
    it.scoped("imports the rides and signs in", () =>
      Effect.gen(function*() {
        base = yield* daemonOrigin
        const rides = recentRides()
        dropFile(root.watchDir, path.basename(RIDE), readCorpusFile(RIDE))
        for (const ride of rides) dropFile(root.watchDir, ride.name, ride.bytes)
        for (const name of [path.basename(RIDE), ...rides.map((r) => r.name)]) {
          const row = yield* waitForRow(name)
          expect(row.status, `${name}: ${row.error_message}`).toBe("success")
        }
        yield* Effect.promise(() => signIn(page, base, root.apiKey))
      }), 300_000)

    it.effect("the Training entry opens the page; thresholds are added, changed and deleted through its form", () =>
      Effect.promise(async () => {
        // on a phone, through the sections' menu
        await page.setViewportSize(PHONES[0][1])
        await page.getByRole("button", { name: "Menu" }).click()
        await redrawn(() => page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Training" }).click())
        await page.locator("#thresholds-form").waitFor()
        expect(await page.getByRole("button", { name: "Menu" }).getAttribute("aria-expanded")).toBe("false")
        await page.setViewportSize(DESKTOP)
        expect(await page.locator("[data-nav=training]").getAttribute("aria-current")).toBe("page")
        expect(await page.locator("#thresholds").count()).toBe(0)
        expect(await page.locator("#ftp").textContent()).toContain("not set")
        // a set from long ago, so that the corpus ride of 2015 has thresholds too
        await page.fill("#thresholds-form input[name=on]", "2010-01-01")
        await page.fill("#thresholds-form input[name=cyclingFtp]", "280")
        await page.fill("#thresholds-form input[name=maxHeartRate]", "190")
        await page.fill("#thresholds-form input[name=restingHeartRate]", "48")
        await page.fill("#thresholds-form input[name=lactateThresholdHeartRate]", "170")
        await redrawn(() => page.click("#thresholds-form button[type=submit]"))
        await page.locator("#thresholds tbody tr").first().waitFor()
        expect(await page.locator("#ftp").textContent()).toContain("280 W")
        // a bad value is refused with the API's message, next to the form
        await page.fill("#thresholds-form input[name=on]", "2020-01-01")
        await page.fill("#thresholds-form input[name=lactateThresholdHeartRate]", "195")
        await page.click("#thresholds-form button[type=submit]")
        await page.locator("#thresholds-form .error", { hasText: "must be below" }).waitFor()
        // change: the row's values fill the form, a new FTP is saved under the same date
        await page.getByRole("button", { name: /Change the thresholds from/ }).first().click()
        expect(await page.inputValue("#thresholds-form input[name=on]")).toBe("2010-01-01")
        await page.fill("#thresholds-form input[name=cyclingFtp]", "300")
        await redrawn(() => page.click("#thresholds-form button[type=submit]"))
        await page.locator("#ftp", { hasText: "300 W" }).waitFor()
        expect(await page.locator("#thresholds tbody tr").count()).toBe(1)
        // a second set, then deleted after a confirmation
        await page.fill("#thresholds-form input[name=on]", "2011-06-01")
        await page.fill("#thresholds-form input[name=cyclingFtp]", "310")
        await redrawn(() => page.click("#thresholds-form button[type=submit]"))
        await page.locator("#thresholds tbody tr").nth(1).waitFor()
        await page.getByRole("button", { name: /Delete the thresholds from/ }).first().click()
        await redrawn(() => page.getByRole("dialog").getByRole("button", { name: "Delete" }).click())
        expect(await page.locator("#thresholds tbody tr").count()).toBe(1)
        expect(await page.locator("#ftp").textContent()).toContain("300 W")
      }), 60_000)

    it.effect("fitness, fatigue and form over the range chosen; the power curve of a period against the history with its estimated FTP", () =>
      Effect.promise(async () => {
        // the background recompute has given every ride its load under FTP 300
        await page.waitForFunction(async () => {
          const days = ((await (await fetch("/api/v1/stats/training-load")).json()) as { days: Array<{ load: number }> }).days
          return days.filter((d) => d.load > 0).length >= 20
        }, undefined, { timeout: 20_000, polling: 250 })
        await go("#/training?range=3m&period=42d", "#fitness-chart canvas")
        expect(Number((await page.locator("#fitness-today dd").first().textContent())!.replace(",", "."))).toBeGreaterThan(5)
        await page.locator("#power-curve-chart canvas").waitFor()
        expect(await page.locator("#power-bests tbody tr").count()).toBe(5)
        // the period's 5-minute best links to its ride
        const fiveMinutes = page.locator("#power-bests tbody tr", { hasText: "5 min" })
        expect(await fiveMinutes.locator("a").count()).toBe(2)
        expect(await page.locator("#ftp").textContent()).toMatch(/Estimated FTP, last 6 weeks\d+ W/)
        await page.locator("#fitness-days").evaluate((table) => ((table.closest("details") as unknown as { open: boolean }).open = true))
        expect(await page.locator("#fitness-days tbody tr").count()).toBe(14)

        // ticks: the power curve's at round durations, the fitness chart's on Mondays (three months across a desktop)
        await expectRoundDurations("#power-curve-chart canvas")
        expect(await durationTicks("#power-curve-chart canvas")).toEqual(expect.arrayContaining(["5s", "1m", "5m", "20m"]))
        const mondays = await dateLabels("weeks")
        const days = await dateTicks()
        expect(days.length).toBeGreaterThanOrEqual(4)
        for (const day of days) expect(mondays, `${days}`).toContain(day)

        // the values under the cursor: the day and its figures; the duration and each curve's watts
        const pmc = await hover("#fitness-chart", "#fitness-chart + .legend-below", 0.9)
        expect(pmc).toHaveLength(5)
        expect(pmc[0]).toMatch(/\d/)
        for (const figure of pmc.slice(1)) expect(figure, `${pmc}`).toMatch(/^-?[\d,]+(\.\d)?$/)
        const curve = await hover("#power-curve-chart", "#power-curve-chart + .legend-below", 0.5)
        expect(curve[0]).toMatch(/^\d+ (s|min|h)\b/)
        expect(curve[2]).toMatch(/^[\d,]+ W$/)
        await page.mouse.move(0, 0)

        // the series in the palette's fixed colours, the period's curve in the colour of power everywhere
        for (const series of ["load", "fitness", "fatigue", "form"]) {
          const label = series.charAt(0).toUpperCase() + series.slice(1)
          expect(await markerColor(page, "#fitness-chart + .legend-below", label), label).toBe(await paletteColor(`var(--training-${series})`))
        }
        expect(await markerColor(page, "#power-curve-chart + .legend-below", "Last 6 weeks")).toBe(await paletteColor("var(--metric-power)"))
        expect(await markerColor(page, "#power-curve-chart + .legend-below", "All time")).toBe(await paletteColor("var(--training-history)"))
        // each readable on its background and apart from those beside it, in both schemes and for colour-blind eyes
        for (const scheme of ["light", "dark"] as const) {
          await page.emulateMedia({ colorScheme: scheme })
          const { groups, panel } = await readPalette(page, ["training", "zone", "metric"])
          expect(Object.keys(groups["training"]!)).toHaveLength(5)
          expect(Object.keys(groups["zone"]!)).toHaveLength(7)
          expectReadable(scheme, panel, [
            ["the training charts' series and power", { ...groups["training"]!, "--metric-power": groups["metric"]!["--metric-power"]! }, 10],
            ["zones", groups["zone"]!, 10]
          ])
        }

        await shootBothSchemes("training")
        await page.selectOption("select[name=range]", "1y")
        await page.waitForURL(/range=1y/)
        await page.locator("#fitness-chart canvas").waitFor()
        // a year: ticks on the first of months
        const months = await dateLabels("months")
        const firsts = await dateTicks()
        expect(firsts.length).toBeGreaterThanOrEqual(4)
        for (const first of firsts) expect(months, `${firsts}`).toContain(first)
      }), 90_000)

    it.effect("a ride's page shows its NP, IF, training load, power curve and time in zones as bars", () =>
      Effect.promise(async () => {
        await go("#/activities?sport=Ride", "#activity-list")
        await page.locator("#activity-list tbody tr", { hasText: "41.34 km" }).locator("td.name a").click()
        await page.locator("#analysis-figures").waitFor({ timeout: 15_000 })
        const figures = await page.locator("#analysis-figures").textContent()
        expect(figures).toMatch(/Normalized power\d+ W/)
        expect(figures).toMatch(/Intensity factor\d\.\d\d/)
        expect(figures).toContain("training stress score")
        await page.locator("#activity-power-curve canvas").waitFor()
        expect(await page.locator("#power-zones tbody tr").count()).toBe(7)
        expect(await page.locator("#heart-rate-zones tbody tr").count()).toBe(5)
        const widths = await page.locator("#power-zones .bar").evaluateAll((bars) => bars.map((b) => (b as unknown as { style: { width: string } }).style.width))
        expect(widths.some((w) => parseFloat(w) > 10)).toBe(true)
        // the zones' fixed colours: seven for power, the grey, blue, green, orange and red of them for heart rate
        const fills = (table: string) => page.locator(`${table} .bar`).evaluateAll((bars) => bars.map((b) => (globalThis as any).getComputedStyle(b).backgroundColor as string))
        const ramp = (zones: ReadonlyArray<number>) => Promise.all(zones.map((z) => paletteColor(`var(--zone-${z})`)))
        expect(await fills("#power-zones")).toEqual(await ramp([1, 2, 3, 4, 5, 6, 7]))
        expect(await fills("#heart-rate-zones")).toEqual(await ramp([1, 2, 3, 5, 6]))
        // the curve in the colour of power, ticks at round durations, the duration and its watts under the cursor
        expect(await markerColor(page, "#activity-power-curve", "Best power")).toBe(await paletteColor("var(--metric-power)"))
        await expectRoundDurations("#activity-power-curve canvas")
        const best = await hover("#activity-power-curve", "#activity-power-curve .chart-legend", 0.5)
        expect(best[0]).toMatch(/^\d+ (s|min|h)\b/)
        expect(best[1]).toMatch(/^[\d,]+ W$/)
        await page.mouse.move(0, 0)
        await page.locator("#activity-training").scrollIntoViewIfNeeded()
        await shootBothSchemes("activity-training")
        await screenshot(page.locator("#activity-training"), { path: path.join(ARTIFACTS, "activity-training-section.png") })
        expect(problems).toEqual([])
      }), 90_000)
  })
})
