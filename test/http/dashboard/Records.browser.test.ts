import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { builtDashboard } from "../../support/programs.ts"
import { CHROMIUM_MISSING, chromiumAvailable, screenshot } from "../../support/chromium.ts"
import { daemonOrigin, seedActivity, send, TestDaemon } from "../../support/TestDaemon.ts"
import { openSignedIn, type SignedInPage } from "./signedInPage.ts"

/**
 * Records to trust on the dashboard, in Chromium: the records page names each record's activity
 * with a link to it; its edit panel's switch keeps it out of the records, and the records page
 * then shows the next best. Phone and desktop, light and dark, axe-core; screenshots in
 * test-artifacts/records-dashboard.
 */

const ARTIFACTS = path.resolve("test-artifacts/records-dashboard")
if (!chromiumAvailable) console.warn(`[records dashboard browser test] skipped: ${CHROMIUM_MISSING}`)

let ui: SignedInPage | undefined

afterAll(async () => {
  await ui?.close()
})

const at = (local: string, overrides: Parameters<typeof seedActivity>[0]) =>
  seedActivity({ startTime: Date.parse(`${local}Z`), startDateLocal: local, ...overrides })

describe.skipIf(!chromiumAvailable)("records on the dashboard", () => {
  layer(TestDaemon.layer(), { excludeTestServices: true, timeout: 180_000 })("", (it) => {
    it.effect("the records page links each record's activity; its edit switch keeps it out of the records", () =>
      Effect.gen(function*() {
        const daemon = yield* TestDaemon
        const base = yield* daemonOrigin
        yield* at("2023-04-01T08:00:00", { sportType: "Run", name: "Park run", bestEfforts: [{ distanceInMeter: 5000, elapsedTimeInSeconds: 1500, startOffsetInSeconds: 0 }] })
        const jumped = yield* at("2023-06-01T08:00:00", {
          sportType: "TrailRun",
          name: "Mountain run with a GPS jump",
          bestEfforts: [{ distanceInMeter: 400, elapsedTimeInSeconds: 51, startOffsetInSeconds: 600 }, { distanceInMeter: 5000, elapsedTimeInSeconds: 700, startOffsetInSeconds: 0 }]
        })
        yield* at("2023-07-01T08:00:00", { sportType: "VirtualRun", name: "Treadmill tempo", bestEfforts: [{ distanceInMeter: 5000, elapsedTimeInSeconds: 1200, startOffsetInSeconds: 0 }] })
        yield* Effect.promise(async () => {
          builtDashboard()
          ui = await openSignedIn(base, daemon.apiKey, ARTIFACTS)
          const page = ui.page
          await ui.go("#/stats", "#records")
          const row = page.locator("#records tr", { hasText: "5 km run" }).first()
          expect(await row.locator("a.record-activity").textContent()).toBe("Mountain run with a GPS jump")
          expect(await page.locator("#records tr", { hasText: "5 km virtual run" }).locator("a").textContent()).toBe("Treadmill tempo")
          await ui.shoot("records")
          await ui.axe("records")

          await ui.redrawn(() => row.locator("a.record-activity").click())
          expect(page.url()).toContain(`#/activity/${jumped}`)
          await page.locator("#activity-edit summary").click()
          const toggle = page.getByRole("switch", { name: "Keep out of records" })
          expect(await toggle.isChecked()).toBe(false)
          await toggle.check()
          await screenshot(page.locator("#activity-edit"), { path: path.join(ARTIFACTS, "edit-switch-desktop.png") })
          await ui.redrawn(() => page.locator("#edit-activity button[type=submit]").click())
          await page.locator("#activity-edit summary").click()
          expect(await page.getByRole("switch", { name: "Keep out of records" }).isChecked()).toBe(true)
          await ui.shoot("activity-edit")
          await ui.axe("activity-edit")

          await ui.go("#/stats", "#records")
          const next = page.locator("#records tr", { hasText: "5 km run" }).first()
          expect(await next.locator("a.record-activity").textContent()).toBe("Park run")
          expect(await page.locator("#records").textContent()).not.toContain("Mountain run")
          await ui.shoot("records-after")
          expect(ui.problems).toEqual([])
        }).pipe(
          Effect.ensuring(Effect.promise(async () => {
            await ui?.close()
            ui = undefined
          }))
        )
        const stored = (yield* send("GET", `/api/v1/activities/${jumped}`)).json
        expect(stored.excludeFromRecords).toBe(true)
      }), 300_000)
  })
})
