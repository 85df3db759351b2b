import { expect } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core"
import { buildDashboard } from "../../../scripts/buildDashboard.ts"

/** Debian's headless Chromium (or CHROMIUM_PATH), driven by playwright-core. */

export const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium"
export const chromiumAvailable = fs.existsSync(CHROMIUM)
export const CHROMIUM_MISSING = `no Chromium at ${CHROMIUM} (install the chromium package or set CHROMIUM_PATH)`

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] })

export const scopedChromium = Effect.acquireRelease(Effect.promise(launchChromium), (b) => Effect.promise(() => b.close()))

export const PHONE = { width: 390, height: 844 }
export const DESKTOP = { width: 1280, height: 900 }

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

/**
 * What the dashboard's browser tests do with the page `current()` gives: screenshots at phone
 * and desktop sizes into `artifacts`, an axe-core check, and waiting for a page to be drawn.
 */
export const dashboardHelpers = (current: () => Page, artifacts: string) => {
  /** Desktop and phone screenshots of the whole page, named `<name>-<size><suffix>.png`. */
  const shoot = async (name: string, suffix = "") => {
    const page = current()
    for (const [size, viewport] of [["desktop", DESKTOP], ["phone", PHONE]] as const) {
      await page.setViewportSize(viewport)
      await page.evaluate(() => (globalThis as any).scrollTo(0, 0))
      await page.waitForTimeout(150)
      await page.screenshot({ path: path.join(artifacts, `${name}-${size}${suffix}.png`), fullPage: true })
    }
    await page.setViewportSize(DESKTOP)
  }

  /** No serious or critical axe-core violation on the page as it is. */
  const axe = async (name: string) => {
    const page = current()
    await page.evaluate(AXE_SOURCE)
    const result = await page.evaluate(async () => {
      const browser = globalThis as any
      const r: { violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: Array<string> }> }> } = await browser.axe.run(browser.document, { resultTypes: ["violations"] })
      return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }))
    })
    const serious = result.filter((v) => v.impact === "serious" || v.impact === "critical")
    expect(serious, `axe on the ${name} page`).toEqual([])
  }

  /**
   * Runs an action that leads to a page being drawn (a navigation, a submitted filter, a change
   * that reloads the page) and waits until a page was drawn after it: the router marks each
   * drawn page, so the test never reads the page it is leaving.
   */
  const redrawn = async (action: () => Promise<unknown>) => {
    const page = current()
    const before = await page.evaluate(() => performance.timeOrigin + performance.now()).catch(() => 0)
    await action()
    await page.waitForFunction(
      (t) => performance.getEntriesByType("mark").some((m) => m.name.startsWith("waymark:") && performance.timeOrigin + m.startTime > t),
      before,
      { timeout: 15_000 }
    )
  }

  return { shoot, axe, redrawn }
}

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
  page.on("console", (m) => {
    if (m.type() === "error" && !/Failed to load resource/.test(m.text())) problems.push(`console: ${m.text()} at ${JSON.stringify(m.location())} on ${page.url()}`)
  })
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`))
  page.on("dialog", (d) => {
    problems.push(`a script opened a dialog: ${d.message()}`)
    void d.dismiss()
  })
  return { browser, context, page }
}
