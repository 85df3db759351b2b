import { afterAll, beforeAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { BrowserContext, Page } from "playwright-core"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE, readCorpusFile } from "../../support/corpus.ts"
import { daemonLayer, dropFile, makeRoot, waitForRow } from "../../support/ImportHarness.ts"
import { daemonOrigin, send } from "../../support/TestDaemon.ts"
import { CHROMIUM_MISSING, chromiumAvailable } from "../../support/chromium.ts"
import { dashboardHelpers, openDashboardBrowser } from "./browser.ts"
import { open } from "./pageTools.ts"

/**
 * The dashboard in a real browser: sign in, the imported corpus in the list, filters, an
 * activity's map and charts, editing (a hostile name stays text), deletion, an upload by the
 * drop zone, the totals; screenshots of every page at phone and desktop sizes (kept in
 * test-artifacts/dashboard) and an axe-core check of each page.
 */

const CORPUS_FILES = [
  "fit/garmin-edge810-vector-power-ride.fit",
  "fit/coros-pace2-run.fit",
  "gpx/garmin-connect-run-hr.gpx",
  "tcx/garmin-edge520-ride-power.tcx",
  "fit/garmin-edge800-indoor-trainer-no-gps.fit",
  "fit/garmin-fenix3-pool-swim-20m.fit"
]
const DROPPED = "tcx/garmin-fenix6-run.tcx"
const HOSTILE = "<img src=x onerror=alert(1)>"
const ARTIFACTS = path.resolve("test-artifacts/dashboard")

const skipReason = !chromiumAvailable ? CHROMIUM_MISSING : CORPUS_DIR === undefined ? CORPUS_MISSING_MESSAGE : undefined
if (skipReason !== undefined) console.warn(`[dashboard browser test] skipped: ${skipReason}`)

const root = makeRoot()
let context: BrowserContext
let page: Page
let base = ""
const problems: Array<string> = []

beforeAll(async () => {
  if (skipReason !== undefined) return
  ;({ context, page } = await openDashboardBrowser(ARTIFACTS, problems))
}, 120_000)

afterAll(async () => {
  await context?.close()
  fs.rmSync(root.root, { recursive: true, force: true })
})

const { shoot, axe, redrawn } = dashboardHelpers(() => page, ARTIFACTS)

const go = (hash: string, ready: string) => open(page, base, hash, ready)

