import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { builtDashboard } from "../../support/programs.ts"
import { GearRepo } from "../../../src/services/activities/GearRepo.ts"
import { GearComponents } from "../../../src/services/gear/GearComponents.ts"
import { seedGenerated } from "../../support/generatedActivities.ts"
import { daemonLayer, makeRoot } from "../../support/ImportHarness.ts"
import { CHROMIUM_MISSING, chromiumAvailable, PHONE, PHONES } from "../../support/chromium.ts"
import { openSignedIn, type SignedInPage } from "./signedInPage.ts"
import { daemonOrigin } from "../../support/TestDaemon.ts"

/**
 * The athlete's year on the dashboard, in Chromium: the month grid (weeks from Monday, each
 * day's activities, week totals, previous and next month, the streaks; a list of the active days
 * on a phone), the milestones' timeline, the year in review, and the gear page's maintenance
 * (what is due, a service recorded, a component added). Over 400 generated activities up to
 * today; every figure the pages show is read back against the API; each sport in its own colour,
 * the values under the cursor; no page wider than a phone of 360 or 390 px, nor a table wider than
 * its box; screenshots of each page on both phones and a desktop in light and dark
 * (test-artifacts/athlete-year), axe-core in each.
 */

const ARTIFACTS = path.resolve("test-artifacts/athlete-year")
const skipReason = chromiumAvailable ? undefined : CHROMIUM_MISSING
if (skipReason !== undefined) console.warn(`[athlete's year browser test] skipped: ${skipReason}`)

const root = makeRoot()
let ui: SignedInPage
let base = ""
const DAY = 86_400_000

/** The API's answer, as the page's own session reads it. */
const apiJson = (apiPath: string): Promise<any> => ui.page.evaluate(async (p) => (await fetch(`/api/v1/${p}`)).json(), apiPath)

/** A custom property of the page's colours (a sport's, "--sport-running") as the browser computes colours: "rgb(r, g, b)". */
const colorOf = (property: string): Promise<string> =>
  ui.page.evaluate((name) => {
    const w = globalThis as any
    const probe = w.document.createElement("span")
    probe.style.color = w.getComputedStyle(w.document.body).getPropertyValue(name)
    w.document.body.append(probe)
    const color = w.getComputedStyle(probe).color as string
    probe.remove()
    return color
  }, property)

/** For each element of `selector`: the text of its `label`, and the computed `property` of its `part` (null: of itself). */
const colorsBy = (selector: string, label: string, part: string | null, property: string): Promise<Array<[string, string]>> =>
  ui.page.locator(selector).evaluateAll((all, { label, part, property }) =>
    all.map((e) => [
      e.querySelector(label)?.textContent ?? "",
      (globalThis as any).getComputedStyle(part === null ? e : e.querySelector(part))[property] as string
    ] as [string, string]), { label, part, property })

/** Each label has one colour, and no two labels share one. */
const expectOneColorEach = (pairs: ReadonlyArray<readonly [string, string]>) => {
  const byLabel = new Map<string, Set<string>>()
  for (const [label, color] of pairs) byLabel.set(label, (byLabel.get(label) ?? new Set()).add(color))
  for (const [label, colors] of byLabel) expect(colors.size, label).toBe(1)
  expect(new Set([...byLabel.values()].map((c) => [...c][0])).size).toBe(byLabel.size)
}

afterAll(async () => {
  await ui?.close()
  fs.rmSync(root.root, { recursive: true, force: true })
})

