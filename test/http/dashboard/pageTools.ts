import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import type { Page } from "playwright-core"
import { SCREENSHOTS, screenshot } from "../../support/chromium.ts"

/** What the dashboard's browser tests do to a page: wait for it to be drawn, run axe-core on it, take its screenshots. */

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

export interface Violation {
  readonly id: string
  readonly impact: string
  readonly help: string
  readonly targets: ReadonlyArray<string>
}

/**
 * axe-core's serious and critical violations on the page as it is: of every rule axe-core runs
 * by default, or with `only`, of those rules (`COLOUR_RULES`).
 */
export const seriousViolations = async (page: Page, only?: ReadonlyArray<string>): Promise<Array<Violation>> => {
  // loaded once per document: half a megabyte of script to compile at every look was not free
  if (!(await page.evaluate(() => (globalThis as any).axe !== undefined))) await page.evaluate(AXE_SOURCE)
  const found = await page.evaluate(async (only) => {
    const browser = globalThis as any
    const options = only === null ? { resultTypes: ["violations"] } : { resultTypes: ["violations"], runOnly: { type: "rule", values: only } }
    const r: { violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: Array<string> }> }> } = await browser.axe.run(browser.document, options)
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }))
  }, only === undefined ? null : [...only])
  return found.filter((v) => v.impact === "serious" || v.impact === "critical")
}

/**
 * The rules axe-core runs by default whose outcome depends on the colours shown (the contrast of
 * text, and links told from their text by colour): the others read the document, the roles and
 * names, the layout and what is shown, none of which a colour changes.
 */
export const COLOUR_RULES = ["color-contrast", "link-in-text-block"] as const

/**
 * Whether the page's style rules for a colour scheme set nothing but colours (custom
 * properties whose values are colours): then the page in another scheme differs from the page
 * already checked only in its colours, and axe-core's `COLOUR_RULES` are all that can find
 * anything new there. A rule that sets anything else (a size, what is shown) makes it false.
 */
export const schemesDifferInColoursOnly = (page: Page): Promise<boolean> =>
  page.evaluate(() => {
    const w = globalThis as any
    const rules: Array<any> = []
    for (const sheet of [...w.document.styleSheets]) {
      try {
        rules.push(...sheet.cssRules)
      } catch {
        // a sheet of another origin cannot be read; the dashboard serves its own
      }
    }
    const colourOnly = (rule: any): boolean => {
      if (rule.cssRules !== undefined && rule.style === undefined) return [...rule.cssRules].every(colourOnly)
      if (rule.style === undefined) return false
      for (let i = 0; i < rule.style.length; i++) {
        const property: string = rule.style[i]
        if (!property.startsWith("--") || !w.CSS.supports("color", rule.style.getPropertyValue(property).trim())) return false
      }
      return rule.cssRules === undefined || [...rule.cssRules].every(colourOnly)
    }
    while (rules.length > 0) {
      const rule = rules.pop()
      if (rule.media !== undefined && /prefers-color-scheme/.test(rule.media.mediaText)) {
        // an imported sheet of its own for a scheme is not looked into
        if (rule.cssRules === undefined || ![...rule.cssRules].every(colourOnly)) return false
      } else if (rule.cssRules !== undefined) rules.push(...rule.cssRules)
    }
    return true
  })

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
/** Signs in on the sign-in page at `base` with `apiKey` and waits for the activity list. */
export const signIn = async (page: Page, base: string, apiKey: string) => {
  await page.goto(`${base}/`)
  await page.fill("#key", apiKey)
  await page.click("button[type=submit]")
  await page.locator("#activity-list").waitFor({ timeout: 15_000 })
}

export const open = async (page: Page, base: string, hash: string, ready: string) => {
  const url = `${base}/${hash}`
  // the address already shown would not be drawn again: reloaded instead
  await redrawn(page, () => (page.url() === url ? page.reload() : page.goto(url)))
  await page.locator(ready).first().waitFor({ timeout: 15_000 })
}

/** A full-page screenshot at each of `sizes`, named `<name>-<size>.png` in `dir`; the page is left at the first size. */
export const shoot = async (page: Page, dir: string, name: string, sizes: ReadonlyArray<readonly [string, { readonly width: number; readonly height: number }]>) => {
  if (!SCREENSHOTS) return
  for (const [size, viewport] of sizes) {
    await page.setViewportSize(viewport)
    await page.evaluate(() => (globalThis as any).scrollTo(0, 0))
    await nextFrames(page)
    await screenshot(page, { path: path.join(dir, `${name}-${size}.png`), fullPage: true })
  }
  await page.setViewportSize(sizes[0]![1])
}

