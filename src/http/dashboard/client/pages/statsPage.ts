import polyline from "@mapbox/polyline"
import uPlot from "uplot"
import { call } from "../api.ts"
import { config } from "../config.ts"
import { type AxisOptions, chart, DURATION_STEPS } from "../chart.ts"
import { field, h, replace } from "../dom.ts"
import * as format from "../format.ts"
import type { Page } from "../main.ts"
import { sportColor } from "../palette.ts"
import { type Period, periodLabel, periodOf, periodsBetween } from "../periods.ts"
import { sportPicker } from "../sportPicker.ts"
import { type LatLng, routeMap } from "../routeMap.ts"
import type { Total } from "../types.ts"

/** Totals per week, month or year by sport as a chart, records, the Eddington number and the heatmap. */

type Measure = "distance" | "time" | "elevation" | "count"

/** Whole hours as "12 h", the rest as h:mm. */
const hours = (seconds: number) => (seconds % 3600 === 0 ? `${seconds / 3600} h` : format.duration(seconds, true).replace(/:\d\d$/, ""))

const MEASURES: Record<Measure, {
  readonly label: string
  readonly of: (t: Total) => number
  readonly show: (n: number) => string
  readonly axis?: AxisOptions
}> = {
  distance: { label: `Distance (${format.distanceUnit})`, of: (t) => format.toDistanceUnit(t.distanceInMeter), show: (n) => `${n.toLocaleString(undefined, { maximumFractionDigits: n < 10 ? 1 : 0 })} ${format.distanceUnit}` },
  // in seconds: ticks at round durations (15 and 30 min, 1, 2, 3, 6, 12 h…), shown in hours
  time: {
    label: "Moving time",
    of: (t) => t.movingTimeInSeconds,
    show: hours,
    axis: { incrs: DURATION_STEPS.filter((s) => s >= 900), values: (_u, ticks) => ticks.map(hours) }
  },
  elevation: { label: `Elevation (${format.elevationUnit})`, of: (t) => format.toElevationUnit(t.elevationInMeter), show: (n) => `${n.toLocaleString(undefined, { maximumFractionDigits: 0 })} ${format.elevationUnit}` },
  count: { label: "Activities", of: (t) => t.count, show: (n) => n.toLocaleString(), axis: { incrs: [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000] } }
}

/** How many periods the chart shows, the newest last. */
const SHOWN: Record<Period, number> = { week: 26, month: 24, year: 50 }

/**
 * The periods of the chart, every one in its range counted or not: the SHOWN up to this one, or
 * when nothing was counted in those (an athlete back from years off), up to the newest counted.
 */
const periodsOf = (totals: ReadonlyArray<Total>, period: Period): Array<string> => {
  const keys = totals.map((t) => t.period).sort()
  const newest = keys.at(-1)!
  const now = periodOf(period, new Date().toLocaleDateString("sv-SE"))
  const upToNow = periodsBetween(period, keys[0]!, newest > now ? newest : now, SHOWN[period])
  return upToNow.includes(newest) || newest > now ? upToNow : periodsBetween(period, keys[0]!, newest, SHOWN[period])
}

const totalsChart = (box: HTMLElement, legend: HTMLElement, totals: ReadonlyArray<Total>, periods: ReadonlyArray<string>, period: Period, measure: Measure) => {
  const shown = new Set(periods)
  const sports = [...new Set(totals.filter((t) => shown.has(t.period)).map((t) => t.sportType))]
  const m = MEASURES[measure]
  const value = new Map(totals.map((t) => [`${t.period} ${t.sportType}`, m.of(t)]))
  const own = sports.map((s) => periods.map((p) => value.get(`${p} ${s}`) ?? 0))
  // stacked: series k reaches the sum of sports k and after, drawn tallest first
  const stacks = sports.map((_, k) => periods.map((_p, i) => own.slice(k).reduce((sum, values) => sum + values[i]!, 0) || null))
  const bars = uPlot.paths.bars!({ size: [0.7, 60] })
  return chart(box, {
    height: 260,
    legend,
    cursor: { points: { show: false }, drag: { x: false, y: false } },
    scales: { x: { time: false, range: [-0.5, periods.length - 0.5] }, y: { range: (_u, _min, max) => [0, Math.max(max, 1) * 1.05] } },
    series: [
      { label: period.charAt(0).toUpperCase() + period.slice(1), value: (_u, i) => (i === null || i === undefined ? "–" : periodLabel(period, periods[i] ?? "", "short")) },
      ...sports.map((s, k) => {
        const color = sportColor(s)
        // the legend shows the sport's own value, not the top of its stack
        return { label: format.sportLabel(s), fill: color, stroke: color, paths: bars, points: { show: false }, value: (u: uPlot) => (u.cursor.idx === null || u.cursor.idx === undefined ? "–" : m.show(own[k]![u.cursor.idx]!)) }
      })
    ],
    x: { space: 70, incrs: [1, 2, 3, 4, 6, 12, 13, 26, 52], values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? periodLabel(period, periods[t] ?? "", "short") : "")) },
    y: { ...m.axis, values: m.axis?.values ?? ((_u, ticks) => ticks.map((t) => t.toLocaleString())) }
  }, [periods.map((_, i) => i), ...stacks])
}

