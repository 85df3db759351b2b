import * as fs from "node:fs"
import { chromium, type Browser } from "playwright-core"

/** Debian's headless Chromium (or CHROMIUM_PATH), driven by playwright-core: for the browser tests and bench:dashboard. */

export const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium"
export const chromiumAvailable = fs.existsSync(CHROMIUM)
export const CHROMIUM_MISSING = `no Chromium at ${CHROMIUM} (install the chromium package or set CHROMIUM_PATH)`

/**
 * `WAYMARK_TEST_SLOW_API=<ms>`: every answer of an `/api/` path reaches the page after a random
 * pause of up to that many milliseconds, in every context of the browser. A page draws its
 * sections each when its own answer comes, in no fixed order; a test that reads one without
 * waiting for it passes on a quiet machine and fails on a busy one. This finds such a test.
 */
const SLOW_API_MS = Number(process.env["WAYMARK_TEST_SLOW_API"] ?? 0)

const slowingApi = (browser: Browser): Browser => {
  const newContext = browser.newContext.bind(browser)
  browser.newContext = async (options) => {
    const context = await newContext(options)
    await context.route(/\/api\//, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * SLOW_API_MS))
      // the page may have gone meanwhile: nothing then waits for the answer
      await route.continue().catch(() => undefined)
    })
    return context
  }
  return browser
}

export const launchChromium = async (options: { readonly handleSIGTERM?: boolean } = {}): Promise<Browser> => {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"], ...options })
  return SLOW_API_MS > 0 ? slowingApi(browser) : browser
}

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
