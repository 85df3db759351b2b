import { expect } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core"
import { buildDashboard } from "../../../scripts/buildDashboard.ts"
import { collectProblems, redrawn, seriousViolations, shoot as shootAt } from "./pageTools.ts"

/** Debian's headless Chromium (or CHROMIUM_PATH), driven by playwright-core. */

export const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium"
export const chromiumAvailable = fs.existsSync(CHROMIUM)
export const CHROMIUM_MISSING = `no Chromium at ${CHROMIUM} (install the chromium package or set CHROMIUM_PATH)`

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] })

export const scopedChromium = Effect.acquireRelease(Effect.promise(launchChromium), (b) => Effect.promise(() => b.close()))

export const PHONE = { width: 390, height: 844 }
/** The phones every page must fit: the narrowest common one and the most common one. */
export const PHONES = [["phone-360", { width: 360, height: 780 }], ["phone-390", PHONE]] as const
export const DESKTOP = { width: 1280, height: 900 }

/**
 * What the dashboard's browser tests do with the page `current()` gives: screenshots at desktop
 * and phone sizes into `artifacts` (named `<name>-<size><suffix>.png`), an axe-core check, and
 * waiting for a page to be drawn.
 */
export const dashboardHelpers = (current: () => Page, artifacts: string) => ({
  shoot: (name: string, suffix = "") =>
    shootAt(current(), artifacts, name, [[`desktop${suffix}`, DESKTOP], [`phone${suffix}`, PHONE]]),
  axe: async (name: string) => expect(await seriousViolations(current()), `axe on the ${name} page`).toEqual([]),
  redrawn: (action: () => Promise<unknown>) => redrawn(current(), action)
})

export interface DashboardBrowser {
  readonly browser: Browser
  readonly context: BrowserContext
  readonly page: Page
}

/**
 * The dashboard built, `artifacts` made, and Chromium with one page at desktop size whose
 * console errors, script errors and script dialogs are collected into `problems`.
 */
export const openDashboardBrowser = async (artifacts: string, problems: Array<string>): Promise<DashboardBrowser> => {
  await buildDashboard()
  fs.mkdirSync(artifacts, { recursive: true })
  const browser = await launchChromium()
  const context = await browser.newContext({ viewport: DESKTOP })
  const page = await context.newPage()
  collectProblems(page, problems)
  page.on("dialog", (d) => {
    problems.push(`a script opened a dialog: ${d.message()}`)
    void d.dismiss()
  })
  return { browser, context, page }
}
