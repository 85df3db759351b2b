import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import type { Page } from "playwright-core"
import { CHROMIUM_MISSING, chromiumAvailable, DESKTOP, PHONES, screenshot } from "../../support/chromium.ts"
import { recordPath } from "../../support/gridTown.ts"
import { matchedSegment } from "../../support/matchedSegment.ts"
import { builtDashboard } from "../../support/programs.ts"
import { daemonOrigin, seedActivity, send, TestDaemon } from "../../support/TestDaemon.ts"
import { nextFrames, open, seriousViolations } from "./pageTools.ts"
import { openSignedIn, type SignedInPage } from "./signedInPage.ts"

/**
 * An activity's stretches over its charts, in Chromium: a segment effort and a climb shown
 * draw their stretch on the altitude chart as on the map; a segment made of a stretch chosen by
 * a drag across the altitude chart, and one chosen by two clicks on the map. Phone and desktop,
 * light and dark, axe-core; screenshots in test-artifacts/segment-stretch.
 */

const ARTIFACTS = path.resolve("test-artifacts/segment-stretch")
if (!chromiumAvailable) console.warn(`[segment stretch browser test] skipped: ${CHROMIUM_MISSING}`)

/** 1 km flat, 2 km at 6 %, 1 km flat, eastwards: 4 km. */
const hillRide = (day: string, speed: number) => {
  const track = recordPath([[0, 0], [4000, 0]], { speed, every: 2, noise: 3, seed: speed })
  const altitude = track.distance.map((d) => 100 + Math.min(120, Math.max(0, d - 1000) * 0.06))
  return seedActivity({
    name: `Hill ride of ${day}`,
    sportType: "Ride",
    startTime: Date.parse(`${day}T08:00:00Z`),
    startDateLocal: `${day}T08:00:00`,
    streams: { ...track, altitude }
  })
}

const ALTITUDE = "#activity-charts .chart[aria-label='Altitude over distance']"

/**
 * The altitude chart's pixels kept in the page, to be compared with later (`changedColumns`):
 * the canvas's megabytes of pixels never leave the browser.
 */
const keepPixels = (page: Page) =>
  page.evaluate((selector) => {
    const canvas = (globalThis as any).document.querySelector(`${selector} canvas`)
    ;(globalThis as any).keptPixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data
  }, ALTITUDE)

/** The columns of the altitude chart's canvas that differ from the pixels kept, as shares of its width: where a band was drawn or taken away. */
const changedColumns = (page: Page) =>
  page.evaluate((selector) => {
    const canvas = (globalThis as any).document.querySelector(`${selector} canvas`)
    const width: number = canvas.width
    const before: Uint8ClampedArray = (globalThis as any).keptPixels
    const after: Uint8ClampedArray = canvas.getContext("2d").getImageData(0, 0, width, canvas.height).data
    const columns = new Set<number>()
    for (let i = 0; i < after.length; i++) if (after[i] !== before[i]) columns.add(Math.floor(i / 4) % width)
    const sorted = [...columns].sort((a, b) => a - b)
    return { count: sorted.length, first: (sorted[0] ?? 0) / width, last: (sorted[sorted.length - 1] ?? 0) / width }
  }, ALTITUDE)

const km = async (page: Page, name: string) => Number(await page.locator(`#make-segment input[name=${name}]`).inputValue())

/** Drags across the altitude chart's plot from one share of its width to another. */
const dragAcross = async (page: Page, from: number, to: number) => {
  const over = page.locator(`${ALTITUDE} .u-over`)
  await over.scrollIntoViewIfNeeded()
  const box = (await over.boundingBox())!
  const y = box.y + box.height / 2
  await page.mouse.move(box.x + box.width * from, y)
  await page.mouse.down()
  await page.mouse.move(box.x + box.width * ((from + to) / 2), y, { steps: 4 })
  await page.mouse.move(box.x + box.width * to, y, { steps: 4 })
  await page.mouse.up()
}

let ui: SignedInPage | undefined

afterAll(async () => {
  await ui?.close()
})

