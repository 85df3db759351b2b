import polyline from "@mapbox/polyline"
import uPlot from "uplot"
import { api, query } from "../api.ts"
import { config } from "../config.ts"
import { chart, PALETTE } from "../chart.ts"
import { field, h, replace } from "../dom.ts"
import * as format from "../format.ts"
import type { Page } from "../main.ts"
import { type LatLng, routeMap } from "../routeMap.ts"
import type { Eddington, HeatmapRoute, PersonalRecord, Total } from "../types.ts"

/** Totals per week, month or year by sport as a chart, records, the Eddington number and the heatmap. */

type Period = "week" | "month" | "year"
type Measure = "distance" | "time" | "elevation" | "count"

const MEASURES: Record<Measure, { readonly label: string; readonly of: (t: Total) => number; readonly show: (n: number) => string }> = {
  distance: { label: `Distance (${format.distanceUnit})`, of: (t) => format.toDistanceUnit(t.distanceInMeter), show: (n) => n.toLocaleString(undefined, { maximumFractionDigits: n < 10 ? 1 : 0 }) },
  time: { label: "Moving time (h)", of: (t) => t.movingTimeInSeconds / 3600, show: (n) => n.toLocaleString(undefined, { maximumFractionDigits: 1 }) },
  elevation: { label: `Elevation (${format.elevationUnit})`, of: (t) => format.toElevationUnit(t.elevationInMeter), show: (n) => n.toLocaleString(undefined, { maximumFractionDigits: 0 }) },
  count: { label: "Activities", of: (t) => t.count, show: (n) => n.toLocaleString() }
}

/** How many periods the chart shows, the newest last. */
const SHOWN: Record<Period, number> = { week: 26, month: 24, year: 50 }

const totalsChart = (box: HTMLElement, totals: ReadonlyArray<Total>, period: Period, measure: Measure) => {
  const periods = [...new Set(totals.map((t) => t.period))].slice(0, SHOWN[period]).reverse()
  const sports = [...new Set(totals.filter((t) => periods.includes(t.period)).map((t) => t.sportType))]
  const value = new Map(totals.map((t) => [`${t.period} ${t.sportType}`, MEASURES[measure].of(t)]))
  // stacked: series k reaches the sum of sports k and after, drawn tallest first
  const stacks = sports.map((_, k) => periods.map((p) => sports.slice(k).reduce((sum, s) => sum + (value.get(`${p} ${s}`) ?? 0), 0)))
  const bars = uPlot.paths.bars!({ size: [0.7, 60] })
  return chart(box, {
    height: 260,
    legend: { show: true, live: false },
    cursor: { show: false },
    scales: { x: { time: false, range: [-0.5, periods.length - 0.5] }, y: { range: (_u, _min, max) => [0, Math.max(max, 1) * 1.05] } },
    series: [{}, ...sports.map((s, k) => ({ label: format.sportLabel(s), fill: PALETTE[k % PALETTE.length]!, stroke: PALETTE[k % PALETTE.length]!, paths: bars, points: { show: false } }))],
    xValues: (_u, ticks) => ticks.map((t) => periods[t] ?? ""),
    yValues: (_u, ticks) => ticks.map((t) => MEASURES[measure].show(t))
  }, [periods.map((_, i) => i), ...stacks])
}