export const statsPage: Page = async (main, params) => {
  const period = (["week", "month", "year"].includes(params.get("period") ?? "") ? params.get("period") : "month") as Period
  const measure = (Object.hasOwn(MEASURES, params.get("measure") ?? "") ? params.get("measure") : "distance") as Measure
  const sport = params.get("sport") ?? ""
  const sportFilter = { "filters[sportType]": sport === "" ? undefined : sport }
  const [{ totals }, { records }, { eddington }, { routes }] = await Promise.all([
    call("stats.totals", { query: { "filters[period]": period, ...sportFilter } }),
    call("stats.records", { query: sportFilter }),
    call("stats.eddington", { query: sportFilter }),
    call("stats.heatmap", { query: sportFilter })
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

  const sports = sportPicker({ label: "Sports", selected: sport.split(",").filter((s) => s !== ""), onClose: (chosen) => go({ sport: chosen.join(",") }) })
  const controls = h("form", { class: "filters", onsubmit: (e: Event) => e.preventDefault() },
    field("Period", select("period", period, [["week", "Week"], ["month", "Month"], ["year", "Year"]])),
    field("Show", select("measure", measure, Object.entries(MEASURES).map(([k, m]) => [k, m.label] as const))),
    sports.element)

  const periods = totals.length === 0 ? [] : periodsOf(totals, period)
  const shown = new Set(periods)
  const legend = h("div", { class: "legend-below" })
  const chartBox = h("div", { class: "chart", id: "totals-chart", role: "img", "aria-label": `${MEASURES[measure].label} per ${period} by sport` })
  // every row of the periods the chart shows, newest first
  const recent = totals.filter((t) => shown.has(t.period))
  const totalsTable = h("div", { class: "table-wrap", tabindex: 0 }, h("table", { id: "totals" },
    h("caption", { class: "visually-hidden" }, `Totals per ${period}`),
    h("thead", null, h("tr", null, h("th", { scope: "col" }, period.charAt(0).toUpperCase() + period.slice(1)), h("th", { scope: "col" }, "Sport"),
      h("th", { scope: "col", class: "num" }, "Activities"), h("th", { scope: "col", class: "num" }, "Distance"),
      h("th", { scope: "col", class: "num opt" }, "Time"), h("th", { scope: "col", class: "num opt" }, "Elevation"))),
    h("tbody", null, recent.map((t) => h("tr", null, h("td", { class: "nowrap" }, periodLabel(period, t.period)), h("td", null, format.sportLabel(t.sportType)),
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
    h("section", null, h("h2", null, `Totals per ${period}`), totals.length === 0 ? h("p", { class: "empty" }, "Nothing to count yet.") : [chartBox, legend, totalsTable]),
    h("div", { class: "grid2" },
      h("section", null, h("h2", null, "Records"), recordsTable),
      h("section", { id: "eddington" }, h("h2", null, "Eddington number"),
        h("div", { class: "card" },
          h("p", { class: "big" }, `${number} ${unit}`),
          h("p", null, `On ${number} days you covered at least ${number} ${unit}. ${format.plural(needed, "more day")} of ${number + 1} ${unit} or more ${needed === 1 ? "reaches" : "reach"} ${number + 1}.`),
          h("p", { class: "muted" }, `In ${unit === "mi" ? "kilometres" : "miles"}: ${unit === "mi" ? eddington.km : eddington.mi}`)))),
    h("section", null, h("h2", null, `Heatmap · ${format.count(routes.length)} routes`), heatBox))

  if (totals.length > 0) cleanups.push(totalsChart(chartBox, legend, totals, periods, period, measure).remove)
  const map = routeMap(heatBox, routes.map((r) => polyline.decode(r.encodedPolyline) as Array<LatLng>), { thin: true })
  cleanups.push(map.remove)
  return () => cleanups.forEach((c) => c())
}