describe.skipIf(!chromiumAvailable)("an activity's stretches on its charts and map", () => {
  layer(TestDaemon.layer(), { excludeTestServices: true, timeout: 180_000 })("", (it) => {
    it.effect("an effort and a climb shown on the altitude chart; a segment made of a stretch dragged across the chart or clicked on the map", () =>
      Effect.gen(function*() {
        const daemon = yield* TestDaemon
        const base = yield* daemonOrigin
        yield* hillRide("2025-03-01", 5)
        const ride = yield* hillRide("2025-05-01", 5.5)
        const made = yield* send("POST", "/api/v1/segments", { json: { name: "Hill road", activityId: ride, fromDistanceInMeter: 900, toDistanceInMeter: 3100 } })
        expect(made.status).toBe(201)
        yield* matchedSegment(made.json.id)
        // the track's length (the seeded summary says 10 km whatever the track)
        const total = 4000

        yield* Effect.promise(async () => {
          builtDashboard()
          ui = await openSignedIn(base, daemon.apiKey, ARTIFACTS)
          const page = ui.page
          await ui.go(`#/activity/${ride}`, "#activity-efforts")
          await page.locator(`${ALTITUDE} canvas`).waitFor()
          await nextFrames(page)

          // the effort shown: a band over the altitude chart where the segment lies (0.9 to 3.1 of 4 km, the plot inside its axis)
          await keepPixels(page)
          const showEffort = page.locator("#activity-efforts button", { hasText: "Show" })
          await showEffort.click()
          await page.locator("#chart-stretch", { hasText: "Shown: Hill road" }).waitFor()
          await page.locator("#activity-map path.segment-highlight").waitFor({ state: "attached" })
          const band = await changedColumns(page)
          expect(band.count).toBeGreaterThan(0)
          expect(band.first).toBeGreaterThan(0.2)
          expect(band.first).toBeLessThan(0.4)
          expect(band.last).toBeGreaterThan(0.7)
          expect(band.last).toBeLessThan(0.85)
          await page.evaluate(() => (globalThis as any).scrollTo(0, 0))
          await screenshot(page, { path: path.join(ARTIFACTS, "effort-shown-desktop.png"), fullPage: true })

          // the climb shown instead: the effort's band goes, the climb's (1 to 3 km) is drawn
          await page.locator("#activity-climbs button", { hasText: "Show" }).click()
          await page.locator("#chart-stretch", { hasText: "Shown: Climb 1 (category 4)" }).waitFor()
          expect(await showEffort.getAttribute("aria-pressed")).toBe("false")
          // pressed again, nothing is shown
          await keepPixels(page)
          await page.locator("#activity-climbs button", { hasText: "Show" }).click()
          await page.locator("#chart-stretch").waitFor({ state: "hidden" })
          expect((await changedColumns(page)).count).toBeGreaterThan(0)
          await page.locator("#activity-map path.segment-highlight").waitFor({ state: "detached" })

          // a stretch chosen on the map: its start clicked, then its end (the whole route in view: eastwards, from its left)
          await open(page, base, `#/activity/${ride}`, "#activity-efforts")
          await page.locator("#make-segment summary").click()
          const route = page.locator("#activity-map path").first()
          await route.scrollIntoViewIfNeeded()
          const line = (await route.boundingBox())!
          await page.mouse.click(line.x + line.width * 0.25, line.y + line.height / 2)
          await page.locator("#make-segment-status", { hasText: "now choose its end" }).waitFor()
          await page.mouse.click(line.x + line.width * 0.75, line.y + line.height / 2)
          await page.locator("#make-segment-status", { hasText: "is chosen" }).waitFor()
          expect(Math.abs(await km(page, "from") - (total * 0.25) / 1000)).toBeLessThan(0.2)
          expect(Math.abs(await km(page, "to") - (total * 0.75) / 1000)).toBeLessThan(0.2)
          await page.locator("#activity-map path.segment-chosen").waitFor({ state: "attached" })
          await page.locator("#chart-stretch", { hasText: "Chosen: the new segment" }).waitFor()
          await page.evaluate(() => (globalThis as any).scrollTo(0, 0))
          await screenshot(page, { path: path.join(ARTIFACTS, "map-chosen-desktop.png"), fullPage: true })
          await page.locator("#make-segment input[name=name]").fill("Middle of the hill")
          await ui.redrawn(() => page.locator("#make-segment button[type=submit]").click())
          await page.locator("#segment-name", { hasText: "Middle of the hill" }).waitFor()

          // a stretch dragged across the altitude chart, in each look: shot, and axe-core clean
          for (const scheme of ["light", "dark"] as const) {
            await page.emulateMedia({ colorScheme: scheme })
            await open(page, base, `#/activity/${ride}`, "#activity-efforts")
            await page.locator(`${ALTITUDE} canvas`).waitFor()
            await page.locator("#make-segment summary").click()
            for (const [size, viewport] of [["desktop", DESKTOP], ...PHONES] as const) {
              await page.setViewportSize(viewport)
              await nextFrames(page)
              await dragAcross(page, 0.3, 0.6)
              await page.locator("#make-segment-status", { hasText: "is chosen" }).waitFor()
              const [from, to] = [await km(page, "from"), await km(page, "to")]
              // the plot's shares: the axis on its left is outside the plot
              expect(from).toBeGreaterThan(0.8)
              expect(from).toBeLessThan(1.6)
              expect(to - from).toBeGreaterThan(0.8)
              expect(to).toBeLessThan(2.8)
              await page.locator("#chart-stretch", { hasText: "Chosen: the new segment" }).waitFor()
              await page.locator("#activity-map path.segment-chosen").waitFor({ state: "attached" })
              await page.evaluate(() => (globalThis as any).scrollTo(0, 0))
              await nextFrames(page)
              await screenshot(page, { path: path.join(ARTIFACTS, `chart-chosen-${size}-${scheme}.png`), fullPage: true })
              expect(await seriousViolations(page), `axe, a stretch chosen, ${size}, ${scheme}`).toEqual([])
            }
          }
          await page.setViewportSize(DESKTOP)
          await page.emulateMedia({ colorScheme: "light" })
          const [from, to] = [await km(page, "from"), await km(page, "to")]
          await page.locator("#make-segment input[name=name]").fill("Dragged stretch")
          await ui.redrawn(() => page.locator("#make-segment button[type=submit]").click())
          await page.locator("#segment-name", { hasText: "Dragged stretch" }).waitFor()
          expect(ui.problems).toEqual([])
          return { from, to }
        }).pipe(Effect.flatMap(({ from, to }) =>
          Effect.gen(function*() {
            const segments: Array<{ name: string; distanceInMeter: number }> = (yield* send("GET", "/api/v1/segments")).json.segments
            const byName = new Map(segments.map((s) => [s.name, s.distanceInMeter]))
            // each made of the stretch chosen: its length that of the stretch, give or take the line's thinning
            expect(Math.abs(byName.get("Middle of the hill")! - total / 2)).toBeLessThan(250)
            expect(Math.abs(byName.get("Dragged stretch")! - (to - from) * 1000)).toBeLessThan(100)
          })))
      }), 600_000)
  })
})