export const statsPage: Page = async (main, params) => {
  const period = (["week", "month", "year"].includes(params.get("period") ?? "") ? params.get("period") : "month") as Period
  const measure = (params.get("measure") ?? "distance") as Measure
  const sport = params.get("sport") ?? ""
  const sportFilter = { "filters[sportType]": sport === "" ? undefined : sport }
  const [{ totals }, { records }, { eddington }, { routes }] = await Promise.all([
    api<{ totals: ReadonlyArray<Total> }>(`stats/totals${query({ "filters[period]": period, ...sportFilter })}`),
    api<{ records: ReadonlyArray<PersonalRecord> }>(`stats/records${query(sportFilter)}`),
    api<{ eddington: Eddington }>(`stats/eddington${query(sportFilter)}`),
    api<{ routes: ReadonlyArray<HeatmapRoute> }>(`stats/heatmap${query(sportFilter)}`)
  ])
  const cleanups: Array<() => void> = []

  const go = (changes: Record<string, string>) => {
    const next = new URLSearchParams(params)
    for (const [k, v] of Object.entries(changes)) {
      if (v === "") next.delete(k)
      else next.set(k, v)
    }
    location.hash = `#/stats?${next}`
  }
  const select = (name: string, current: string, options: ReadonlyArray<readonly [string, string]>) =>
    h("select", { name, onchange: (e: Event) => go({ [name]: (e.target as HTMLSelectElement).value }) },
      options.map(([value, label]) => h("option", { value, selected: value === current }, label)))

  const controls = h("form", { class: "filters", onsubmit: (e: Event) => e.preventDefault() },
    field("Period", select("period", period, [["week", "Week"], ["month", "Month"], ["year", "Year"]])),
    field("Show", select("measure", measure, Object.entries(MEASURES).map(([k, m]) => [k, m.label] as const))),
    field("Sport", select("sport", sport, [["", "All sports"], ...config.sportTypes.map((s) => [s, format.sportLabel(s)] as const)])))

  const chartBox = h("div", { class: "chart", id: "totals-chart", role: "img", "aria-label": `${MEASURES[measure].label} per ${period} by sport` })
  const recent = totals.slice(0, 12)
  const totalsTable = h("div", { class: "table-wrap", tabindex: 0 }, h("table", { id: "totals" },
    h("caption", { class: "visually-hidden" }, `Totals per ${period}`),
    h("thead", null, h("tr", null, h("th", { scope: "col" }, period.charAt(0).toUpperCase() + period.slice(1)), h("th", { scope: "col" }, "Sport"),
      h("th", { scope: "col", class: "num" }, "Activities"), h("th", { scope: "col", class: "num" }, "Distance"),
      h("th", { scope: "col", class: "num opt" }, "Time"), h("th", { scope: "col", class: "num opt" }, "Elevation"))),
    h("tbody", null, recent.map((t) => h("tr", null, h("td", null, t.period), h("td", null, format.sportLabel(t.sportType)),
      h("td", { class: "num" }, format.count(t.count)), h("td", { class: "num" }, format.distance(t.distanceInMeter)),
      h("td", { class: "num opt" }, format.duration(t.movingTimeInSeconds)), h("td", { class: "num opt" }, format.elevation(t.elevationInMeter)))))))

  const recordsTable = records.length === 0
    ? h("p", { class: "empty" }, "No records yet.")
    : h("div", { class: "table-wrap", tabindex: 0 }, h("table", { id: "records" },
      h("caption", { class: "visually-hidden" }, "Records"),
      h("thead", null, h("tr", null, h("th", { scope: "col" }, "Distance"), h("th", { scope: "col", class: "num" }, "Time"),
        h("th", { scope: "col", class: "num opt" }, "Pace or speed"), h("th", { scope: "col" }, "When"))),
      h("tbody", null, records.map((r) => h("tr", null,
        h("td", null, `${r.name} ${r.discipline}`),
        h("td", { class: "num" }, format.duration(r.elapsedTimeInSeconds)),
        h("td", { class: "num opt" }, format.speedOrPace(r.distanceInMeter / r.elapsedTimeInSeconds * 3.6, r.sportType)),
        h("td", null, h("a", { href: `#/activity/${encodeURIComponent(r.activityId)}` }, format.localDateTime(r.startDateLocal, "short"))))))))

  const heatBox = h("div", { class: "map tall", id: "heatmap", role: "region", "aria-label": "Heatmap of every route" })
  const unit = config.unitSystem === "imperial" ? "mi" : "km"
  const number = unit === "mi" ? eddington.mi : eddington.km
  const needed = unit === "mi" ? eddington.daysNeededForNextMi : eddington.daysNeededForNextKm

  replace(main,
    h("h1", null, "Statistics"),
    controls,
    h("section", null, h("h2", null, `Totals per ${period}`), totals.length === 0 ? h("p", { class: "empty" }, "Nothing to count yet.") : [chartBox, totalsTable]),
    h("div", { class: "grid2" },
      h("section", null, h("h2", null, "Records"), recordsTable),
      h("section", { id: "eddington" }, h("h2", null, "Eddington number"),
        h("div", { class: "card" },
          h("p", { class: "big" }, `${number} ${unit}`),
          h("p", null, `On ${number} days you covered at least ${number} ${unit}. ${needed} more days of ${number + 1} ${unit} or more reach ${number + 1}.`),
          h("p", { class: "muted" }, `In ${unit === "mi" ? "kilometres" : "miles"}: ${unit === "mi" ? eddington.km : eddington.mi}`)))),
    h("section", null, h("h2", null, `Heatmap · ${format.count(routes.length)} routes`), heatBox))

  if (totals.length > 0) cleanups.push(totalsChart(chartBox, totals, period, measure).remove)
  const map = routeMap(heatBox, routes.map((r) => polyline.decode(r.encodedPolyline) as Array<LatLng>), { thin: true })
  cleanups.push(map.remove)
  return () => cleanups.forEach((c) => c())
}
