import { DASHBOARD_PAGES, HOME_PAGE, type PageName, sectionOf } from "../dashboardPages.ts"
import { ApiError } from "./api.ts"
import { h, leaveToasts, replace } from "./dom.ts"
import { closeMenu, wireMenu } from "./menu.ts"

/**
 * The dashboard's router: the part of the address after `#` names the page of the page list
 * (`#/activities?filters…`, `#/activity/<id>`, `#/import`, `#/stats`, `#/training`, `#/calendar?month=…`,
 * `#/milestones`, `#/year?year=…`, `#/segments`, `#/segment/<id>`, `#/gear`, `#/gearItem/<id>`, `#/system`).
 * Each page's code is loaded when it is first opened (its own file, with the map and chart
 * libraries it draws with), so the list loads neither.
 * A page draws itself into a view of its own inside <main> and returns what to stop when the
 * athlete leaves it. Each navigation replaces the view, so a page still waiting for its
 * answers when the athlete has moved on draws into a view that is no longer shown, never over
 * the page that replaced it.
 */

export type Cleanup = () => void
export type Page = (main: HTMLElement, params: URLSearchParams, id: string) => Promise<Cleanup | void>

/** Every page of the list, loaded on demand. */
const LOADERS: { readonly [N in PageName]: () => Promise<Page> } = {
  activities: () => import("./pages/activitiesPage.ts").then((m) => m.activitiesPage),
  activity: () => import("./pages/activityPage.ts").then((m) => m.activityPage),
  import: () => import("./pages/importPage.ts").then((m) => m.importPage),
  stats: () => import("./pages/statsPage.ts").then((m) => m.statsPage),
  training: () => import("./pages/trainingPage.ts").then((m) => m.trainingPage),
  calendar: () => import("./pages/yearCalendarPage.ts").then((m) => m.yearCalendarPage),
  milestones: () => import("./pages/yearMilestonesPage.ts").then((m) => m.yearMilestonesPage),
  year: () => import("./pages/yearPage.ts").then((m) => m.yearPage),
  segments: () => import("./pages/segmentsPage.ts").then((m) => m.segmentsPage),
  segment: () => import("./pages/segmentPage.ts").then((m) => m.segmentPage),
  gear: () => import("./pages/gearPage.ts").then((m) => m.gearPage),
  gearItem: () => import("./pages/gearItemPage.ts").then((m) => m.gearItemPage),
  privacy: () => import("./pages/sharingPrivacyPage.ts").then((m) => m.sharingPrivacyPage),
  system: () => import("./pages/systemPage.ts").then((m) => m.systemPage)
}

const isPage = (name: string): name is PageName => Object.hasOwn(DASHBOARD_PAGES, name)

const main = document.getElementById("main")!
let cleanup: Cleanup | void
let generation = 0

const route = async () => {
  const hash = location.hash.replace(/^#\/?/, "")
  const [path = "", search = ""] = hash.split("?")
  const [named = "", ...rest] = path.split("/")
  const name = isPage(named) ? named : HOME_PAGE
  const title = DASHBOARD_PAGES[name].title
  cleanup?.()
  cleanup = undefined
  leaveToasts()
  closeMenu()
  const mine = ++generation
  document.title = `${title} · Waymark`
  for (const link of document.querySelectorAll<HTMLAnchorElement>("[data-nav]")) {
    const current = link.dataset["nav"] === sectionOf(name)
    if (current) link.setAttribute("aria-current", "page")
    else link.removeAttribute("aria-current")
  }
  const view = h("div", { class: "view" }, h("p", { class: "muted" }, "Loading…"))
  replace(main, view)
  try {
    const page = await LOADERS[name]()
    if (mine !== generation) return
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
