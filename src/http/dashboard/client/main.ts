import { ApiError } from "./api.ts"
import { h, leaveToasts, replace } from "./dom.ts"
import { closeMenu, wireMenu } from "./menu.ts"
import { activitiesPage } from "./pages/activitiesPage.ts"
import { activityPage } from "./pages/activityPage.ts"
import { calendarPage } from "./pages/calendarPage.ts"
import { gearPage } from "./pages/gearPage.ts"
import { importPage } from "./pages/importPage.ts"
import { milestonesPage } from "./pages/milestonesPage.ts"
import { statsPage } from "./pages/statsPage.ts"
import { systemPage } from "./pages/systemPage.ts"
import { trainingPage } from "./pages/trainingPage.ts"
import { yearPage } from "./pages/yearPage.ts"

/**
 * The dashboard's router: the part of the address after `#` names the page
 * (`#/activities?filters…`, `#/activity/<id>`, `#/import`, `#/stats`, `#/training`, `#/calendar?month=…`,
 * `#/milestones`, `#/year?year=…`, `#/gear`, `#/system`).
 * A page draws itself into a view of its own inside <main> and returns what to stop when the
 * athlete leaves it. Each navigation replaces the view, so a page still waiting for its
 * answers when the athlete has moved on draws into a view that is no longer shown, never over
 * the page that replaced it.
 */

export type Cleanup = () => void
export type Page = (main: HTMLElement, params: URLSearchParams, id: string) => Promise<Cleanup | void>

const PAGES: Record<string, readonly [Page, string]> = {
  activities: [activitiesPage, "Activities"],
  activity: [activityPage, "Activity"],
  import: [importPage, "Import"],
  stats: [statsPage, "Statistics"],
  training: [trainingPage, "Training"],
  calendar: [calendarPage, "Calendar"],
  milestones: [milestonesPage, "Milestones"],
  year: [yearPage, "Year in review"],
  gear: [gearPage, "Gear & weight"],
  system: [systemPage, "System"]
}

const main = document.getElementById("main")!
let cleanup: Cleanup | void
let generation = 0

const route = async () => {
  const hash = location.hash.replace(/^#\/?/, "")
  const [path = "", search = ""] = hash.split("?")
  const [name = "activities", ...rest] = path.split("/")
  const [page, title] = PAGES[name] ?? PAGES["activities"]!
  cleanup?.()
  cleanup = undefined
  leaveToasts()
  closeMenu()
  const mine = ++generation
  document.title = `${title} · Waymark`
  for (const link of document.querySelectorAll<HTMLAnchorElement>("[data-nav]")) {
    const current = link.dataset["nav"] === name || (name === "activity" && link.dataset["nav"] === "activities")
    if (current) link.setAttribute("aria-current", "page")
    else link.removeAttribute("aria-current")
  }
  const view = h("div", { class: "view" }, h("p", { class: "muted" }, "Loading…"))
  replace(main, view)
  try {
    const done = await page(view, new URLSearchParams(search), decodeURIComponent(rest.join("/")))
    if (mine === generation) {
      cleanup = done
      // when the page is drawn and answers input (the bench reads it)
      performance.mark(`waymark:${name}`)
    } else done?.()
  } catch (error) {
    if (mine !== generation) return
    const message = error instanceof ApiError ? error.message : String(error)
    replace(view, h("h1", null, title), h("p", { class: "error", role: "alert" }, message))
  }
}

wireMenu()
addEventListener("hashchange", () => {
  void route().then(() => {
    scrollTo(0, 0)
    main.focus({ preventScroll: true })
  })
})
void route()