describe.skipIf(skipReason !== undefined)("the dashboard in Chromium", () => {
  layer(daemonLayer(root), { excludeTestServices: true, timeout: 180_000 })("over the imported corpus", (it) => {
    it.scoped("imports the corpus and finds the daemon's address", () =>
      Effect.gen(function*() {
        // the test client is bound to the daemon's listener: its requests say where that is
        base = yield* daemonOrigin
        for (const file of CORPUS_FILES) dropFile(root.watchDir, path.basename(file), readCorpusFile(file))
        for (const file of CORPUS_FILES) {
          const row = yield* waitForRow(path.basename(file))
          expect(row.status, `${file}: ${row.error_message}`).toBe("success")
        }
      }), 300_000)

    it.effect("signs in with the key and lists the imported corpus, newest first", () =>
      Effect.promise(async () => {
        await page.goto(`${base}/`)
        await shoot("sign-in")
        await axe("sign-in")
        await page.fill("#key", "wmk_" + "0".repeat(64))
        await page.click("button[type=submit]")
        expect(await page.locator("[role=alert]").textContent()).toContain("not the service")
        await page.fill("#key", root.apiKey)
        await page.click("button[type=submit]")
        await page.locator("#activity-list").waitFor({ timeout: 15_000 })
        const cookies = await context.cookies()
        expect(cookies.find((c) => c.name === "waymark_session")?.httpOnly).toBe(true)
        expect(await page.evaluate(() => (globalThis as any).document.cookie)).toBe("")
        const rows = page.locator("#activity-list tbody tr")
        expect(await rows.count()).toBe(CORPUS_FILES.length)
        const dates = await page.locator("#activity-list tbody tr td:first-child").allTextContents()
        expect(dates.length).toBe(CORPUS_FILES.length)
        await shoot("activities")
        await axe("activities")
      }), 60_000)

    it.effect("filters the list by sport and by GPS", () =>
      Effect.promise(async () => {
        await go("#/activities", "#activity-list")
        await page.locator("details.picker summary").click()
        await page.getByRole("checkbox", { name: "Run", exact: true }).check()
        await redrawn(() => page.click("form[role=search] button[type=submit]"))
        expect(page.url()).toMatch(/sport=Run/)
        const sports = await page.locator("#activity-list tbody tr td:nth-child(3)").allTextContents()
        // the corpus holds two runs: the COROS one, and the GPX run that names no sport, read as a run from its pace
        expect(sports).toEqual(["Run", "Run"])
        await go("#/activities?gps=false", "#activity-list")
        expect(await page.locator("#activity-list tbody tr").count()).toBe(2)
        await go("#/activities", "#activity-list")
        await page.fill("input[name=q]", "swim")
        await redrawn(() => page.press("input[name=q]", "Enter"))
        expect(page.url()).toMatch(/q=swim/)
        expect(await page.locator("#activity-list td.name a").allTextContents()).toEqual(["Morning Swim"])
      }), 60_000)

    it.effect("opens the ride: its route on the map, its charts with a cursor pointing on the map, laps, splits and best efforts", () =>
      Effect.promise(async () => {
        await go("#/activities?sport=Ride", "#activity-list")
        expect(await page.locator("#activity-list tbody tr").count()).toBe(3)
        // the 41 km power-meter ride of 1 h 18 min
        await page.locator("#activity-list tbody tr", { hasText: "41.34 km" }).locator("td.name a").click()
        await page.locator("#activity-map .leaflet-overlay-pane path").waitFor({ timeout: 15_000 })
        const d = await page.locator("#activity-map .leaflet-overlay-pane path").getAttribute("d")
        expect((d ?? "").length).toBeGreaterThan(100)
        // altitude, speed, heart rate, power and cadence
        await page.locator("#activity-charts canvas").nth(4).waitFor()
        const titles = await page.locator("#activity-charts .chart h3").allTextContents()
        expect(titles.map((t) => t.split(" (")[0])).toEqual(["Altitude", "Speed", "Heart rate", "Power", "Cadence"])
        const plot = page.locator("#activity-charts .u-over").first()
        await plot.scrollIntoViewIfNeeded()
        const box = (await plot.boundingBox())!
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
        // the cursor's dot joins the route on the map
        await page.locator("#activity-map .leaflet-overlay-pane path").nth(1).waitFor({ timeout: 5_000 })
        await page.locator("#splits tbody tr").first().waitFor()
        expect(await page.locator("#splits tbody tr").count()).toBe(42)
        expect(await page.locator("#best-efforts tbody tr").count()).toBeGreaterThan(2)
        for (const label of ["Download GPX", "Download original file"]) {
          const href = await page.getByRole("link", { name: label }).getAttribute("href")
          const answer = await page.evaluate(async (url) => {
            const r = await fetch(url)
            return { status: r.status, disposition: r.headers.get("content-disposition") ?? "" }
          }, href!)
          expect(answer.status, label).toBe(200)
          expect(answer.disposition, label).toMatch(/attachment/)
        }
        await page.getByLabel("time", { exact: true }).check()
        await page.locator("#activity-charts canvas").nth(4).waitFor()
        await page.mouse.move(0, 0)
        await shoot("activity")
        await axe("activity")
      }), 60_000)

    it.effect("loads the map's and the charts' code only with the pages that draw them: the list loads neither", () =>
      Effect.promise(async () => {
        const fresh = await context.newPage()
        try {
          // what each script received holds: Leaflet's code names its container class, uPlot's its legend's
          const received: Array<Promise<{ readonly file: string; readonly map: boolean; readonly charts: boolean }>> = []
          fresh.on("response", (response) => {
            const file = new URL(response.url()).pathname
            if (!/^\/dashboard\/assets\/.*\.(js|css)$/.test(file)) return
            received.push(response.text().then((text) => ({ file, map: file.endsWith("map.css") || text.includes("leaflet-container"), charts: file.endsWith(".js") && text.includes("u-legend") })))
          })
          const drawn = (name: string) => fresh.waitForFunction((mark) => performance.getEntriesByName(mark).length > 0, `waymark:${name}`)
          await fresh.goto(`${base}/#/activities`)
          await drawn("activities")
          const list = await Promise.all(received)
          expect(list.length).toBeGreaterThan(0)
          expect(list.filter((l) => l.map || l.charts)).toEqual([])
          await fresh.locator("#activity-list tbody tr", { hasText: "41.34 km" }).locator("td.name a").click()
          await drawn("activity")
          await fresh.locator("#activity-map .leaflet-overlay-pane path").waitFor()
          const ride = await Promise.all(received)
          expect(ride.some((l) => l.file.endsWith("map.css"))).toBe(true)
          expect(ride.some((l) => l.map && l.file.endsWith(".js"))).toBe(true)
          expect(ride.some((l) => l.charts)).toBe(true)
        } finally {
          await fresh.close()
        }
      }), 60_000)

    it.effect("edits the name, sport and description; a hostile name stays text", () =>
      Effect.promise(async () => {
        await page.click("#activity-edit summary")
        await page.fill("#edit-activity input[name=name]", HOSTILE)
        await page.fill("#edit-activity textarea[name=description]", "Windy.\n<b>not bold</b>")
        await page.click("#edit-activity button[type=submit]")
        await page.locator("#activity-name").getByText(HOSTILE, { exact: true }).waitFor({ timeout: 10_000 })
        expect(await page.locator(".description").textContent()).toBe("Windy.\n<b>not bold</b>")
        expect(await page.locator("img[src=x]").count()).toBe(0)
        await go("#/activities", "#activity-list")
        await page.locator("#activity-list td.name a").getByText(HOSTILE, { exact: true }).waitFor()
        expect(await page.locator("img[src=x]").count()).toBe(0)
      }), 60_000)

    it.effect("deletes an activity after a confirmation", () =>
      Effect.promise(async () => {
        await page.locator("#activity-list td.name a").getByText(HOSTILE, { exact: true }).click()
        await page.locator("#activity-name").waitFor()
        const id = decodeURIComponent(page.url().split("#/activity/")[1]!)
        await page.getByRole("button", { name: "Delete…" }).click()
        await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click()
        expect(page.url()).toContain("#/activity/")
        await page.getByRole("button", { name: "Delete…" }).click()
        await redrawn(() => page.getByRole("dialog").getByRole("button", { name: "Delete" }).click())
        expect(page.url()).toMatch(/#\/activities$/)
        expect(await page.locator("#activity-list tbody tr").count()).toBe(CORPUS_FILES.length - 1)
        const status = await page.evaluate(async (path) => (await fetch(path)).status, `/api/v1/activities/${encodeURIComponent(id)}`)
        expect(status).toBe(404)
      }), 60_000)

    it.effect("uploads a file dropped on the drop zone and sees it reach success in the log", () =>
      Effect.promise(async () => {
        await go("#/import", "#dropzone")
        const name = path.basename(DROPPED)
        const transfer = await page.evaluateHandle(({ name, base64 }) => {
          const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))
          const data = new (globalThis as any).DataTransfer()
          data.items.add(new File([bytes], name, { type: "application/octet-stream" }))
          return data
        }, { name, base64: readCorpusFile(DROPPED).toString("base64") })
        await page.dispatchEvent("#dropzone", "drop", { dataTransfer: transfer })
        await page.locator("#uploads li .ok").waitFor({ timeout: 15_000 })
        const row = page.locator("#import-log tbody tr", { hasText: name })
        await row.locator(".badge.success").waitFor({ timeout: 30_000 })
        // a file that is no activity: failed, retried (and failed again), then removed
        const broken = "broken.gpx"
        const junk = await page.evaluateHandle((name) => {
          const data = new (globalThis as any).DataTransfer()
          data.items.add(new File(["<gpx>not really"], name))
          return data
        }, broken)
        await page.dispatchEvent("#dropzone", "drop", { dataTransfer: junk })
        const failed = page.locator("#import-log tbody tr", { hasText: broken })
        await failed.locator(".badge.failed").waitFor({ timeout: 30_000 })
        await shoot("import")
        await axe("import")
        await failed.getByRole("button", { name: `Retry ${broken}` }).click()
        await page.locator(".toast", { hasText: "queued again" }).waitFor()
        // the retry is done once the file is no longer queued and its row says failed again (the
        // row shown until then said so already: removing it then would leave the retry behind)
        await page.waitForFunction(async (name) => {
          const answer = await fetch(`/api/v1/file-imports?filters[filename]=${encodeURIComponent(name)}`)
          const rows = ((await answer.json()) as { fileImports: Array<{ status: string }> }).fileImports
          return rows.length === 1 && rows[0]!.status === "failed"
        }, broken, { timeout: 30_000, polling: 200 })
        await page.locator("#import-log tbody tr", { hasText: broken }).and(page.locator("tr:has(.badge.failed)")).waitFor({ timeout: 30_000 })
        await expect.poll(() => page.locator("#import-log tbody tr", { hasText: broken }).count(), { timeout: 30_000 }).toBe(1)
        await failed.getByRole("button", { name: `Remove ${broken}` }).click()
        await page.getByRole("dialog").getByRole("button", { name: "Remove" }).click()
        await failed.waitFor({ state: "detached", timeout: 10_000 })
      }), 60_000)

    it.effect("adds, renames, retires and deletes custom gear; adds and deletes a weight", () =>
      Effect.promise(async () => {
        await go("#/gear", "#add-weight")
        await page.fill("#add-gear input[name=name]", "Trail shoes")
        await page.click("#add-gear button[type=submit]")
        const row = () => page.locator("#gear-list tbody tr").first()
        await page.locator("#gear-list").getByText("Trail shoes").waitFor()
        await row().getByText("Rename").click()
        await row().locator("input[name=name]").fill("Road shoes")
        await row().getByRole("button", { name: "Save" }).click()
        await page.locator("#gear-list").getByText("Road shoes").waitFor()
        await row().getByRole("button", { name: "Retire" }).click()
        await row().getByText("retired", { exact: true }).waitFor()
        await page.fill("#add-weight input[name=on]", "2024-05-01")
        await page.fill("#add-weight input[name=weight]", "71.5")
        await page.click("#add-weight button[type=submit]")
        await page.locator("#weights").getByText("71.5").waitFor()
        await page.fill("#add-weight input[name=on]", "2024-06-01")
        await page.fill("#add-weight input[name=weight]", "70.2")
        await page.click("#add-weight button[type=submit]")
        await page.locator("#weight-chart canvas").waitFor()
        await shoot("gear")
        await axe("gear")
        await row().getByRole("button", { name: "Delete" }).click()
        await redrawn(() => page.getByRole("dialog").getByRole("button", { name: "Delete" }).click())
        expect(await page.locator("#gear-list").count()).toBe(0)
        await page.getByRole("button", { name: /Delete the weight of/ }).first().click()
        await redrawn(() => page.getByRole("dialog").getByRole("button", { name: "Delete" }).click())
        expect(await page.locator("#weights tbody tr").count()).toBe(1)
      }), 60_000)

    it.effect("shows the totals as a chart, the records, the Eddington number and the heatmap", () =>
      Effect.promise(async () => {
        await go("#/stats?period=year", "#totals")
        await page.locator("#totals-chart canvas").waitFor()
        const years = await page.locator("#totals tbody tr td:first-child").allTextContents()
        expect(years.length).toBeGreaterThan(3)
        expect(years).toContain("2021")
        expect(await page.locator("#records tbody tr").count()).toBeGreaterThan(2)
        expect(await page.locator("#eddington .big").textContent()).toMatch(/^\d+ km$/)
        await page.locator("#heatmap .leaflet-overlay-pane path").nth(2).waitFor({ state: "attached" })
        await shoot("stats")
        await axe("stats")
        await page.selectOption("select[name=period]", "week")
        await page.waitForURL(/period=week/)
        await page.locator("#totals tbody tr td:first-child").first().getByText(/^Week \d{1,2}, \d{4}$/).waitFor()
      }), 60_000)

    it.effect("shows the health checks, the supervised loops and the version", () =>
      Effect.promise(async () => {
        await go("#/system", "#fibers")
        expect(await page.locator("#checks tbody tr").count()).toBeGreaterThan(2)
        expect(await page.locator("main").textContent()).toMatch(/v\d+\.\d+\.\d+/)
        await shoot("system")
        await axe("system")
      }), 60_000)

    it.effect("signs out, and the session no longer opens the API", () =>
      Effect.gen(function*() {
        yield* Effect.promise(async () => {
          await page.getByRole("button", { name: "Sign out" }).click()
          await page.locator("#key").waitFor()
          const status = await page.evaluate(async () => (await fetch("/api/v1/activities")).status)
          expect(status).toBe(401)
        })
        expect(problems).toEqual([])
        const answer = yield* send("GET", "/api/v1/activities", { key: null })
        expect(answer.status).toBe(401)
      }), 60_000)
  })
})
