import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { builtDashboard } from "../../support/programs.ts"
import { CHROMIUM_MISSING, chromiumAvailable, screenshot } from "../../support/chromium.ts"
import { recordPath } from "../../support/gridTown.ts"
import { daemonOrigin, seedActivity, send, TestDaemon } from "../../support/TestDaemon.ts"
import { openSignedIn, type SignedInPage } from "./signedInPage.ts"
import { matchedSegment } from "../../support/matchedSegment.ts"

/**
 * Segments on the dashboard, in Chromium: three rides over the same hill road, a segment made
 * of a stretch through the API; the Segments list searched, the segment's page (map, profile,
 * best beside last, top 10, efforts over time, rename), an activity's efforts with their PR
 * marks and its climb shown on the map, the climb and a chosen stretch made segments from the
 * page. Phone and desktop, light and dark, axe-core; screenshots in test-artifacts/segments-dashboard.
 */

const ARTIFACTS = path.resolve("test-artifacts/segments-dashboard")
if (!chromiumAvailable) console.warn(`[segments dashboard browser test] skipped: ${CHROMIUM_MISSING}`)

/** 1 km flat, 2 km at 6 % (a category 4 climb), 1 km flat, eastwards at `speed` m/s, on `day`. */
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


let ui: SignedInPage | undefined

afterAll(async () => {
  await ui?.close()
})

describe.skipIf(!chromiumAvailable)("segments on the dashboard", () => {
  layer(TestDaemon.layer(), { excludeTestServices: true, timeout: 180_000 })("", (it) => {
    it.effect("the Segments list and a segment's page; an activity's efforts and climbs, shown on its map and made segments", () =>
      Effect.gen(function*() {
        const daemon = yield* TestDaemon
        const base = yield* daemonOrigin
        yield* hillRide("2025-03-01", 5)
        yield* hillRide("2025-04-01", 6)
        const last = yield* hillRide("2025-05-01", 5.5)
        const made = yield* send("POST", "/api/v1/segments", { json: { name: "Hill road", activityId: last, fromDistanceInMeter: 900, toDistanceInMeter: 3100 } })
        expect(made.status).toBe(201)
        const segment = yield* matchedSegment(made.json.id)
        expect(segment.effortCount).toBe(3)
        yield* send("POST", "/api/v1/segments", { json: { name: "Flat start", activityId: last, fromDistanceInMeter: 100, toDistanceInMeter: 800 } })

        yield* Effect.promise(async () => {
          builtDashboard()
          ui = await openSignedIn(base, daemon.apiKey, ARTIFACTS)
          const page = ui.page

          // the list, from the menu, searched by name
          await ui.go("#/activities", "#sections")
          await ui.redrawn(() => page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Segments" }).click())
          await page.locator("#segment-list table").waitFor()
          expect(await page.locator("#segment-list tbody tr").count()).toBe(2)
          const row = page.locator("#segment-list tbody tr", { hasText: "Hill road" })
          expect(await row.textContent()).toMatch(/2\.\d+ km/)
          expect(await row.textContent()).toContain("5.4 %")
          await page.getByRole("searchbox").fill("hill")
          await page.locator("#segment-list tbody tr").filter({ hasText: "Flat start" }).waitFor({ state: "detached" })
          expect(await page.locator("#segment-list tbody tr").count()).toBe(1)
          await ui.shoot("list")
          await ui.axe("segments list")

          // its page: map, profile, best beside last, top 10, efforts over time
          await ui.go(`#/segment/${segment.id}`, "#segment-map")
          expect(await page.locator("#segment-name").textContent()).toBe("Hill road")
          expect(await page.locator("#segment-top tbody tr").count()).toBe(3)
          expect(await page.locator("#segment-top tbody tr").first().textContent()).toContain("Hill ride of 2025-04-01")
          expect(await page.locator("#segment-best-last").textContent()).toMatch(/Best.*2025-04-01.*Last.*2025-05-01/s)
          await page.locator("#segment-profile canvas").waitFor()
          await page.locator("#segment-history canvas").waitFor()
          await ui.shoot("segment")
          await ui.axe("segment")
          // renamed
          await page.locator("summary", { hasText: "Rename or delete" }).click()
          await page.locator("#rename-segment input[name=name]").fill("The hill")
          await ui.redrawn(() => page.locator("#rename-segment button[type=submit]").click())
          await page.locator("#segment-name", { hasText: "The hill" }).waitFor()

          // the last ride's page: its efforts with their marks, its climb on the map
          await ui.go(`#/activity/${last}`, "#activity-segments")
          const efforts = page.locator("#activity-efforts tbody tr")
          expect(await efforts.count()).toBe(2)
          expect(await page.locator("#activity-efforts").textContent()).toMatch(/The hill.*2nd.*2 \/ 3/s)
          expect(await page.locator("#activity-climbs li").count()).toBe(1)
          expect(await page.locator("#activity-climbs").textContent()).toMatch(/Cat\. 4.*5\.\d %.*VAM [\d,]+ m\/h/s)
          await ui.shoot("activity")
          await ui.axe("activity")
          const show = page.locator("#activity-climbs button", { hasText: "Show" })
          await show.click()
          expect(await show.getAttribute("aria-pressed")).toBe("true")
          await page.locator("#activity-map path.segment-highlight").waitFor({ state: "attached" })
          await page.locator("#activity-map").scrollIntoViewIfNeeded()
          await screenshot(page, { path: path.join(ARTIFACTS, "activity-climb-shown-desktop.png"), fullPage: true })
          // a second press hides it
          await show.click()
          await page.locator("#activity-map path.segment-highlight").waitFor({ state: "detached" })

          // a stretch chosen by its distances made a segment
          await page.locator("#make-segment summary").click()
          await page.locator("#make-segment input[name=from]").fill("3.2")
          await page.locator("#make-segment input[name=to]").fill("3.9")
          await page.locator("#make-segment input[name=name]").fill("Top flat")
          await page.setViewportSize({ width: 390, height: 844 })
          await page.locator("#make-segment").scrollIntoViewIfNeeded()
          await screenshot(page, { path: path.join(ARTIFACTS, "activity-stretch-phone.png"), fullPage: true })
          await page.setViewportSize({ width: 1280, height: 900 })
          await ui.redrawn(() => page.locator("#make-segment button[type=submit]").click())
          await page.locator("#segment-name", { hasText: "Top flat" }).waitFor()

          // the climb made a segment in one click
          await ui.go(`#/activity/${last}`, "#activity-climbs")
          await ui.redrawn(() => page.locator("#activity-climbs button", { hasText: "Make segment" }).click())
          await page.locator("#segment-name", { hasText: "Hill ride of 2025-05-01" }).waitFor()

          // deleted from its page
          await page.locator("summary", { hasText: "Rename or delete" }).click()
          await page.locator("#rename-segment button", { hasText: "Delete…" }).click()
          await ui.redrawn(() => page.locator("dialog button[value=ok]").click())
          await page.locator("#segment-list table").waitFor()
          expect(ui.problems).toEqual([])
        })
        const names = (yield* send("GET", "/api/v1/segments")).json.segments.map((s: { name: string }) => s.name).sort()
        expect(names).toEqual(["Flat start", "The hill", "Top flat"])
      }), 300_000)
  })
})
