import { afterAll, beforeAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { BrowserContext, Page } from "playwright-core"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE, readCorpusFile } from "../../support/corpus.ts"
import { CHROMIUM_MISSING, chromiumAvailable } from "../../support/chromium.ts"
import { daemonLayer, dropFile, makeRoot, waitForRow } from "../../support/ImportHarness.ts"
import { dashboardHelpers, openDashboardBrowser } from "./browser.ts"
import { open, signIn } from "./pageTools.ts"
import { daemonOrigin } from "../../support/TestDaemon.ts"

/**
 * An activity whose date is unknown (the corpus's MapMyFitness route, without any time) as the
 * athlete reads it: "Date unknown" where a date would be, on its page and in the list, beside a
 * dated run. Screenshots in test-artifacts/dashboard/date-unknown-*.png, light and dark.
 */

const ARTIFACTS = path.resolve("test-artifacts/dashboard")
const skipReason = !chromiumAvailable ? CHROMIUM_MISSING : CORPUS_DIR === undefined ? CORPUS_MISSING_MESSAGE : undefined
if (skipReason !== undefined) console.warn(`[date unknown browser test] skipped: ${skipReason}`)

// one parse worker: a second would start (about 3 s of processor time, its modules loaded
// through tsx) only to parse a few of the files beside the first
const root = makeRoot({ IMPORT_PARSE_WORKERS: "1" })
let context: BrowserContext | undefined
let page: Page
let base = ""
const problems: Array<string> = []
const { axe, shoot } = dashboardHelpers(() => page, ARTIFACTS)

beforeAll(async () => {
  if (skipReason !== undefined) return
  ;({ context, page } = await openDashboardBrowser(ARTIFACTS, problems))
}, 120_000)

afterAll(async () => {
  await context?.close()
  fs.rmSync(root.root, { recursive: true, force: true })
})

describe.skipIf(skipReason !== undefined)("an activity whose date is unknown in the dashboard", () => {
  layer(daemonLayer(root), { excludeTestServices: true, timeout: 120_000 })("over a mapped route without times and a dated run", (it) => {
    it.scoped("its page and the list say 'Date unknown' where a date would be", () =>
      Effect.gen(function*() {
        base = yield* daemonOrigin
        dropFile(root.watchDir, "mapped-route.gpx", readCorpusFile("gpx/mapmyfitness-route-no-time-no-ele.gpx"))
        dropFile(root.watchDir, "run.gpx", readCorpusFile("gpx/strava-android-run.gpx"))
        const route = yield* waitForRow("mapped-route.gpx", "60 seconds")
        expect(route.status, route.error_message ?? "").toBe("success")
        expect((yield* waitForRow("run.gpx", "60 seconds")).status).toBe("success")
        yield* Effect.promise(async () => {
          await signIn(page, base, root.apiKey)
          const rows = page.locator("#activity-list tbody tr")
          await rows.nth(1).waitFor()
          expect(await rows.filter({ hasText: "Date unknown" }).count()).toBe(1)
          // the dated run keeps its date
          expect(await rows.filter({ hasText: "2017" }).count()).toBe(1)
          for (const scheme of ["light", "dark"] as const) {
            await page.emulateMedia({ colorScheme: scheme })
            await open(page, base, `#/activity/${encodeURIComponent(route.activity_id!)}`, "#activity-map .leaflet-overlay-pane path")
            expect(await page.locator("#activity-name + p").textContent()).toMatch(/^Date unknown · /)
            // no thresholds of a day, no training load
            await page.getByText("Its date is unknown: no thresholds apply to it, and it adds no training load.").waitFor({ timeout: 15_000 })
            await axe(`date unknown activity (${scheme})`)
            await shoot("date-unknown-activity", `-${scheme}`)
            await open(page, base, "#/activities", "#activity-list tbody tr")
            await axe(`activities with one of unknown date (${scheme})`)
            await shoot("date-unknown-list", `-${scheme}`)
          }
          // the import's row says so in its notes
          await page.emulateMedia({ colorScheme: "light" })
          await open(page, base, "#/import", ".notes")
          expect(await page.locator(".notes").filter({ hasText: /date unknown: nothing in the file tells when it was recorded/ }).count()).toBe(1)
          await axe("import with a route of unknown date")
          await shoot("date-unknown-import")
          expect(problems).toEqual([])
        })
      }), 120_000)
  })
})
