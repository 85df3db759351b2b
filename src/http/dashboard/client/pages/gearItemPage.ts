import { call } from "../api.ts"
import { chart, css, dateAxis } from "../chart.ts"
import { h, replace } from "../dom.ts"
import * as format from "../format.ts"
import { gearMake } from "../labels.ts"
import type { Page } from "../main.ts"
import { pageInstead, pager } from "../pager.ts"

/**
 * One gear: its kind and make, its totals, its distance over time (the distance it has carried
 * the athlete, month after month, added up) and its activities, newest first, a page at a time.
 */

const PAGE_SIZE = 20

/** The middle of month `YYYY-MM`, in seconds (where the chart puts the month's distance). */
const monthMiddle = (month: string) => Date.parse(`${month}-15T12:00:00`) / 1000
const monthLabel = (seconds: number) => new Date(seconds * 1000).toLocaleDateString(undefined, { year: "numeric", month: "short" })

export const gearItemPage: Page = async (main, params, id) => {
  const page = Math.max(1, Number.parseInt(params.get("page") ?? "1", 10) || 1)
  const search = (n: number) => call("activities.search", { query: { "filters[gearId]": id, "pagination[page]": n, "pagination[size]": PAGE_SIZE } })
  const [gear, first] = await Promise.all([call("gear.get", { path: { gearId: id } }), search(page)])
  const instead = pageInstead(first.pagination)
  const list = instead === null ? first : await search(instead)
  const go = (n: number) => {
    location.hash = `#/gearItem/${encodeURIComponent(id)}${n === 1 ? "" : `?page=${n}`}`
  }
  const cleanups: Array<() => void> = []

  const legend = h("div", { class: "chart-legend" })
  const chartBox = h("div", { class: "chart", id: "gear-distance", role: "img", "aria-label": `Distance of ${gear.name} over time, in ${format.distanceUnit}` },
    h("div", { class: "chart-head" }, h("h3", null, `Distance over time (${format.distanceUnit})`), legend))
  const rows = list.activities.map((a) => h("tr", null,
    h("td", null, format.localDateTime(a.startDateLocal, "short")),
    h("td", { class: "name" }, h("a", { href: `#/activity/${encodeURIComponent(a.id)}` }, a.name)),
    h("td", { class: "opt" }, format.sportLabel(a.sportType)),
    h("td", { class: "num" }, format.distance(a.distanceInMeter))))

  replace(main,
    h("p", { class: "crumbs" }, h("a", { href: "#/gear" }, "← Gear")),
    h("h1", { id: "gear-name" }, gear.name),
    h("p", { class: "muted", id: "gear-make" }, gearMake(gear), gear.isRetired ? " · retired" : ""),
    h("dl", { class: "stats" },
      h("div", { class: "stat" }, h("dt", null, "Distance"), h("dd", null, format.distance(gear.distanceInMeter))),
      h("div", { class: "stat" }, h("dt", null, "Activities"), h("dd", null, format.count(gear.numberOfActivities))),
      gear.months.length === 0
        ? null
        : h("div", { class: "stat" }, h("dt", null, "In use"), h("dd", null, `${monthLabel(monthMiddle(gear.months[0]!.month))} – ${monthLabel(monthMiddle(gear.months.at(-1)!.month))}`))),
    gear.months.length === 0 ? null : chartBox,
    h("section", null,
      h("h2", null, "Activities"),
      list.activities.length === 0
        ? h("p", { class: "empty" }, "No activity used it yet.")
        : [
          h("div", { class: "table-wrap", tabindex: 0 }, h("table", { id: "gear-activities" },
            h("caption", { class: "visually-hidden" }, `Activities with ${gear.name}`),
            h("thead", null, h("tr", null, h("th", { scope: "col" }, "Date"), h("th", { scope: "col" }, "Name"), h("th", { scope: "col", class: "opt" }, "Sport"),
              h("th", { scope: "col", class: "num" }, "Distance"))),
            h("tbody", null, rows))),
          pager("Pages of its activities", list.pagination, format.plural(list.pagination.total, "activity", "activities"), go)
        ]))

  if (gear.months.length > 0) {
    // the distance added up month by month, from zero the month before its first use
    const months = gear.months
    let total = 0
    const xs = [monthMiddle(months[0]!.month) - 31 * 86_400, ...months.map((m) => monthMiddle(m.month))]
    const ys = [0, ...months.map((m) => (total += format.toDistanceUnit(m.distanceInMeter)))]
    const handle = chart(chartBox, {
      legend,
      x: dateAxis,
      series: [
        { label: "Month", value: (_u, t) => (t === null || t === undefined ? "–" : monthLabel(t)) },
        {
          label: "Distance",
          stroke: css("--accent"),
          fill: `color-mix(in srgb, ${css("--accent")} 20%, transparent)`,
          width: 2,
          points: { show: true },
          value: (_u, v) => (v === null || v === undefined ? "–" : `${format.count(Math.round(v))} ${format.distanceUnit}`)
        }
      ],
      scales: { x: { time: false } }
    }, [xs, ys])
    cleanups.push(handle.remove)
  }
  return () => cleanups.forEach((c) => c())
}
