import { Effect } from "effect"
import * as fs from "node:fs"
import { chromium, type Browser, type Page } from "playwright-core"

/** Debian's headless Chromium (or CHROMIUM_PATH), driven by playwright-core. */

export const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium"
export const chromiumAvailable = fs.existsSync(CHROMIUM)
export const CHROMIUM_MISSING = `no Chromium at ${CHROMIUM} (install the chromium package or set CHROMIUM_PATH)`

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] })

export const scopedChromium = Effect.acquireRelease(Effect.promise(launchChromium), (b) => Effect.promise(() => b.close()))

export const PHONE = { width: 390, height: 844 }
export const DESKTOP = { width: 1280, height: 900 }

/**
 * Runs an action that leads to a page being drawn (a navigation, a submitted filter, a change
 * that reloads the page) and waits until a page was drawn after it: the router marks each
 * drawn page, so the test never reads the page it is leaving.
 */
export const redrawnAfter = async (page: Page, action: () => Promise<unknown>) => {
  const before = await page.evaluate(() => performance.timeOrigin + performance.now()).catch(() => 0)
  await action()
  await page.waitForFunction(
    (t) => performance.getEntriesByType("mark").some((m) => m.name.startsWith("waymark:") && performance.timeOrigin + m.startTime > t),
    before,
    { timeout: 15_000 }
  )
}
