import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { builtDashboard } from "../../support/programs.ts"
import { haversine } from "../../../src/services/sharing/visibleTrack.ts"
import { CHROMIUM_MISSING, chromiumAvailable, screenshot } from "../../support/chromium.ts"
import { daemonOrigin, seedActivity, send, TestDaemon } from "../../support/TestDaemon.ts"
import { openSignedIn, type SignedInPage } from "./signedInPage.ts"

/**
 * Sharing on the dashboard, in Chromium: the activity page's Share panel makes a link with the
 * choices ticked, shows it once with a copy button and the card, lists and revokes it; the map
 * draws the part links show; the Privacy page places a zone with a click on its map. Phone and
 * desktop, light and dark, axe-core; screenshots in test-artifacts/sharing-dashboard.
 */

const ARTIFACTS = path.resolve("test-artifacts/sharing-dashboard")
if (!chromiumAvailable) console.warn(`[sharing dashboard browser test] skipped: ${CHROMIUM_MISSING}`)

const ride = () => {
  const perDegree = haversine([45, 6], [45, 7])
  const latlng: Array<[number, number]> = []
  const time: Array<number> = [], altitude: Array<number> = []
  for (let i = 0; i <= 1200; i++) {
    latlng.push([45 + 0.01 * Math.sin(i / 250), 6 + (i * 10) / perDegree])
    time.push(i * 2)
    altitude.push(400 + 80 * Math.sin(i / 200))
  }
  return { latlng, time, altitude }
}

let ui: SignedInPage | undefined

afterAll(async () => {
  await ui?.close()
})

describe.skipIf(!chromiumAvailable)("sharing on the dashboard", () => {
  layer(TestDaemon.layer(), { excludeTestServices: true, timeout: 180_000 })("", (it) => {
    it.effect("Share panel: a link made, copied, revoked; the part links show on the map; zones placed on the Privacy page's map", () =>
      Effect.gen(function*() {
        const daemon = yield* TestDaemon
        const base = yield* daemonOrigin
        const id = yield* seedActivity({ name: "Evening loop", sportType: "Ride", streams: ride() })
        yield* send("POST", "/api/v1/privacy-zones", { json: { name: "Home", latitude: 45, longitude: 6, radiusInMeter: 600 } })
        yield* Effect.promise(async () => {
          builtDashboard()
          ui = await openSignedIn(base, daemon.apiKey, ARTIFACTS)
          const page = ui.page
          await ui.go(`#/activity/${id}`, "#activity-map")
          await page.locator("#activity-shared-part", { hasText: "green" }).waitFor()
          await ui.shoot("activity-shared-part")
          await ui.axe("activity")

          await page.locator("#activity-share summary").click()
          await page.locator("#share-list li").first().waitFor()
          expect(await page.locator("#share-list").textContent()).toContain("No link yet.")
          await page.route(/\/shares$/, async (r) => { if (r.request().method() === "GET") await new Promise((res) => setTimeout(res, 700)); await r.continue() })
          await page.locator("#activity-share input[name=heartRate]").check()
          await page.locator("#activity-share button[type=submit]").click()
          const url = await page.locator("#share-url").inputValue()
          expect(url).toMatch(/^http:\/\/waymark\.test\/s\/[A-Za-z0-9_-]{43}$/)
          await page.locator("#activity-share button", { hasText: "Copy link" }).click()
          expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(url)
          // the list is drawn again after the link is shown: wait for the new row, not for the link
          await page.locator("#share-list li", { hasText: "heart rate" }).waitFor()
          expect(await page.locator("#share-list li").count()).toBe(1)
          // the card loaded: the owner's picture of what links show
          await page.locator("#activity-share img.share-card").scrollIntoViewIfNeeded()
          await page.waitForFunction(() => (globalThis as any).document.querySelector("#activity-share img.share-card")?.naturalWidth === 1200)
          await screenshot(page, { path: path.join(ARTIFACTS, "share-panel-desktop.png"), fullPage: true })
          await page.setViewportSize({ width: 390, height: 844 })
          await screenshot(page, { path: path.join(ARTIFACTS, "share-panel-phone.png"), fullPage: true })
          await page.setViewportSize({ width: 1280, height: 900 })
          await page.locator("#share-list button", { hasText: "Revoke" }).click()
          await page.locator("dialog button[value=ok]").click()
          await page.locator("#share-list", { hasText: "No link yet." }).waitFor()

          await ui.go("#/privacy", "#zones-map")
          expect(await page.locator("#zone-list").textContent()).toContain("Home")
          await page.locator("#zones-map").click({ position: { x: 60, y: 60 } })
          expect(await page.locator("input[name=latitude]").inputValue()).not.toBe("")
          await page.locator("input[name=name]").fill("Work")
          await ui.redrawn(() => page.locator("#zone-form button[type=submit]").click())
          await page.locator("#zone-list", { hasText: "Work" }).waitFor()
          await ui.shoot("privacy")
          await ui.axe("privacy")
          expect(ui.problems).toEqual([])
        }).pipe(
          // the browser closed with the test, so that no connection of its outlives the daemon's scope
          Effect.ensuring(Effect.promise(async () => {
            await ui?.close()
            ui = undefined
          }))
        )
        const zones = (yield* send("GET", "/api/v1/privacy-zones")).json.privacyZones
        expect(zones.map((z: { name: string }) => z.name)).toEqual(["Home", "Work"])
      }), 300_000)
  })
})
