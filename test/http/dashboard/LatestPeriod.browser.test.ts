import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { builtDashboard } from "../../support/programs.ts"
import { readCorpusFile, CORPUS_DIR } from "../../support/corpus.ts"
import { seedGenerated } from "../../support/generatedActivities.ts"
import { daemonLayer, dropFile, makeRoot, waitForRow } from "../../support/ImportHarness.ts"
import { CHROMIUM_MISSING, chromiumAvailable, DESKTOP, PHONE } from "../../support/chromium.ts"
import { openSignedIn, type SignedInPage } from "./signedInPage.ts"
import { daemonOrigin } from "../../support/TestDaemon.ts"

/**
 * Pages that open on the athlete's data, in Chromium, for an athlete whose activities all lie
 * years back (an archive of past seasons imported today): the calendar, the year in review, the
 * training chart and the statistics' chart open on the latest period that has activities, the
 * calendar jumps to a month or a year; the import log names each file's activities (every leg
 * of a triathlon) and what its import repaired; at 390 px the laps and lengths tables say that
 * they scroll. Real device files of the corpus; screenshots in test-artifacts/latest-period, on
 * phones and a desktop in light and dark, axe-core in each.
 */

const ARTIFACTS = path.resolve("test-artifacts/latest-period")
const skipReason = !chromiumAvailable ? CHROMIUM_MISSING : CORPUS_DIR === undefined ? "the activity corpus is missing" : undefined
if (skipReason !== undefined) console.warn(`[latest period browser test] skipped: ${skipReason}`)

// one parse worker: a second would start (about 3 s of processor time, its modules loaded
// through tsx) only to parse a few of the files beside the first
const root = makeRoot({ IMPORT_PARSE_WORKERS: "1" })
let ui: SignedInPage
let base = ""

/** corpus files imported through the watch folder: a triathlon, a damaged file, a run of 11 laps, a pool swim of 64 lengths */
const TRIATHLON = "fit/garmin-fr920xt-triathlon-chained-hr.fit"
const DAMAGED = "bad/header-datasize-zero.fit"
const LAPS = "fit/garmin-fr15-10k-run.fit"
const LENGTHS = "fit/garmin-fr935-pool-swim-50m.fit"
const basename = (file: string) => file.slice(file.lastIndexOf("/") + 1)

const apiJson = (apiPath: string): Promise<any> => ui.page.evaluate(async (p) => (await fetch(`/api/v1/${p}`)).json(), apiPath)

afterAll(async () => {
  await ui?.close()
  fs.rmSync(root.root, { recursive: true, force: true })
})

