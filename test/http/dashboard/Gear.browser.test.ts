import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { GearRepo } from "../../../src/services/activities/GearRepo.ts"
import { builtDashboard } from "../../support/programs.ts"
import { CHROMIUM_MISSING, chromiumAvailable } from "../../support/chromium.ts"
import { daemonOrigin, seedActivity, seedGear, TestDaemon } from "../../support/TestDaemon.ts"
import { fitsScreen, nextFrames } from "./pageTools.ts"
import { openSignedIn, type SignedInPage } from "./signedInPage.ts"

/**
 * Gear on the dashboard, in Chromium: the Gear page reads each gear's kind and make (no longer
 * "Imported" for every item) and links each gear's own page, which shows its totals, its
 * distance over time as a chart and its activities. Phone and desktop, light and dark,
 * axe-core; screenshots in test-artifacts/gear-dashboard.
 */

const ARTIFACTS = path.resolve("test-artifacts/gear-dashboard")
if (!chromiumAvailable) console.warn(`[gear dashboard browser test] skipped: ${CHROMIUM_MISSING}`)

let ui: SignedInPage | undefined

afterAll(async () => {
  await ui?.close()
})

const ride = (local: string, gearId: string, distanceInMeter: number, name: string) =>
  seedActivity({ sportType: "Ride", name, gearId, distanceInMeter, startTime: Date.parse(`${local}Z`), startDateLocal: local })

describe.skipIf(!chromiumAvailable)("gear on the dashboard", () => {
  layer(TestDaemon.layer(), { excludeTestServices: true, timeout: 180_000 })("", (it) => {
    it.effect("the Gear page reads each gear's kind and make and links its page: totals, distance over time, its activities", () =>
      Effect.gen(function*() {
        const daemon = yield* TestDaemon
        const base = yield* daemonOrigin
        const gear = yield* GearRepo
        yield* gear.upsert({ id: "gear-domane", name: "Domane", type: "imported", isRetired: false, brand: "Trek", model: "Domane SL6", kind: "bike" })
        yield* gear.upsert({ id: "gear-pegasus", name: "Pegasus 40", type: "imported", isRetired: false, brand: "Nike", model: "Pegasus", kind: "shoes" })
        yield* gear.upsert({ id: "gear-old", name: "Old hack", type: "imported", isRetired: true })
        yield* seedGear({ id: "gear-mine", name: "Commuter" })
        const rides: Array<string> = []
        for (const [i, local] of ["2024-03-02T09:00:00", "2024-03-20T09:00:00", "2024-05-11T09:00:00", "2024-06-01T09:00:00", "2024-08-15T09:00:00"].entries()) {
          rides.push(yield* ride(local, "gear-domane", 40_000 + i * 10_000, `Ride ${i + 1}`))
        }
        yield* Effect.promise(async () => {
          builtDashboard()
          ui = await openSignedIn(base, daemon.apiKey, ARTIFACTS)
          const page = ui.page
          await ui.go("#/gear", "#gear-list")
          const row = (name: string) => page.locator("#gear-list tbody tr", { hasText: name })
          expect(await row("Domane").locator("td.opt").first().textContent()).toBe("Bike · Trek Domane SL6")
          expect(await row("Pegasus 40").locator("td.opt").first().textContent()).toBe("Shoes · Nike Pegasus")
          expect(await row("Old hack").locator("td.opt").first().textContent()).toBe("Imported")
          expect(await row("Commuter").locator("td.opt").first().textContent()).toBe("Added here")
          await ui.shoot("gear")
          await ui.axe("gear")

          await ui.redrawn(() => row("Domane").getByRole("link", { name: "Domane" }).click())
          expect(page.url()).toContain("#/gearItem/gear-domane")
          await page.locator("#gear-distance canvas").first().waitFor()
          expect(await page.locator("#gear-make").textContent()).toBe("Bike · Trek Domane SL6")
          expect(await page.locator(".stats").textContent()).toContain("300")
          const listed = await page.locator("#gear-activities tbody tr td.name a").allTextContents()
          expect(listed).toEqual(["Ride 5", "Ride 4", "Ride 3", "Ride 2", "Ride 1"])
          expect(await page.locator("#gear-activities a", { hasText: "Ride 1" }).getAttribute("href")).toBe(`#/activity/${rides[0]}`)
          for (const width of [390, 1280]) {
            await page.setViewportSize({ width, height: 900 })
            // the chart follows its box's new width on the next frame
            await nextFrames(page)
            expect(await fitsScreen(page), `the gear page fits ${width} px`).toBe(true)
          }
          await ui.shoot("gear-item")
          await ui.axe("gear-item")
          expect(ui.problems).toEqual([])
        }).pipe(
          Effect.ensuring(Effect.promise(async () => {
            await ui?.close()
            ui = undefined
          }))
        )
      }), 300_000)
  })
})
