import { afterAll, beforeAll, describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Runtime } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Browser, Page } from "playwright-core"
import { ShareRequestsPolicy } from "../../src/http/sharing/ShareRequests.ts"
import { haversine } from "../../src/services/sharing/visibleTrack.ts"
import { CHROMIUM_MISSING, chromiumAvailable, DESKTOP, launchChromium, PHONES, screenshot } from "../support/chromium.ts"
import { seedActivity, send, TestDaemon } from "../support/TestDaemon.ts"
import { fitsScreen, seriousViolations, shoot } from "./dashboard/pageTools.ts"

/**
 * The page a share link opens, in a real browser that reaches the daemon through its APP_URL
 * (every request to http://waymark.test is answered by the daemon, with its own headers): it
 * fits a phone, reads in light and dark, passes axe, and asks nothing of another host. Screenshots
 * in test-artifacts/sharing/.
 */

const ARTIFACTS = path.resolve("test-artifacts/sharing")
if (!chromiumAvailable) console.warn(`[shared page browser test] skipped: ${CHROMIUM_MISSING}`)

const ride = () => {
  const perDegree = haversine([45, 6], [45, 7])
  const latlng: Array<[number, number]> = []
  const time: Array<number> = [], altitude: Array<number> = [], heartrate: Array<number> = []
  for (let i = 0; i <= 1500; i++) {
    const d = i * 10
    latlng.push([45 + 0.01 * Math.sin(d / 2500), 6 + d / perDegree])
    time.push(i * 2)
    altitude.push(400 + 120 * Math.sin(i / 200))
    heartrate.push(125 + Math.round(15 * Math.sin(i / 50)))
  }
  return { latlng, time, altitude, heartrate }
}

let browser: Browser
let page: Page
const elsewhere: Array<string> = []
const problems: Array<string> = []

describe.skipIf(!chromiumAvailable)("the shared page in a browser", () => {
  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true })
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
  })

  layer(TestDaemon.layer().pipe(Layer.provide(Layer.succeed(ShareRequestsPolicy, { capacity: Infinity, perMinute: 1 }))), { excludeTestServices: true })("", (it) => {
    it.effect("phone and desktop, light and dark: fits, axe clean, no request to another host, no script error", () =>
      Effect.gen(function*() {
        const id = yield* seedActivity({
          name: "Col de la Croix de Fer from Saint-Jean",
          startTime: Date.parse("2026-07-04T06:00:00Z"),
          startDateLocal: "2026-07-04T08:00:00",
          sportType: "Ride",
          description: "Hot, windy at the top.",
          streams: ride()
        })
        yield* send("POST", "/api/v1/privacy-zones", { json: { name: "Hotel", latitude: 45.005, longitude: 6.06, radiusInMeter: 800 } })
        const made = yield* send("POST", `/api/v1/activities/${id}/shares`, { json: { shows: { heartRate: true, description: true } } })
        const link = made.json.url as string
        const runtime = yield* Effect.runtime<TestDaemon | import("@effect/platform/HttpClient").HttpClient>()
        const run = Runtime.runPromise(runtime)
        yield* Effect.promise(async () => {
          const context = await browser.newContext({ viewport: DESKTOP })
          page = await context.newPage()
          page.on("console", (m) => m.type() === "error" && problems.push(m.text()))
          page.on("pageerror", (e) => problems.push(e.message))
          // the daemon answers for its APP_URL; anything else is another host
          await context.route("**/*", async (route) => {
            const url = new URL(route.request().url())
            if (url.origin !== "http://waymark.test") {
              elsewhere.push(url.href)
              return route.abort()
            }
            const answer = await run(send("GET", url.pathname + url.search, { key: null }))
            await route.fulfill({ status: answer.status, headers: answer.headers, body: answer.bytes })
          })
          for (const scheme of ["light", "dark"] as const) {
            await page.emulateMedia({ colorScheme: scheme })
            await page.goto(link)
            await page.locator("svg.map path.route").waitFor()
            // before axe-core, whose injected styles the page's policy rightly refuses
            expect(problems, `the page's own errors, ${scheme}`).toEqual([])
            expect(await seriousViolations(page), `axe, ${scheme}`).toEqual([])
            problems.length = 0
            for (const [name, size] of PHONES) {
              await page.setViewportSize(size)
              expect(await fitsScreen(page), `${name} ${scheme}`).toBe(true)
            }
            await shoot(page, ARTIFACTS, `shared-page-${scheme}`, [["desktop", DESKTOP], ...PHONES])
          }
          await page.goto(`${link}/image.png`)
          await screenshot(page, { path: path.join(ARTIFACTS, "shared-card.png") })
          await context.close()
        })
        expect(elsewhere).toEqual([])
      }), 120_000)
  })
})
