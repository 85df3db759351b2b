import { call } from "../api.ts"
import { field, h, replace } from "../dom.ts"
import * as format from "../format.ts"
import type { Page } from "../main.ts"
import { pageInstead, pager } from "../pager.ts"
import { sportPicker } from "../sportPicker.ts"
import type { Activity } from "../types.ts"
import type { ActivitySort, ActivitySortField } from "../../../../schema/QueryParams.ts"

/**
 * The activity list: the API's filters and order in the address (several sports at once),
 * newest first unless a column's header asks otherwise, a page at a time.
 */

const PAGE_SIZE = 50

interface Column {
  readonly label: string
  readonly sort: ActivitySortField
  /** the order of a first click: largest first for amounts, A to Z for words */
  readonly largestFirst: boolean
  readonly numeric?: boolean
  /** hidden on a phone */
  readonly optional?: boolean
  readonly cell: (a: Activity) => HTMLTableCellElement
}

/** "Pace" when every activity shown has one, "Speed" when none has, else both. */
const rateLabel = (activities: ReadonlyArray<Activity>) => {
  const paced = activities.filter((a) => format.isPaced(a.sportType)).length
  return paced === activities.length && paced > 0 ? "Pace" : paced === 0 ? "Speed" : "Pace or speed"
}

export const activitiesPage: Page = async (main, params) => {
  const page = Number(params.get("page") ?? "1") || 1
  const sort = (params.get("sort") ?? "-startDateLocal") as ActivitySort
  const filters = {
    "filters[from]": params.get("from") ?? undefined,
    "filters[to]": params.get("to") ?? undefined,
    "filters[sportType]": params.get("sport") ?? undefined,
    "filters[hasGpx]": params.get("gps") ?? undefined,
    "filters[search]": params.get("q") ?? undefined
  }
  const list = await call("activities.search", { query: { ...filters, sort: params.get("sort") ?? undefined, "pagination[page]": page, "pagination[size]": PAGE_SIZE } })

  const go = (changes: Record<string, string | undefined>, how: "push" | "replace" = "push") => {
    const next = new URLSearchParams(params)
    for (const [k, v] of Object.entries(changes)) {
      if (v === undefined || v === "") next.delete(k)
      else next.set(k, v)
    }
    const hash = `#/activities${next.size > 0 ? `?${next}` : ""}`
    if (how === "replace") location.replace(hash)
    else location.hash = hash
  }
  const instead = pageInstead(list.pagination)
  if (instead !== null) return go({ page: instead === 1 ? undefined : String(instead) }, "replace")

  const search = h("input", { type: "search", name: "q", value: params.get("q") ?? "", placeholder: "Words in the name or description" })
  const from = h("input", { type: "date", name: "from", value: params.get("from") ?? "" })
  const to = h("input", { type: "date", name: "to", value: params.get("to") ?? "" })
  const sports = sportPicker({ label: "Sports", selected: (params.get("sport") ?? "").split(",").filter((s) => s !== "") })
  const gps = h("select", { name: "gps" },
    h("option", { value: "" }, "Any"),
    h("option", { value: "true", selected: params.get("gps") === "true" }, "With GPS"),
    h("option", { value: "false", selected: params.get("gps") === "false" }, "Without GPS"))

  const activities = list.activities
  const rate = rateLabel(activities)
  const columns: ReadonlyArray<Column> = [
    { label: "Date", sort: "startDateLocal", largestFirst: true, optional: true, cell: (a) => h("td", { class: "opt" }, format.activityStart(a, "short")) },
    {
      label: "Name",
      sort: "name",
      largestFirst: false,
      cell: (a) => h("td", { class: "name" },
        h("a", { href: `#/activity/${encodeURIComponent(a.id)}` }, a.name),
        h("span", { class: "started muted phone-only" }, `${format.activityStart(a, "short")} · ${format.sportLabel(a.sportType)}`))
    },
    { label: "Sport", sort: "sportType", largestFirst: false, optional: true, cell: (a) => h("td", { class: "opt" }, format.sportLabel(a.sportType)) },
    { label: "Distance", sort: "distanceInMeter", largestFirst: true, numeric: true, cell: (a) => h("td", { class: "num" }, format.distance(a.distanceInMeter)) },
    { label: "Time", sort: "movingTimeInSeconds", largestFirst: true, numeric: true, cell: (a) => h("td", { class: "num" }, a.hasTimes ? format.duration(a.movingTimeInSeconds) : "–") },
    // sorted by the speed: the fastest first is the smallest pace and the largest speed
    { label: rate, sort: "averageSpeedInKmPerHour", largestFirst: true, numeric: true, cell: (a) => h("td", { class: "num rate" }, a.movingTimeInSeconds > 0 ? format.speedOrPace(a.averageSpeedInKmPerHour, a.sportType) : "–") },
    { label: "Elevation", sort: "elevationInMeter", largestFirst: true, numeric: true, optional: true, cell: (a) => h("td", { class: "num opt" }, format.elevation(a.elevationInMeter)) }
  ]
  const sortedBy = sort.replace(/^-/, "")
  const descending = sort.startsWith("-")
  const header = (c: Column) => {
    const active = c.sort === sortedBy
    // the order shown: a pace column is in the opposite order of the speeds it is sorted by
    const shownDescending = c.sort === "averageSpeedInKmPerHour" && rate === "Pace" ? !descending : descending
    const nextSort = active ? (descending ? c.sort : `-${c.sort}`) : (c.largestFirst ? `-${c.sort}` : c.sort)
    return h("th", {
      scope: "col",
      class: [c.numeric === true ? "num" : "", c.optional === true ? "opt" : ""].join(" ").trim() || null,
      "aria-sort": active ? (shownDescending ? "descending" : "ascending") : null
    }, h("button", { type: "button", class: "sort", onclick: () => go({ sort: nextSort === "-startDateLocal" ? undefined : nextSort, page: undefined }) },
      c.label, h("span", { "aria-hidden": "true" }, active ? (shownDescending ? " ↓" : " ↑") : "")))
  }
  const order = h("select", { name: "sort" },
    columns.flatMap((c) => {
      const largest = c.sort === "averageSpeedInKmPerHour" ? "fastest first" : c.sort === "startDateLocal" ? "newest first" : "largest first"
      const smallest = c.sort === "averageSpeedInKmPerHour" ? "slowest first" : c.sort === "startDateLocal" ? "oldest first" : c.largestFirst ? "smallest first" : "A to Z"
      const both = [[`-${c.sort}`, `${c.label}, ${c.largestFirst ? largest : "Z to A"}`], [c.sort, `${c.label}, ${smallest}`]] as const
      return (c.largestFirst ? both : [both[1], both[0]]).map(([value, label]) => h("option", { value, selected: value === sort }, label))
    }))

  const form = h("form", {
    class: "filters",
    role: "search",
    onsubmit: (e: Event) => {
      e.preventDefault()
      go({
        q: search.value.trim(),
        from: from.value,
        to: to.value,
        sport: sports.selected().join(","),
        gps: gps.value,
        sort: order.value === "-startDateLocal" ? undefined : order.value,
        page: undefined
      })
    }
  }, Object.assign(field("Search", search), { className: "field wide" }), field("From", from), field("To", to), sports.element, field("GPS", gps),
    Object.assign(field("Order", order), { className: "field phone-only" }),
    h("div", { class: "row end" },
      h("button", { type: "submit", class: "primary" }, "Apply"),
      h("button", { type: "button", onclick: () => { location.hash = "#/activities" } }, "Clear")))

  const { total } = list.pagination
  replace(main,
    h("h1", null, "Activities"),
    form,
    total === 0
      ? h("p", { class: "empty" }, "No activity matches. ", h("a", { href: "#/import" }, "Import some files"), ".")
      : h("div", { class: "table-wrap", tabindex: 0 },
        h("table", { id: "activity-list" },
          h("caption", { class: "visually-hidden" }, "Activities"),
          h("thead", null, h("tr", null, columns.map(header))),
          h("tbody", null, activities.map((a) => h("tr", null, columns.map((c) => c.cell(a))))))),
    pager("Pages", list.pagination, `${format.count(total)} activities`, (p) => go({ page: String(p) })))
}
