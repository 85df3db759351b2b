import * as fs from "node:fs"
import { chromium, type Browser } from "playwright-core"

/** Debian's headless Chromium (or CHROMIUM_PATH), driven by playwright-core: for the browser tests and bench:dashboard. */

export const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium"
export const chromiumAvailable = fs.existsSync(CHROMIUM)
export const CHROMIUM_MISSING = `no Chromium at ${CHROMIUM} (install the chromium package or set CHROMIUM_PATH)`

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] })

export const PHONE = { width: 390, height: 844 }
/** The phones every page must fit: the narrowest common one and the most common one. */
export const PHONES = [["phone-360", { width: 360, height: 780 }], ["phone-390", PHONE]] as const
export const DESKTOP = { width: 1280, height: 900 }

/**
 * Whether the browser tests write their screenshots, for a person to look at
 * (WAYMARK_SCREENSHOTS=1, as `npm run test:screens` sets): no test reads them back, and they
 * were a quarter of the browser tests' time.
 */
export const SCREENSHOTS = process.env["WAYMARK_SCREENSHOTS"] === "1"

/** A screenshot of `target` (a page or an element) when SCREENSHOTS asks for them. */
export const screenshot = async (target: { screenshot(options: { path: string; fullPage?: boolean }): Promise<unknown> }, options: { path: string; fullPage?: boolean }) => {
  if (SCREENSHOTS) await target.screenshot(options)
}