describe.skipIf(skipReason !== undefined)("pages that open on the athlete's data, in Chromium", () => {
  layer(daemonLayer(root), { excludeTestServices: true, timeout: 180_000 })("activities of past years only", (it) => {
    const imported: Record<string, any> = {}

    it.effect("seeds activities up to November 2019, imports real device files, and signs in", () =>
      Effect.gen(function*() {
        base = yield* daemonOrigin
        yield* seedGenerated(120, { end: Date.UTC(2019, 10, 20, 7) })
        for (const file of [TRIATHLON, DAMAGED, LAPS, LENGTHS]) dropFile(root.watchDir, basename(file), new Uint8Array(readCorpusFile(file)))
        for (const file of [TRIATHLON, DAMAGED, LAPS, LENGTHS]) imported[file] = yield* waitForRow(basename(file))
        yield* Effect.promise(async () => {
          builtDashboard()
          ui = await openSignedIn(base, root.apiKey, ARTIFACTS)
        })
      }), 120_000)

    it.effect("the calendar opens on the latest month with activities and jumps to a month or a year", () =>
      Effect.promise(async () => {
        const { page } = ui
        await ui.go("#/calendar", "#calendar")
        const latest: string = (await apiJson("activities?pagination[size]=1")).activities[0].startDateLocal.slice(0, 7)
        expect(await page.locator("h1").textContent()).toBe(new Date(`${latest}-15T12:00:00`).toLocaleDateString("en-US", { month: "long", year: "numeric" }))
        expect(await page.locator("#calendar .cal-day:not(.outside) .cal-acts a").count()).toBeGreaterThan(0)
        expect(await page.locator("input[name=month]").inputValue()).toBe(latest)
        // a year of the list: the same month of it
        await ui.redrawn(() => page.locator("select[name=year]").selectOption("2019"))
        expect(page.url()).toMatch(new RegExp(`#/calendar\\?month=2019-${latest.slice(5)}$`))
        await ui.redrawn(() => page.locator("input[name=month]").fill("2019-02"))
        expect(page.url()).toMatch(/#\/calendar\?month=2019-02$/)
        expect(await page.locator("h1").textContent()).toBe("February 2019")
        await ui.go("#/calendar", "#calendar")
        await ui.shoot("calendar")
        await ui.axe("calendar")
      }))

    it.effect("the year in review opens on the latest year with activities", () =>
      Effect.promise(async () => {
        await ui.go("#/year", "#year-hero")
        const latest: string = (await apiJson("activities?pagination[size]=1")).activities[0].startDateLocal.slice(0, 4)
        expect(await ui.page.locator("select[name=year]").inputValue()).toBe(latest)
        expect(await ui.page.locator("#year-hero").textContent()).not.toContain("No activity")
      }))

    it.effect("the training chart ends on the latest activity; the statistics' chart on the newest month, with a range since the first", () =>
      Effect.promise(async () => {
        const { page } = ui
        await ui.go("#/training?sport=", "h1")
        const lastDay: string = (await apiJson("activities?pagination[size]=1")).activities[0].startDateLocal.slice(0, 10)
        await page.locator("#fitness-chart").waitFor()
        expect(await page.locator("#fitness-chart").getAttribute("aria-label")).toContain(` to `)
        expect(lastDay < new Date().toISOString().slice(0, 10)).toBe(true)
        await ui.go("#/stats", "#totals-chart")
        expect(await page.locator("select[name=range]").inputValue()).toBe("")
        await ui.redrawn(() => page.locator("select[name=range]").selectOption("all"))
        expect(page.url()).toMatch(/range=all/)
      }))

    it.effect("the import log names each file's activities, every leg of a triathlon linked, and what its import repaired", () =>
      Effect.promise(async () => {
        const { page } = ui
        await ui.go("#/import", "#import-log tbody tr")
        const rowOf = (file: string) => page.locator("#import-log tbody tr", { has: page.locator(".filename", { hasText: basename(file) }) })
        const legs = rowOf(TRIATHLON).locator(".made a")
        const triathlon = imported[TRIATHLON]
        const served = (await apiJson(`file-imports?filters[filename]=${basename(TRIATHLON)}`)).fileImports[0]
        expect(served.activities.length).toBeGreaterThanOrEqual(2)
        expect(await legs.count()).toBe(served.activities.length)
        for (const [i, leg] of served.activities.entries()) {
          expect(await legs.nth(i).getAttribute("href")).toBe(`#/activity/${leg.id}`)
          expect(await legs.nth(i).textContent()).toBe(leg.name)
        }
        expect(triathlon.status).toBe("success")
        // the damaged file: imported, its repairs said
        expect(imported[DAMAGED].status).toBe("success")
        expect(await rowOf(DAMAGED).locator(".notes").textContent()).toMatch(/^Repaired: its FIT header declares no data/)
        await ui.shoot("import")
        await ui.axe("import")
      }))

    it.effect("at 390 px the laps and lengths tables fit, or say that they scroll sideways", () =>
      Effect.promise(async () => {
        const { page } = ui
        for (const [file, table] of [[LAPS, "laps"], [LENGTHS, "lengths"]] as const) {
          await page.setViewportSize(DESKTOP)
          await ui.go(`#/activity/${imported[file].activity_id}`, `#${table}`)
          const wrap = page.locator(`#${table}`).locator("xpath=..")
          const hint = page.locator(`#${table}-hint`)
          expect(await hint.isVisible(), `${table} at desktop width`).toBe(await wrap.evaluate((e: any) => e.scrollWidth > e.clientWidth + 1))
          await page.setViewportSize(PHONE)
          await page.waitForFunction((id) => {
            const w = (globalThis as any).document.getElementById(id).parentElement
            return !(globalThis as any).document.getElementById(`${id}-hint`).hidden === (w.scrollWidth > w.clientWidth + 1)
          }, table)
          const overflows = await wrap.evaluate((e: any) => e.scrollWidth > e.clientWidth + 1)
          // seven columns of a swim's lengths do not fit a phone: said under the table
          if (table === "lengths") expect(overflows, "lengths overflow at 390 px").toBe(true)
          expect(await hint.isVisible(), `${table}'s hint at 390 px`).toBe(overflows)
          if (overflows) expect(await hint.textContent()).toMatch(/^Swipe the table sideways for all \d+ columns\.$/)
          // never the page itself wider than the phone
          expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth <= (globalThis as any).innerWidth)).toBe(true)
        }
        await page.setViewportSize(DESKTOP)
        await ui.shoot("lengths")
        await ui.axe("lengths")
        expect(ui.problems).toEqual([])
      }))
  })
})