/**
 * Every text uPlot draws on a canvas, kept per canvas since it was last cleared (axis labels are
 * drawn, not in the DOM): a page's init script, read by `canvasTexts`.
 */
export const recordCanvasText = () => {
  const drawn = new WeakMap<object, Array<string>>()
  const proto = (globalThis as any).CanvasRenderingContext2D.prototype
  const fillText = proto.fillText
  const clearRect = proto.clearRect
  proto.fillText = function(this: { canvas: object }, text: string, ...rest: Array<unknown>) {
    const list = drawn.get(this.canvas) ?? []
    list.push(String(text))
    drawn.set(this.canvas, list)
    return fillText.call(this, text, ...rest)
  }
  proto.clearRect = function(this: { canvas: object }, ...rest: Array<unknown>) {
    drawn.set(this.canvas, [])
    return clearRect.call(this, ...rest)
  }
  ;(globalThis as any).drawnTexts = (canvas: object) => drawn.get(canvas) ?? []
}

/** The texts drawn on the canvas `selector` finds since it was last cleared. */
export const canvasTexts = (page: Page, selector: string): Promise<Array<string>> =>
  page.evaluate((selector) => (globalThis as any).drawnTexts((globalThis as any).document.querySelector(selector)) as Array<string>, selector)

/** Two frames later: the charts and the map have followed their box's width. */
export const nextFrames = (page: Page) =>
  page.evaluate(() => new Promise((resolve) => (globalThis as any).requestAnimationFrame(() => (globalThis as any).requestAnimationFrame(resolve))))

/** Whether no element of the page reaches past the right edge of the viewport. */
export const fitsScreen = (page: Page) =>
  page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth <= (globalThis as any).innerWidth)

/** Keeps in `problems` what the page's scripts report as errors (a resource that did not load aside: the map's tiles offline). */
export const collectProblems = (page: Page, problems: Array<string>) => {
  page.on("console", (m) => {
    if (m.type() === "error" && !/Failed to load resource/.test(m.text())) problems.push(`console: ${m.text()} at ${JSON.stringify(m.location())} on ${page.url()}`)
  })
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`))
}

/**
 * The conditions of the page's media and container rules ("(max-width: 640px)", a container's
 * as "container …"), nested ones included.
 */
export const mediaConditions = (page: Page): Promise<Array<string>> =>
  page.evaluate(() => {
    const media: Array<string> = []
    const rules: Array<any> = []
    for (const sheet of [...(globalThis as any).document.styleSheets]) {
      try {
        rules.push(...sheet.cssRules)
      } catch {
        // a sheet of another origin cannot be read; the dashboard serves its own
      }
    }
    while (rules.length > 0) {
      const rule = rules.pop()
      if (rule.constructor.name === "CSSContainerRule") media.push(`container ${rule.conditionText}`)
      else if (rule.media !== undefined && rule.cssRules !== undefined) media.push(rule.media.mediaText as string)
      if (rule.cssRules !== undefined) rules.push(...rule.cssRules)
    }
    return media
  })

/**
 * The sizes among `sizes` whose look axe-core must check: every size, except a phone's that
 * the style sheets treat as a narrower phone's (no width breakpoint between the two, and no rule
 * on the height or a container's size), which the narrower one already checks: the same rules apply to the same
 * elements, and what is wider than its box (a table's scroll hint) is so at the narrower width
 * first. The layout's own checks (nothing wider than the screen) stay at every size.
 */
export const distinctLooks = async <S extends readonly [string, { readonly width: number; readonly height: number }]>(
  page: Page,
  sizes: ReadonlyArray<S>
): Promise<Array<S>> => {
  const conditions = await mediaConditions(page)
  if (conditions.some((c) => /^container|height|aspect-ratio|orientation/.test(c))) return [...sizes]
  const breakpoints = conditions.flatMap((c) =>
    [...c.matchAll(/(?:min|max)-width\s*:\s*([\d.]+)(px|r?em)/g)].map((m) => Number(m[1]) * (m[2] === "px" ? 1 : 16)))
  const kept: Array<S> = []
  for (const size of sizes) {
    const width = size[1].width
    // only a narrower size kept before stands for a wider one
    const same = kept.some((k) => k[1].width <= width && !breakpoints.some((b) => b >= k[1].width && b <= width))
    if (!same) kept.push(size)
  }
  return kept
}
