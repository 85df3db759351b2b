import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ImportBatchGrace } from "../../../src/services/import/ImportProgress.ts"
import { builtDashboard } from "../../support/programs.ts"
import { daemonLayer, dayStart, fitActivity, makeRoot } from "../../support/ImportHarness.ts"
import { CHROMIUM_MISSING, chromiumAvailable, DESKTOP, PHONES, screenshot, SCREENSHOTS } from "../../support/chromium.ts"
import { COLOUR_RULES, distinctLooks, schemesDifferInColoursOnly, seriousViolations } from "./pageTools.ts"
import { openSignedIn, type SignedInPage } from "./signedInPage.ts"
import { daemonOrigin } from "../../support/TestDaemon.ts"

/**
 * The import page in Chromium while a batch of files is imported: the progress line says how
 * many of how many are done and the time left, in the daemon log's words, with a bar; once
 * nothing waits it shows the whole count without a time left (more files would continue it),
 * and it is gone once the batch is over. Screenshots in test-artifacts/import-progress; axe-core.
 */

const ARTIFACTS = path.resolve("test-artifacts/import-progress")
/**
 * Enough files that the batch is still under way well after the first of them is done, on a
 * quiet machine too (one parse worker: more files each second would only need more files): the
 * page is made to look then, and its line counts them all.
 */
const FILES = 40
/**
 * The batch's grace time beyond the settle time, set to the page's poll interval rather than
 * 5 s: no second wave comes, and the page's next look normally still finds the daemon's whole
 * count (a look that came later shows it from the count it saw last, as a person's would).
 */
const GRACE = Duration.seconds(2)
const skipReason = chromiumAvailable ? undefined : CHROMIUM_MISSING
if (skipReason !== undefined) console.warn(`[import progress browser test] skipped: ${skipReason}`)

const root = makeRoot({ IMPORT_PARSE_WORKERS: "1" })
let ui: SignedInPage
let base = ""

afterAll(async () => {
  await ui?.close()
  fs.rmSync(root.root, { recursive: true, force: true })
})

/** What the daemon answers for the batch under way, as the page asks for it. */
const progressNow = async () =>
  (await fetch(`${base}/api/v1/file-imports/progress`, { headers: { authorization: `Bearer ${root.apiKey}` } })).json() as Promise<{
    running: boolean
    total: number
    secondsLeft: number | null
  }>

/** The progress line's text and its bar, read together once the line says `says`. */
const seen = (says: RegExp): Promise<{ text: string; max: number; value: number }> =>
  ui.page.waitForFunction((source) => {
    const element = (globalThis as any).document.getElementById("import-progress")
    const text: string = element.hidden ? "" : element.textContent
    const bar = element.querySelector("progress")
    return new RegExp(source).test(text) && { text, max: Number(bar.max), value: Number(bar.value) }
  }, says.source, { polling: 100, timeout: 120_000 }).then((handle) => handle.jsonValue() as Promise<{ text: string; max: number; value: number }>)

/**
 * The page at each size in the light and the dark scheme, as it is drawn: axe-core clean there,
 * and its screenshots `<name>-<size>-<scheme>.png` when asked for. The page is not loaded again
 * (the import page draws no chart that would take the scheme's colours only when drawn), and its
 * looks at the daemon stop meanwhile (a hidden tab does not poll), so that the line stays drawn
 * however long axe-core takes.
 */
const eachLookAsDrawn = async (name: string) => {
  const { page } = ui
  await page.evaluate(() => Object.defineProperty((globalThis as any).document, "visibilityState", { value: "hidden", configurable: true }))
  // the 390 px phone where a style rule tells it from 360 px, the dark scheme by the rules about
  // colours where it changes nothing else (as SignedInPage's axe)
  const sizes = await distinctLooks(page, [["desktop", DESKTOP], ...PHONES] as const)
  const darkRules = (await schemesDifferInColoursOnly(page)) ? COLOUR_RULES : undefined
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    for (const [size, viewport] of SCREENSHOTS ? [["desktop", DESKTOP], ...PHONES] as const : sizes) {
      await page.setViewportSize(viewport)
      await screenshot(page, { path: path.join(ARTIFACTS, `${name}-${size}-${scheme}.png`), fullPage: true })
      if (sizes.some(([look]) => look === size)) {
        expect(await seriousViolations(page, scheme === "dark" ? darkRules : undefined), `axe on the ${name} page, ${size}, ${scheme}`).toEqual([])
      }
    }
  }
  await page.setViewportSize(DESKTOP)
  await page.emulateMedia({ colorScheme: "light" })
  await page.evaluate(() => delete (globalThis as any).document.visibilityState)
}

describe.skipIf(skipReason !== undefined)("the import page's progress in Chromium", () => {
  layer(daemonLayer(root).pipe(Layer.provide(Layer.succeed(ImportBatchGrace, GRACE))), { excludeTestServices: true, timeout: 180_000 })("over a batch dropped into the watch folder", (it) => {
    it.effect("shows N of M files done and the time left while the batch is imported, the whole count once nothing waits, and nothing once it is over", () =>
      Effect.gen(function*() {
        base = yield* daemonOrigin
        yield* Effect.promise(async () => {
          builtDashboard()
          ui = await openSignedIn(base, root.apiKey, ARTIFACTS)
          await ui.go("#/import", "#dropzone")
          const line = ui.page.locator("#import-progress")
          expect(await line.isHidden()).toBe(true)
          // moved into the folder together, as an archive's files are
          const staging = path.join(root.watchDir, ".batch")
          fs.mkdirSync(staging)
          for (let i = 0; i < FILES; i++) fs.writeFileSync(path.join(staging, `ride-${i}.fit`), fitActivity({ start: dayStart(i), seconds: 1800, step: 2 }))
          for (const name of fs.readdirSync(staging)) fs.renameSync(path.join(staging, name), path.join(root.watchDir, name))
          // the daemon counts the whole batch and a time left: the page looks now rather than at its next poll
          const deadline = Date.now() + 120_000
          for (let p = await progressNow(); !(p.running && p.total === FILES && p.secondsLeft !== null); p = await progressNow()) {
            if (Date.now() > deadline) throw new Error(`the batch was never counted whole with a time left: last answered ${JSON.stringify(p)}`)
            await new Promise((resolve) => setTimeout(resolve, 20))
          }
          await ui.redrawn(() => ui.page.reload())
          const running = await seen(new RegExp(`^Importing: \\d+ of ${FILES} files done \\(\\d+\\.\\d files/s, about (\\d+ s|\\d+ min \\d+ s|\\d+ h \\d+ min) left\\)$`))
          expect(running.max).toBe(FILES)
          expect(running.value).toBeLessThan(FILES)
          await eachLookAsDrawn("import-progress")
          // a look already under way when the polls stopped may have drawn the batch done meanwhile: still there
          expect(await line.isVisible()).toBe(true)
          const done = await seen(new RegExp(`^Imported: ${FILES} of ${FILES} files done$`))
          expect(done.value).toBe(FILES)
          if (SCREENSHOTS) await eachLookAsDrawn("import-progress-done")
          await line.waitFor({ state: "hidden", timeout: 120_000 })
          expect(ui.problems).toEqual([])
        })
      }), 300_000)
  })
})
