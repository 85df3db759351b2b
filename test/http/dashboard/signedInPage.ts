import { expect } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { DESKTOP, PHONES, SCREENSHOTS, screenshot, sharedChromium } from "../../support/chromium.ts"
import { collectProblems, COLOUR_RULES, distinctLooks, nextFrames, redrawn as redrawnOn, schemesDifferInColoursOnly, seriousViolations } from "./pageTools.ts"

/**
 * A dashboard page in Chromium, signed in with the key as a person is (the session cookie), for
 * the browser tests of one feature: each drawn page waited for by the router's mark, screenshots
 * on phones of 360 and 390 px and on a desktop in the light and the dark scheme, axe-core in
 * each scheme at each size the style sheets tell apart, and every console error, page error or
 * dialog collected. The page is a context of the worker's shared Chromium, closed by `close`.
 */

const VIEWPORTS = [["desktop", DESKTOP], ...PHONES] as const
const SCHEMES = ["light", "dark"] as const

export interface SignedInPage {
  readonly page: Page
  readonly context: BrowserContext
  /** console errors, page errors and dialogs seen so far */
  readonly problems: ReadonlyArray<string>
  /** runs `action` and waits until a page was drawn after it */
  readonly redrawn: (action: () => Promise<unknown>) => Promise<void>
  /** opens `#/…` and waits for it to be drawn and for `ready` to be there */
  readonly go: (hash: string, ready: string) => Promise<void>
  /** full-page screenshots `<name>-<desktop|phone-360|phone-390>-<light|dark>.png` in the artifacts folder; returns their paths */
  readonly shoot: (name: string) => Promise<Array<string>>
  /**
   * no serious or critical axe-core violation on the page as it is, in both schemes, on a
   * desktop and on the phones (the 390 px phone's look checked by the 360 px one's when no
   * style rule tells them apart: `distinctLooks`; the dark scheme by the rules about colours
   * when it changes nothing else: `schemesDifferInColoursOnly`)
   */
  readonly axe: (name: string) => Promise<void>
  readonly close: () => Promise<void>
}

export const openSignedIn = async (base: string, apiKey: string, artifacts: string): Promise<SignedInPage> => {
  fs.mkdirSync(artifacts, { recursive: true })
  const browser: Browser = await sharedChromium()
  const context = await browser.newContext({ viewport: DESKTOP })
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base })
  const signIn = await context.request.post(`${base}/sign-in`, { form: { key: apiKey }, headers: { origin: base }, maxRedirects: 0 })
  if (signIn.status() !== 303) throw new Error(`sign-in answered ${signIn.status()}`)
  const page = await context.newPage()
  const problems: Array<string> = []
  collectProblems(page, problems)
  page.on("dialog", (d) => {
    problems.push(`a script opened a dialog: ${d.message()}`)
    void d.dismiss()
  })

  const redrawn = (action: () => Promise<unknown>) => redrawnOn(page, action)

  /** The page drawn again in `scheme`: its charts read the scheme's colours when they are drawn. */
  const inScheme = async (scheme: "light" | "dark") => {
    await page.emulateMedia({ colorScheme: scheme })
    await redrawn(() => page.reload())
  }

  const eachLook = async (f: (size: string, scheme: string) => Promise<void>) => {
    for (const scheme of SCHEMES) {
      await inScheme(scheme)
      for (const [size, viewport] of VIEWPORTS) {
        await page.setViewportSize(viewport)
        await f(size, scheme)
      }
    }
    await page.setViewportSize(DESKTOP)
    await inScheme("light")
  }

  return {
    page,
    context,
    problems,
    redrawn,
    go: async (hash, ready) => {
      await redrawn(() => page.goto(`${base}/${hash}`))
      await page.locator(ready).first().waitFor({ timeout: 15_000 })
    },
    shoot: async (name) => {
      const shots: Array<string> = []
      if (!SCREENSHOTS) return shots
      // a message of an earlier action is no part of the page
      await page.evaluate(() => (globalThis as any).document.getElementById("toasts")?.replaceChildren())
      await eachLook(async (size, scheme) => {
        await page.evaluate(() => (globalThis as any).scrollTo(0, 0))
        // the charts follow their box's new width on the next frame
        await page.evaluate(() => new Promise((resolve) => (globalThis as any).requestAnimationFrame(() => (globalThis as any).requestAnimationFrame(resolve))))
        const file = path.join(artifacts, `${name}-${size}-${scheme}.png`)
        await screenshot(page, { path: file, fullPage: true })
        shots.push(file)
      })
      return shots
    },
    // The scheme is switched without a reload: the page's text and backgrounds take their
    // colours from the style sheets' custom properties, which follow the scheme at once (only
    // the charts' canvases and the maps' lines keep the colours read when drawn, and axe-core
    // reads neither); the page stays as the test left it, its open panels checked too.
    // Where the scheme changes nothing but colours (`schemesDifferInColoursOnly`), the dark one
    // is checked by the rules whose outcome colours decide, the light one having been checked
    // by all of them at the same size.
    axe: async (name) => {
      const looks = await distinctLooks(page, VIEWPORTS)
      const darkInColoursOnly = await schemesDifferInColoursOnly(page)
      for (const scheme of SCHEMES) {
        await page.emulateMedia({ colorScheme: scheme })
        for (const [size, viewport] of looks) {
          await page.setViewportSize(viewport)
          // what follows its box's width (a table's scroll hint) has followed it
          await nextFrames(page)
          const rules = scheme === "dark" && darkInColoursOnly ? COLOUR_RULES : undefined
          expect(await seriousViolations(page, rules), `axe on the ${name} page, ${size}, ${scheme}`).toEqual([])
        }
      }
      await page.setViewportSize(DESKTOP)
      await page.emulateMedia({ colorScheme: "light" })
    },
    close: () => context.close()
  }
}
