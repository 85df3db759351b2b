import polyline from "@mapbox/polyline"
import { call } from "../api.ts"
import { config } from "../config.ts"
import { field, h, replace } from "../dom.ts"
import * as format from "../format.ts"
import { DISCIPLINES } from "../labels.ts"
import type { Page } from "../main.ts"
import { type Period, periodLabel, periodsBetween } from "../periods.ts"
import { sportPicker } from "../sportPicker.ts"
import { type LatLng, routeMap } from "../routeMap.ts"
import { type Measure, MEASURES, totalsChart } from "../totalsChart.ts"
import type { Total } from "../types.ts"

/** Totals per week, month or year by sport as a chart, records, the Eddington number and the heatmap. */

/** How many periods the chart shows, the newest last, unless it shows them all. */
const SHOWN: Record<Period, number> = { week: 26, month: 24, year: 50 }

/**
 * The periods of the chart, every one in its range counted or not, up to the newest counted
 * (this one for an athlete still active; an archive of past years ends on its last activities,
 * not on empty years): the SHOWN of them, or all from the first counted.
 */
const periodsOf = (totals: ReadonlyArray<Total>, period: Period, all: boolean): Array<string> => {
  const keys = totals.map((t) => t.period).sort()
  return periodsBetween(period, keys[0]!, keys.at(-1)!, all ? Infinity : SHOWN[period])
}

export const statsPage: Page = async (main, params) => {
  const period = (["week", "month", "year"].includes(params.get("period") ?? "") ? params.get("period") : "month") as Period
  const measure = (Object.hasOwn(MEASURES, params.get("measure") ?? "") ? params.get("measure") : "distance") as Measure
  const sport = params.get("sport") ?? ""
  // the chart's range: the latest SHOWN periods, or every period since the first activity
  const all = params.get("range") === "all"
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
    field("Range", select("range", all ? "all" : "", [["", `Latest ${SHOWN[period]} ${period}s`], ["all", "Since the first activity"]])),
    sports.element)

  const periods = totals.length === 0 ? [] : periodsOf(totals, period, all)
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
        h("th", { scope: "col", class: "num opt" }, "Pace or speed"), h("th", { scope: "col" }, "Activity"))),
      h("tbody", null, records.map((r) => h("tr", null,
        h("td", null, `${r.name} ${DISCIPLINES[r.discipline]}`),
        h("td", { class: "num" }, format.duration(r.elapsedTimeInSeconds)),
        h("td", { class: "num opt" }, format.speedOrPace(r.distanceInMeter / r.elapsedTimeInSeconds * 3.6, r.sportType)),
        h("td", null,
          h("a", { href: `#/activity/${encodeURIComponent(r.activityId)}`, class: "record-activity" }, r.activityName ?? format.sportLabel(r.sportType)),
          h("small", { class: "muted nowrap" }, ` ${format.localDateTime(r.startDateLocal, "short")}`)))))))

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
    h("section", null, h("h2", null, `Heatmap · ${format.plural(routes.length, "route")}`), heatBox))

  if (totals.length > 0) {
    const short = (key: string) => periodLabel(period, key, "short")
    cleanups.push(totalsChart(chartBox, legend, {
      totals,
      periods,
      measure,
      periodName: period.charAt(0).toUpperCase() + period.slice(1),
      label: short,
      tick: short,
      tickSteps: [1, 2, 3, 4, 6, 12, 13, 26, 52],
      tickSpace: 70
    }).remove)
  }
  const map = routeMap(heatBox, routes.map((r) => polyline.decode(r.encodedPolyline) as Array<LatLng>), { thin: true })
  cleanups.push(map.remove)
  return () => cleanups.forEach((c) => c())
}
