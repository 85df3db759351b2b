import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { builtDashboard } from "../../support/programs.ts"
import { daemonLayer, dayStart, fitActivity, makeRoot } from "../../support/ImportHarness.ts"
import { CHROMIUM_MISSING, chromiumAvailable } from "../../support/chromium.ts"
import { openSignedIn, type SignedInPage } from "./signedInPage.ts"
import { daemonOrigin } from "../../support/TestDaemon.ts"

/**
 * The import page in Chromium while a batch of files is imported: the progress line says how
 * many of how many are done and the time left, in the daemon log's words, with a bar; once
 * nothing waits it shows the whole count without a time left (more files would continue it),
 * and it is gone once the batch is over. Screenshots in test-artifacts/import-progress; axe-core.
 */

const ARTIFACTS = path.resolve("test-artifacts/import-progress")
const FILES = 160
const skipReason = chromiumAvailable ? undefined : CHROMIUM_MISSING
if (skipReason !== undefined) console.warn(`[import progress browser test] skipped: ${skipReason}`)

const root = makeRoot()
let ui: SignedInPage
let base = ""

afterAll(async () => {
  await ui?.close()
  fs.rmSync(root.root, { recursive: true, force: true })
})

describe.skipIf(skipReason !== undefined)("the import page's progress in Chromium", () => {
  layer(daemonLayer(root), { excludeTestServices: true, timeout: 180_000 })("over a batch dropped into the watch folder", (it) => {
    it.effect("shows N of M files done and the time left while the batch is imported, the whole count once nothing waits, and nothing once it is over", () =>
      Effect.gen(function*() {
        base = yield* daemonOrigin
        yield* Effect.promise(async () => {
          builtDashboard()
          ui = await openSignedIn(base, root.apiKey, ARTIFACTS)
          await ui.go("#/import", "#dropzone")
          expect(await ui.page.locator("#import-progress").isHidden()).toBe(true)
          // moved into the folder together, as an archive's files are
          const staging = path.join(root.watchDir, ".batch")
          fs.mkdirSync(staging)
          for (let i = 0; i < FILES; i++) fs.writeFileSync(path.join(staging, `ride-${i}.fit`), fitActivity({ start: dayStart(i), seconds: 1800, step: 2 }))
          for (const name of fs.readdirSync(staging)) fs.renameSync(path.join(staging, name), path.join(root.watchDir, name))
          const line = ui.page.locator("#import-progress")
          await line.filter({ hasText: new RegExp(`of ${FILES} files done .*about .* left`) }).waitFor({ timeout: 60_000 })
          expect(await line.textContent()).toMatch(new RegExp(`^Importing: \\d+ of ${FILES} files done \\(\\d+\\.\\d files/s, about (\\d+ s|\\d+ min \\d+ s) left\\)$`))
          expect(Number(await line.locator("progress").getAttribute("max"))).toBe(FILES)
          await ui.shoot("import-progress")
          await ui.axe("import-progress")
          await line.filter({ hasText: `Imported: ${FILES} of ${FILES} files done` }).waitFor({ timeout: 120_000 })
          expect(await line.textContent()).toBe(`Imported: ${FILES} of ${FILES} files done`)
          expect(Number(await line.locator("progress").getAttribute("value"))).toBe(FILES)
          await ui.shoot("import-progress-done")
          await line.waitFor({ state: "hidden", timeout: 120_000 })
          expect(ui.problems).toEqual([])
        })
      }), 300_000)
  })
})