describe.skipIf(skipReason !== undefined)("the athlete's year in Chromium", () => {
  layer(daemonLayer(root), { excludeTestServices: true, timeout: 180_000 })("over generated activities up to today", (it) => {
    it.effect("seeds activities, gear and its components, and signs in", () =>
      Effect.gen(function*() {
        base = yield* daemonOrigin
        const gear = yield* GearRepo
        yield* gear.upsert({ id: "gear-road", name: "Road bike", type: "custom", isRetired: false })
        yield* gear.upsert({ id: "gear-shoes", name: "Trail shoes", type: "custom", isRetired: false })
        yield* seedGenerated(400, { end: Date.now() - 3 * 3_600_000, gearIds: ["gear-road", "gear-shoes"] })
        const components = yield* GearComponents
        const daysAgo = (n: number) => new Date(Date.now() - n * DAY).toISOString().slice(0, 10)
        yield* components.create("gear-road", { name: "Chain", installedOn: daysAgo(90), intervalInMeter: 1_500_000, intervalInSeconds: null, intervalInDays: null })
        yield* components.create("gear-road", { name: "Tyres", installedOn: daysAgo(90), intervalInMeter: 8_000_000, intervalInSeconds: null, intervalInDays: 365 })
        yield* components.create("gear-shoes", { name: "Soles", installedOn: daysAgo(60), intervalInMeter: null, intervalInSeconds: 360_000, intervalInDays: 60 })
        yield* Effect.promise(async () => {
          builtDashboard()
          ui = await openSignedIn(base, root.apiKey, ARTIFACTS)
        })
      }), 120_000)

    it.effect("the calendar: this month's grid from Monday, each day's activities, week totals, the streaks, previous and next month", () =>
      Effect.promise(async () => {
        await ui.go("#/calendar", "#calendar")
        const { page } = ui
        const calendar = await apiJson("stats/calendar")
        const streaks = await apiJson("stats/streaks")
        expect(await page.locator("h1").textContent()).toBe(new Date(`${calendar.month}-15T12:00:00`).toLocaleDateString("en-US", { month: "long", year: "numeric" }))
        // every activity of the month, in its day, and every week with its totals
        expect(await page.locator("#calendar .cal-day:not(.outside) .cal-acts a").count()).toBe(calendar.totals.count)
        expect(calendar.totals.count).toBeGreaterThan(10)
        for (const day of calendar.days.filter((d: any) => d.activities.length > 0).slice(0, 5)) {
          const links = page.locator(`#calendar .cal-day[data-on="${day.on}"] .cal-acts a`)
          expect(await links.count()).toBe(day.activities.length)
          expect(await links.first().getAttribute("href")).toBe(`#/activity/${day.activities[0].id}`)
        }
        expect(await page.locator("#calendar .cal-week").count()).toBe(calendar.weeks.length)
        const firstMonday = await page.locator("#calendar .cal-day").first().getAttribute("data-on")
        expect(firstMonday).toBe(calendar.weeks[0].firstDay)
        expect(new Date(`${firstMonday}T12:00:00Z`).getUTCDay()).toBe(1)
        expect(await page.locator("#calendar .cal-week-total").first().textContent()).toContain(`Week ${Number(calendar.weeks[0].week.slice(6))}`)
        expect(await page.locator("#month-totals").textContent()).toContain(String(calendar.totals.count))
        expect(await page.locator(`#calendar .cal-day.today[data-on="${streaks.today}"]`).count()).toBe(1)
        expect(await page.locator("#streaks").textContent()).toContain(`${streaks.overall.days.longest.length} days`)
        // each activity in its sport's colour: one colour a sport, none shared, a run in the running family's
        const chips = await colorsBy("#calendar .cal-day:not(.outside) .cal-acts a", ".cal-sport", null, "borderLeftColor")
        expect(new Set(chips.map(([sport]) => sport)).size).toBeGreaterThan(3)
        expectOneColorEach(chips)
        expect(chips.find(([sport]) => sport === "Run")?.[1]).toBe(await colorOf("--sport-running"))
        await ui.shoot("calendar")
        await ui.axe("calendar")
        // on a phone, the days without activities leave the list
        await page.setViewportSize(PHONE)
        const empty = page.locator("#calendar .cal-day.rest").first()
        if (await empty.count() > 0) expect(await empty.isVisible()).toBe(false)
        expect(await page.locator("#calendar .cal-day.active").first().isVisible()).toBe(true)
        expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth <= (globalThis as any).innerWidth)).toBe(true)
        await page.setViewportSize({ width: 1280, height: 900 })
        // the month before, and back
        await ui.redrawn(() => page.locator("a[rel=prev]").click())
        expect(page.url()).toMatch(/#\/calendar\?month=\d{4}-\d{2}$/)
        const before = await apiJson(`stats/calendar?filters[month]=${new URL(page.url().replace("#/", "")).searchParams.get("month")}`)
        expect(await page.locator("#calendar .cal-day:not(.outside) .cal-acts a").count()).toBe(before.totals.count)
        await ui.redrawn(() => page.locator("a[rel=next]").click())
        expect(page.url()).toContain(`month=${calendar.month}`)
        // one sport type
        await ui.redrawn(() => page.selectOption("select[name=sport]", "Run"))
        const sports = await page.locator("#calendar .cal-sport").allTextContents()
        expect(sports.length).toBeGreaterThan(0)
        expect(new Set(sports)).toEqual(new Set(["Run"]))
      }), 120_000)

    it.effect("the milestones: a timeline, newest first, a kind at a time", () =>
      Effect.promise(async () => {
        await ui.go("#/milestones", "#milestones")
        const { page } = ui
        const { milestones } = await apiJson("milestones")
        expect(await page.locator("#milestones li.milestone").count()).toBe(milestones.length)
        expect(await page.locator("#milestones li.milestone a").first().textContent()).toBe(milestones[0].title)
        expect(await page.locator("#milestones h2").first().textContent()).toContain(milestones[0].on.slice(0, 4))
        await ui.shoot("milestones")
        await ui.axe("milestones")
        await ui.redrawn(() => page.selectOption("select[name=kind]", "firstInCountry"))
        const countries = milestones.filter((m: any) => m.kind === "firstInCountry")
        expect(await page.locator("#milestones li.milestone a").allTextContents()).toEqual(countries.map((m: any) => m.title))
      }), 120_000)

    it.effect("the year in review: totals against the year before, months, highlights, sports, records, a summary to share", () =>
      Effect.promise(async () => {
        const { page } = ui
        const { totals } = await apiJson("stats/totals?filters[period]=year")
        const counts = new Map<string, number>()
        for (const t of totals) counts.set(t.period, (counts.get(t.period) ?? 0) + t.count)
        const year = [...counts].sort((a, b) => b[1] - a[1])[0]![0]
        await ui.go(`#/year?year=${year}`, "#year-totals")
        const review = await apiJson(`stats/year-in-review?filters[year]=${year}`)
        expect(await page.locator("h1").textContent()).toBe(year)
        expect(await page.locator("#year-totals").textContent()).toContain(review.totals.count.toLocaleString())
        expect(await page.locator("#year-highlights article").count()).toBeGreaterThanOrEqual(7)
        expect(await page.locator("#year-highlights").textContent()).toContain(review.longestActivity.name)
        expect(await page.locator("#year-commutes").textContent()).toContain(`${review.commutes.co2SavedInKg.toLocaleString()} kg`)
        expect(await page.locator("#year-sports li").count()).toBe(review.sportTypes.length)
        expect(await page.locator("#year-records tbody tr").count()).toBe(review.records.length)
        await page.locator("#year-months canvas").waitFor()
        // the sports' bars each in its sport's colour
        expectOneColorEach(await colorsBy("#year-sports li", ".bar-label", ".bar-fill", "backgroundColor"))
        // the months stacked by sport: the busiest month's figures under the cursor, each sport's its own
        const busiest = review.months.findIndex((m: any) => m.month === review.busiestMonth.month)
        const { totals: months } = await apiJson(`stats/totals?filters[period]=month&filters[from]=${year}-01-01&filters[to]=${year}-12-31`)
        const plot = (await page.locator("#year-months .u-over").boundingBox())!
        await page.mouse.move(plot.x + plot.width * (busiest + 0.5) / 12, plot.y + plot.height - 2)
        const legend = page.locator("#year-months + .legend-below .u-series")
        await expect.poll(() => legend.first().locator(".u-value").textContent())
          .toBe(new Date(Number(year), busiest, 1).toLocaleDateString("en-US", { month: "long", year: "numeric" }))
        const rides = months.find((t: any) => t.period === review.busiestMonth.month && t.sportType === "Ride")
        const ride = legend.filter({ has: page.locator(".u-label", { hasText: /^Ride$/ }) })
        expect(await ride.locator(".u-value").textContent())
          .toBe(await page.evaluate((km) => `${km.toLocaleString(undefined, { maximumFractionDigits: km < 10 ? 1 : 0 })} km`, rides.distanceInMeter / 1000))
        expect(await ride.locator(".u-marker").evaluate((m) => (globalThis as any).getComputedStyle(m).borderTopColor)).toBe(await colorOf("--sport-cycling"))
        await page.mouse.move(0, 0)
        await ui.shoot("year")
        await ui.axe("year")
        await page.getByRole("button", { name: "Copy summary" }).click()
        await page.locator(".toast", { hasText: "copied" }).waitFor()
        expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toContain(`My ${year}: ${review.totals.count.toLocaleString()} activities`)
        await ui.redrawn(() => page.locator("a[rel=prev]").click())
        expect(await page.locator("h1").textContent()).toBe(String(Number(year) - 1))
      }), 120_000)

    it.effect("the gear page: what is due, a service recorded today, a component added", () =>
      Effect.promise(async () => {
        await ui.go("#/gear", "#maintenance")
        const { page } = ui
        const { components } = await apiJson("gear/gear-road/components")
        const chain = components.find((c: any) => c.name === "Chain")
        expect(chain.status).toBe("overdue")
        expect(await page.locator("#due li.overdue").first().textContent()).toContain("Chain")
        expect(await page.locator("#due").textContent()).toContain(`of Road bike`)
        await ui.shoot("gear-maintenance")
        await ui.axe("gear-maintenance")
        await ui.redrawn(() => page.getByRole("button", { name: "Serviced today: Chain" }).click())
        await page.locator(`tr[data-component="${chain.id}"] .badge`, { hasText: "ok" }).waitFor()
        expect((await apiJson(`gear/gear-road/components/${chain.id}`)).lastServiceOn).toBe(new Date().toISOString().slice(0, 10))
        expect(await page.locator("#due").textContent().catch(() => "")).not.toContain("Chain")
        await page.selectOption("#add-component select[name=gear]", "gear-shoes")
        await page.fill("#add-component input[name=name]", "Laces")
        await page.fill("#add-component input[name=days]", "90")
        await ui.redrawn(() => page.click("#add-component button[type=submit]"))
        await page.locator("table[data-gear=gear-shoes]").getByText("Laces").waitFor()
        expect((await apiJson("gear/gear-shoes/components")).components.map((c: any) => c.name)).toEqual(["Soles", "Laces"])
      }), 120_000)

    it.effect("on phones of 360 and 390 px no page is wider than the screen, nor a table wider than its box; a component's use and dates on its card", () =>
      Effect.promise(async () => {
        const { page } = ui
        const fits = () => page.evaluate(() => {
          const d = (globalThis as any).document
          return {
            page: d.documentElement.scrollWidth <= (globalThis as any).innerWidth,
            tables: [...d.querySelectorAll(".table-wrap")].filter((w: any) => w.scrollWidth > w.clientWidth).map((w: any) => w.querySelector("table")?.id ?? w.className)
          }
        })
        for (const [, viewport] of PHONES) {
          await page.setViewportSize(viewport)
          for (const [hash, ready] of [["#/calendar", "#calendar"], ["#/milestones", "#milestones"], ["#/year", "#year-hero"], ["#/gear", "#maintenance"]] as const) {
            await ui.go(hash, ready)
            expect(await fits(), `${hash} at ${viewport.width} px`).toEqual({ page: true, tables: [] })
          }
          // the rename form unfolded in the gear's row
          await page.locator("#gear-list summary").first().click()
          await page.locator("#gear-list input[name=name]").first().waitFor()
          expect(await fits(), `the gear renamed at ${viewport.width} px`).toEqual({ page: true, tables: [] })
          const chain = page.locator("table[data-gear=gear-road] tr", { hasText: "Chain" })
          for (const part of ["used", "since", "due", "acts"]) {
            const box = (await chain.locator(`.${part}`).boundingBox())!
            expect(box.width, `${part} at ${viewport.width} px`).toBeGreaterThan(0)
            expect(box.x + box.width).toBeLessThanOrEqual(viewport.width)
          }
          expect(await chain.locator(".used").textContent()).toMatch(/^Used [\d,.]+ km/)
        }
        await page.setViewportSize({ width: 1280, height: 900 })
      }), 120_000)

    it.effect("every page is in the navigation, and nothing went wrong in the page", () =>
      Effect.promise(async () => {
        for (const [nav, title] of [["calendar", "Calendar"], ["milestones", "Milestones"], ["year", "Year in review"]] as const) {
          await ui.redrawn(() => ui.page.locator(`header nav a[data-nav=${nav}]`).click())
          expect(await ui.page.title()).toBe(`${title} · Waymark`)
          expect(await ui.page.locator(`header nav a[data-nav=${nav}]`).getAttribute("aria-current")).toBe("page")
        }
        expect(ui.problems.slice(0, 5)).toEqual([])
      }), 60_000)
  })
})
