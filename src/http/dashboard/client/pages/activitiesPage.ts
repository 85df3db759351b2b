import { api, query } from "../api.ts"
import { config } from "../config.ts"
import { field, h, replace } from "../dom.ts"
import * as format from "../format.ts"
import type { Page } from "../main.ts"
import type { ActivityList } from "../types.ts"

/** The activity list: the API's filters in the address, newest first, a page at a time. */

const PAGE_SIZE = 50

export const activitiesPage: Page = async (main, params) => {
  const page = Number(params.get("page") ?? "1") || 1
  const filters = {
    "filters[from]": params.get("from") ?? undefined,
    "filters[to]": params.get("to") ?? undefined,
    "filters[sportType]": params.get("sport") ?? undefined,
    "filters[hasGpx]": params.get("gps") ?? undefined,
    "filters[search]": params.get("q") ?? undefined
  }
  const list = await api<ActivityList>(`activities${query({ ...filters, "pagination[page]": page, "pagination[size]": PAGE_SIZE })}`)

  const go = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams(params)
    for (const [k, v] of Object.entries(changes)) {
      if (v === undefined || v === "") next.delete(k)
      else next.set(k, v)
    }
    location.hash = `#/activities${next.size > 0 ? `?${next}` : ""}`
  }

  const search = h("input", { type: "search", name: "q", value: params.get("q") ?? "", placeholder: "Words in the name or description" })
  const from = h("input", { type: "date", name: "from", value: params.get("from") ?? "" })
  const to = h("input", { type: "date", name: "to", value: params.get("to") ?? "" })
  const sport = h("select", { name: "sport" },
    h("option", { value: "" }, "All sports"),
    config.sportTypes.map((s) => h("option", { value: s, selected: params.get("sport") === s }, format.sportLabel(s))))
  const gps = h("select", { name: "gps" },
    h("option", { value: "" }, "With or without GPS"),
    h("option", { value: "true", selected: params.get("gps") === "true" }, "With GPS"),
    h("option", { value: "false", selected: params.get("gps") === "false" }, "Without GPS"))

  const form = h("form", {
    class: "filters",
    role: "search",
    onsubmit: (e: Event) => {
      e.preventDefault()
      go({ q: search.value.trim(), from: from.value, to: to.value, sport: sport.value, gps: gps.value, page: undefined })
    }
  }, Object.assign(field("Search", search), { className: "field wide" }), field("From", from), field("To", to), field("Sport", sport), field("GPS", gps),
    h("div", { class: "row end" },
      h("button", { type: "submit", class: "primary" }, "Apply"),
      h("button", { type: "button", onclick: () => { location.hash = "#/activities" } }, "Clear")))

  const { total, totalPages } = list.pagination
  const rows = list.activities.map((a) =>
    h("tr", null,
      h("td", { class: "nowrap" }, format.localDateTime(a.startDateLocal, "short")),
      h("td", { class: "name" }, h("a", { href: `#/activity/${encodeURIComponent(a.id)}` }, a.name)),
      h("td", { class: "opt" }, format.sportLabel(a.sportType)),
      h("td", { class: "num" }, format.distance(a.distanceInMeter)),
      h("td", { class: "num" }, a.hasTimes ? format.duration(a.movingTimeInSeconds) : "–"),
      h("td", { class: "num" }, a.movingTimeInSeconds > 0 ? format.speedOrPace(a.averageSpeedInKmPerHour, a.sportType) : "–"),
      h("td", { class: "num opt" }, format.elevation(a.elevationInMeter))))

  const pager = h("nav", { class: "pager", "aria-label": "Pages" },
    h("button", { type: "button", disabled: page <= 1, onclick: () => go({ page: String(page - 1) }) }, "← Newer"),
    h("span", { "aria-live": "polite" }, `Page ${page} of ${Math.max(totalPages, 1)} · ${format.count(total)} activities`),
    h("button", { type: "button", disabled: page >= totalPages, onclick: () => go({ page: String(page + 1) }) }, "Older →"))

  replace(main,
    h("h1", null, "Activities"),
    form,
    total === 0
      ? h("p", { class: "empty" }, "No activity matches. ", h("a", { href: "#/import" }, "Import some files"), ".")
      : h("div", { class: "table-wrap", tabindex: 0 },
        h("table", { id: "activity-list" },
          h("caption", { class: "visually-hidden" }, "Activities, newest first"),
          h("thead", null, h("tr", null,
            h("th", { scope: "col" }, "Date"), h("th", { scope: "col" }, "Name"), h("th", { scope: "col", class: "opt" }, "Sport"),
            h("th", { scope: "col", class: "num" }, "Distance"), h("th", { scope: "col", class: "num" }, "Time"),
            h("th", { scope: "col", class: "num" }, "Pace or speed"),
            h("th", { scope: "col", class: "num opt" }, "Elevation"))),
          h("tbody", null, rows))),
    totalPages > 1 ? pager : h("p", { class: "muted" }, `${format.count(total)} activities`))
}
