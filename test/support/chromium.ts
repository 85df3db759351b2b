import * as fs from "node:fs"
import { chromium, type Browser } from "playwright-core"

/** Debian's headless Chromium (or CHROMIUM_PATH), driven by playwright-core: for the browser tests and bench:dashboard. */

export const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium"
export const chromiumAvailable = fs.existsSync(CHROMIUM)
export const CHROMIUM_MISSING = `no Chromium at ${CHROMIUM} (install the chromium package or set CHROMIUM_PATH)`

export const launchChromium = (options: { readonly handleSIGTERM?: boolean } = {}): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"], ...options })

const SHARED = Symbol.for("waymark.test.sharedChromium")

/**
 * The worker process's one Chromium, launched at the first ask and kept for the test files the
 * process runs after it (the suite runs a worker's files one after another in one process): each
 * file opens its own context and closes it, and never closes this browser (one closed anyway is
 * launched again at the next ask). Launching Chromium was a second or more of processor time per
 * file. It does not outlive the process: it reads playwright's commands from a pipe, and exits
 * when the pipe closes, whichever way the process ends (a SIGKILL too). The worker's SIGTERM is
 * left to end the process at once rather than wait for the browser to close (playwright's own
 * handler would keep the process until the pool's SIGKILL a second later).
 * Kept on `globalThis`: a test file that loads this module again still finds the same browser.
 */
export const sharedChromium = async (): Promise<Browser> => {
  const held = globalThis as { [SHARED]?: Promise<Browser> }
  let launching = held[SHARED]
  if (launching === undefined) launching = held[SHARED] = launchChromium({ handleSIGTERM: false })
  const browser = await launching.catch((e: unknown) => {
    if (held[SHARED] === launching) delete held[SHARED]
    throw e
  })
  if (browser.isConnected()) return browser
  if (held[SHARED] === launching) delete held[SHARED]
  return sharedChromium()
}

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
