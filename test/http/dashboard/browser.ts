import { expect } from "@effect/vitest"
import * as fs from "node:fs"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { builtDashboard } from "../../support/programs.ts"
import { DESKTOP, PHONE, sharedChromium } from "../../support/chromium.ts"
import { collectProblems, redrawn, seriousViolations, shoot as shootAt } from "./pageTools.ts"

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
 * The dashboard built, `artifacts` made, and a context of the worker's shared Chromium with one
 * page at desktop size whose console errors, script errors and script dialogs are collected into
 * `problems`. A test file closes the context when done, not the browser (the files the worker
 * runs after it use the same; one closed anyway is launched again at the next ask).
 */
export const openDashboardBrowser = async (artifacts: string, problems: Array<string>): Promise<DashboardBrowser> => {
  builtDashboard()
  fs.mkdirSync(artifacts, { recursive: true })
  const browser = await sharedChromium()
  const context = await browser.newContext({ viewport: DESKTOP })
  const page = await context.newPage()
  collectProblems(page, problems)
  page.on("dialog", (d) => {
    problems.push(`a script opened a dialog: ${d.message()}`)
    void d.dismiss()
  })
  return { browser, context, page }
}
