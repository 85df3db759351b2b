import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import type { Page } from "playwright-core"

/** What the dashboard's browser tests do to a page: wait for it to be drawn, run axe-core on it, take its screenshots. */

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

export interface Violation {
  readonly id: string
  readonly impact: string
  readonly help: string
  readonly targets: ReadonlyArray<string>
}

/** axe-core's serious and critical violations on the page as it is. */
export const seriousViolations = async (page: Page): Promise<Array<Violation>> => {
  await page.evaluate(AXE_SOURCE)
  const found = await page.evaluate(async () => {
    const browser = globalThis as any
    const r: { violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: Array<string> }> }> } = await browser.axe.run(browser.document, { resultTypes: ["violations"] })
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }))
  })
  return found.filter((v) => v.impact === "serious" || v.impact === "critical")
}

/**
 * Runs an action that leads to a page being drawn (a navigation, a submitted filter, a change
 * that reloads the page) and waits until a page was drawn after it: the router marks each
 * drawn page, so the test never reads the page it is leaving.
 */
export const redrawn = async (page: Page, action: () => Promise<unknown>) => {
  const before = await page.evaluate(() => performance.timeOrigin + performance.now()).catch(() => 0)
  await action()
  await page.waitForFunction(
    (t) => performance.getEntriesByType("mark").some((m) => m.name.startsWith("waymark:") && performance.timeOrigin + m.startTime > t),
    before,
    { timeout: 15_000 }
  )
}

/** Opens `hash` of the app at `base` and waits for `ready` on the page drawn. */
export const open = async (page: Page, base: string, hash: string, ready: string) => {
  const url = `${base}/${hash}`
  // the address already shown would not be drawn again: reloaded instead
  await redrawn(page, () => (page.url() === url ? page.reload() : page.goto(url)))
  await page.locator(ready).first().waitFor({ timeout: 15_000 })
}

/** A full-page screenshot at each of `sizes`, named `<name>-<size>.png` in `dir`; the page is left at the first size. */
export const shoot = async (page: Page, dir: string, name: string, sizes: ReadonlyArray<readonly [string, { readonly width: number; readonly height: number }]>) => {
  for (const [size, viewport] of sizes) {
    await page.setViewportSize(viewport)
    await page.evaluate(() => (globalThis as any).scrollTo(0, 0))
    // the charts and the map follow their box's width in the next frames
    await page.evaluate(() => new Promise((resolve) => (globalThis as any).requestAnimationFrame(() => (globalThis as any).requestAnimationFrame(resolve))))
    await page.screenshot({ path: path.join(dir, `${name}-${size}.png`), fullPage: true })
  }
  await page.setViewportSize(sizes[0]![1])
}

/** Keeps in `problems` what the page's scripts report as errors (a resource that did not load aside: the map's tiles offline). */
export const collectProblems = (page: Page, problems: Array<string>) => {
  page.on("console", (m) => {
    if (m.type() === "error" && !/Failed to load resource/.test(m.text())) problems.push(`console: ${m.text()} at ${JSON.stringify(m.location())} on ${page.url()}`)
  })
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`))
}
