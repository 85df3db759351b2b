import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import { chromium } from "playwright-core"
import { daysAgo, listeningEnv, scopedDirs, scopedFake, withConnector } from "./harness.ts"

/**
 * The dashboard in a real browser: headless Chromium from the distribution's packages (or
 * CHROMIUM_PATH), driven by playwright-core, connects against the fake Wahoo and sees the
 * downloads listed, then syncs again with the button.
 */

const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium"
const available = fs.existsSync(CHROMIUM)
if (!available) {
  console.warn(`[wahoo dashboard browser test] skipped: no Chromium at ${CHROMIUM} (install the chromium package or set CHROMIUM_PATH)`)
}

const browser = Effect.acquireRelease(
  Effect.promise(() => chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] })),
  (b) => Effect.promise(() => b.close())
)

describe("Wahoo dashboard in Chromium", () => {
  it.scopedLive.skipIf(!available)("connecting from the dashboard lists the downloads; Sync now runs another sync", () =>
    Effect.gen(function*() {
      const fake = yield* scopedFake()
      const dirs = yield* scopedDirs
      const env = yield* listeningEnv(fake, dirs)
      const workouts = [1, 2, 5].map((d) => fake.addWorkout({ starts: daysAgo(d) }))
      const names = workouts.map((w) => `${w.starts.slice(0, 10)}_workout_${w.id}.fit`)
      const chrome = yield* browser
      yield* withConnector({ fake, dirs, env }, (running) =>
        Effect.promise(async () => {
          const context = await chrome.newContext({ ignoreHTTPSErrors: true })
          try {
            const page = await context.newPage()
            await page.goto(`${running.base}/`)
            expect(await page.locator("#connection").textContent()).toBe("Not connected")
            await page.click("#connect")
            await page.waitForURL(/\/\?notice=/)
            expect(await page.locator("#notice").textContent()).toContain("Connected to Wahoo")
            // the page reloads itself when the first sync ends
            for (const name of names) await page.locator("#downloads").getByText(name).waitFor({ timeout: 20_000 })
            expect(await page.locator("#connection").textContent()).toBe("Connected to Wahoo")
            expect(await page.locator("#last-result").textContent()).toContain("Downloaded 3 new workouts")

            await page.selectOption("select[name=time_window]", "1_year")
            await page.click("#sync-now")
            await page.locator("#last-result").getByText("No new workouts").waitFor({ timeout: 20_000 })
            expect(await page.locator("#last-result").textContent()).toContain("window: last year")
          } finally {
            await context.close()
          }
        }))
      expect(fake.requestsTo("/v1/workouts").map((r) => r.authorization !== undefined)).toEqual([true, true])
    }), 90_000)
})
