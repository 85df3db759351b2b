import uPlot from "uplot"
import { ApiError, call } from "../api.ts"
import { config } from "../config.ts"
import { chart, dateAxis } from "../chart.ts"
import { confirmDialog, field, h, replace, toast } from "../dom.ts"
import * as format from "../format.ts"
import type { Page } from "../main.ts"
import { metricColor, trainingColor } from "../palette.ts"
import { sportPicker } from "../sportPicker.ts"
import { durationLabel, type PowerCurve, powerCurveChart, type Thresholds } from "../training.ts"
import type { RequestOf } from "../endpoints.ts"

/**
 * The athlete's training: fitness, fatigue and form over a chosen range, the power curve of a
 * chosen period against the whole history's with its estimated FTP beside the FTP in force,
 * and the dated thresholds (add, change, delete).
 */

const failed = (error: unknown) => toast(error instanceof ApiError ? error.message : String(error), "error")
const reload = () => dispatchEvent(new HashChangeEvent("hashchange"))

/** Today, as the browser's calendar says it (YYYY-MM-DD). */
const today = () => new Date().toLocaleDateString("sv-SE")
/** The calendar day `n` days before `day` ("2024-03-01"). */
const daysBefore = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10)
const daysAgo = (n: number) => {
  const d = new Date()
  d.setDate(d.getDate() - n)
  return d.toLocaleDateString("sv-SE")
}

const RANGES: Record<string, readonly [string, number | null]> = {
  "3m": ["3 months", 91],
  "6m": ["6 months", 182],
  "1y": ["1 year", 365],
  "2y": ["2 years", 730],
  "5y": ["5 years", 1826],
  all: ["Everything", null]
}

const PERIODS: Record<string, readonly [string, () => { from?: string; to?: string }]> = {
  "42d": ["Last 6 weeks", () => ({ from: daysAgo(41) })],
  "90d": ["Last 90 days", () => ({ from: daysAgo(89) })],
  "365d": ["Last 12 months", () => ({ from: daysAgo(364) })],
  ytd: ["This year", () => ({ from: `${new Date().getFullYear()}-01-01` })],
  lastYear: ["Last year", () => ({ from: `${new Date().getFullYear() - 1}-01-01`, to: `${new Date().getFullYear() - 1}-12-31` })]
}

/** The FTP that applies to every sport of a choice: cycling FTP for rides, running FTP for runs, none for a mix or other sports. */
const ftpOf = (sports: ReadonlyArray<string>): keyof Pick<Thresholds, "cyclingFtp" | "runningFtp"> | null => {
  const rides: ReadonlySet<string> = new Set(config.sportGroups.rides)
  const runs: ReadonlySet<string> = new Set(config.sportGroups.runs)
  return sports.length === 0 ? null : sports.every((s) => rides.has(s)) ? "cyclingFtp" : sports.every((s) => runs.has(s)) ? "runningFtp" : null
}

const oneDecimal = (n: number) => n.toLocaleString(undefined, { maximumFractionDigits: 1 })
const KEY_DURATIONS = [5, 60, 300, 1200, 3600]

const THRESHOLD_FIELDS: ReadonlyArray<readonly [keyof Omit<Thresholds, "on">, string, number, number]> = [
  ["cyclingFtp", "Cycling FTP (W)", 20, 1000],
  ["runningFtp", "Running FTP (W)", 20, 1000],
  ["maxHeartRate", "Max heart rate (bpm)", 100, 250],
  ["restingHeartRate", "Resting heart rate (bpm)", 20, 150],
  ["lactateThresholdHeartRate", "Threshold heart rate (bpm)", 80, 240]
]

export const trainingPage: Page = async (main, params) => {
  const range = RANGES[params.get("range") ?? ""] !== undefined ? params.get("range")! : "6m"
  const period = PERIODS[params.get("period") ?? ""] !== undefined ? params.get("period")! : "90d"
  // the rides unless the address says otherwise (empty: every sport; names the service does not know left out)
  const sports = params.has("sport") ? params.get("sport")!.split(",").filter((s) => config.sportTypes.includes(s)) : [...config.sportGroups.rides]
  const [, days] = RANGES[range]!
  const [periodLabel, periodOf] = PERIODS[period]!
  const ftpKey = ftpOf(sports)
  const sportFilter = { "filters[sportType]": sports.length === 0 ? undefined : sports.join(",") }
  const periodRange = periodOf()
  // the fitness chart ends on the latest activity (today for an athlete still active): an archive
  // of past years opens on its last months, not on empty ones; a period holds no activity whose date is unknown
  const lastDay = (await call("activities.search", { query: { "pagination[size]": 1, "filters[to]": today() } })).activities[0]?.startDateLocal.slice(0, 10)
  const end = lastDay !== undefined && lastDay < today() ? lastDay : today()
  const [load, periodCurve, historyCurve, { thresholds }] = await Promise.all([
    call("training.trainingLoad", { query: { "filters[from]": days === null ? undefined : daysBefore(end, days - 1), "filters[to]": end } }),
    call("training.powerCurve", { query: { ...sportFilter, "filters[from]": periodRange.from, "filters[to]": periodRange.to } }),
    call("training.powerCurve", { query: sportFilter }),
    call("training.thresholds")
  ])
  const cleanups: Array<() => void> = []

  const go = (changes: Record<string, string>) => {
    const next = new URLSearchParams(params)
    for (const [k, v] of Object.entries(changes)) next.set(k, v)
    location.hash = `#/training?${next}`
  }
  const select = (name: string, current: string, options: Record<string, readonly [string, ...Array<unknown>]>) =>
    h("select", { name, onchange: (e: Event) => go({ [name]: (e.target as HTMLSelectElement).value }) },
      Object.entries(options).map(([value, [label]]) => h("option", { value, selected: value === current }, label)))

  // fitness, fatigue and form
  const latest = load.days.at(-1)
  const pmcBox = h("div", { class: "chart", id: "fitness-chart", role: "img", "aria-label": `Fitness, fatigue and form over ${RANGES[range]![0].toLowerCase()}${end === today() ? "" : ` to ${format.calendarDate(end)}`}` })
  const pmcLegend = h("div", { class: "legend-below" })
  const pmcCards = latest === undefined ? null : h("dl", { class: "stats", id: "fitness-today" },
    h("div", { class: "stat" }, h("dt", null, "Fitness"), h("dd", null, oneDecimal(latest.fitness))),
    h("div", { class: "stat" }, h("dt", null, "Fatigue"), h("dd", null, oneDecimal(latest.fatigue))),
    h("div", { class: "stat" }, h("dt", null, "Form"), h("dd", null, oneDecimal(latest.form))),
    h("div", { class: "stat" }, h("dt", null, "Load today"), h("dd", null, oneDecimal(latest.load))))
  const recent = load.days.slice(-14).reverse()
  const pmcTable = h("details", { class: "card" }, h("summary", null, "The last 14 days"),
    h("div", { class: "table-wrap", tabindex: 0 }, h("table", { id: "fitness-days" },
      h("caption", { class: "visually-hidden" }, "Training load, fitness, fatigue and form of the last 14 days"),
      h("thead", null, h("tr", null, ["Day", "Load", "Fitness", "Fatigue", "Form"].map((t, i) => h("th", { scope: "col", class: i > 0 ? "num" : null }, t)))),
      h("tbody", null, recent.map((d) => h("tr", null, h("td", null, format.calendarDate(d.on)),
        [d.load, d.fitness, d.fatigue, d.form].map((n) => h("td", { class: "num" }, oneDecimal(n)))))))))

  // the power curve
  const inForce = thresholds.find((t) => t.on <= today())
  const ftpInForce = inForce === undefined || ftpKey === null ? null : inForce[ftpKey]
  const method = periodCurve.estimatedFtpMethod === "criticalPower" ? "critical-power fit, 3 to 20 min" : "95 % of the best 20 min"
  const curveBox = h("div", { class: "chart", id: "power-curve-chart", role: "img", "aria-label": `Power curve of ${periodLabel.toLowerCase()} against the whole history` })
  const curveLegend = h("div", { class: "legend-below" })
  const bestOf = (curve: PowerCurve, d: number) => curve.powerCurve.find((p) => p.durationInSeconds === d)
  const link = (p: PowerCurve["powerCurve"][number] | undefined) =>
    p === undefined ? "–" : h("a", { href: `#/activity/${encodeURIComponent(p.activityId)}`, title: format.calendarDate(p.on) }, `${p.watts} W`)
  const curveTable = h("div", { class: "table-wrap", tabindex: 0 }, h("table", { id: "power-bests" },
    h("caption", { class: "visually-hidden" }, "Best power over key durations"),
    h("thead", null, h("tr", null, h("th", { scope: "col" }, "Duration"), h("th", { scope: "col", class: "num" }, periodLabel), h("th", { scope: "col", class: "num" }, "All time"))),
    h("tbody", null, KEY_DURATIONS.map((d) => h("tr", null, h("td", null, durationLabel(d)),
      h("td", { class: "num" }, link(bestOf(periodCurve, d))), h("td", { class: "num" }, link(bestOf(historyCurve, d))))))))
  const ftpCards = h("dl", { class: "stats", id: "ftp" },
    h("div", { class: "stat" }, h("dt", null, `Estimated FTP, ${periodLabel.toLowerCase()}`),
      h("dd", null, periodCurve.estimatedFtp === null ? "–" : `${periodCurve.estimatedFtp} W`,
        h("small", { class: "muted" }, periodCurve.estimatedFtp === null ? "needs a best of 20 minutes" : method))),
    h("div", { class: "stat" }, h("dt", null, "Estimated FTP, all time"), h("dd", null, historyCurve.estimatedFtp === null ? "–" : `${historyCurve.estimatedFtp} W`)),
    ftpKey === null ? null : h("div", { class: "stat" }, h("dt", null, ftpKey === "cyclingFtp" ? "Cycling FTP in force" : "Running FTP in force"),
      h("dd", null, ftpInForce === null || ftpInForce === undefined ? "not set" : `${ftpInForce} W`,
        inForce === undefined ? null : h("small", { class: "muted" }, `since ${format.calendarDate(inForce.on)}`))))

  // the thresholds
  const on = h("input", { type: "date", name: "on", required: true, value: today() })
  const inputs = Object.fromEntries(THRESHOLD_FIELDS.map(([key, , min, max]) =>
    [key, h("input", { type: "number", name: key, min, max, step: 1, inputmode: "numeric", value: inForce?.[key] ?? "" })])) as Record<string, HTMLInputElement>
  const thresholdsError = h("p", { class: "error", role: "alert", hidden: true })
  const form = h("form", {
    class: "filters",
    id: "thresholds-form",
    onsubmit: async (e: Event) => {
      e.preventDefault()
      const body: Record<string, unknown> = { on: on.value }
      for (const [key] of THRESHOLD_FIELDS) body[key] = inputs[key]!.value === "" ? null : Number(inputs[key]!.value)
      try {
        await call("training.saveThresholds", { payload: body as RequestOf<"training.saveThresholds">["payload"] })
        toast("Thresholds saved: the training figures are being recomputed.")
        reload()
      } catch (error) {
        thresholdsError.hidden = false
        thresholdsError.textContent = error instanceof ApiError ? error.message : String(error)
      }
    }
  }, field("In force from", on), THRESHOLD_FIELDS.map(([key, label]) => field(label, inputs[key]!)), thresholdsError,
    h("div", { class: "row end" }, h("button", { type: "submit", class: "primary" }, "Save thresholds")))
  const edit = (t: Thresholds) => {
    on.value = t.on
    for (const [key] of THRESHOLD_FIELDS) inputs[key]!.value = t[key] === null ? "" : String(t[key])
    form.scrollIntoView({ block: "start" })
    on.focus()
  }
  const shown = (n: number | null) => (n === null ? "–" : String(n))
  const thresholdsTable = thresholds.length === 0
    ? h("p", { class: "empty" }, "No thresholds yet: add your FTP and heart rates to see intensity, training stress and zones.")
    : h("div", { class: "table-wrap", tabindex: 0 }, h("table", { id: "thresholds" },
      h("caption", { class: "visually-hidden" }, "Thresholds, newest first"),
      h("thead", null, h("tr", null, h("th", { scope: "col" }, "From"),
        h("th", { scope: "col", class: "num" }, "Cycling FTP"), h("th", { scope: "col", class: "num opt" }, "Running FTP"),
        h("th", { scope: "col", class: "num" }, "Max HR"), h("th", { scope: "col", class: "num opt" }, "Resting HR"), h("th", { scope: "col", class: "num opt" }, "Threshold HR"),
        h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Actions")))),
      h("tbody", null, thresholds.map((t) => h("tr", null,
        h("td", null, format.calendarDate(t.on)),
        h("td", { class: "num" }, shown(t.cyclingFtp)), h("td", { class: "num opt" }, shown(t.runningFtp)),
        h("td", { class: "num" }, shown(t.maxHeartRate)), h("td", { class: "num opt" }, shown(t.restingHeartRate)), h("td", { class: "num opt" }, shown(t.lactateThresholdHeartRate)),
        h("td", null, h("div", { class: "actions" },
          h("button", { type: "button", class: "link", "aria-label": `Change the thresholds from ${format.calendarDate(t.on)}`, onclick: () => edit(t) }, "Change"),
          h("button", {
            type: "button",
            class: "link",
            "aria-label": `Delete the thresholds from ${format.calendarDate(t.on)}`,
            onclick: async () => {
              if (!(await confirmDialog(`Delete the thresholds from ${format.calendarDate(t.on)}? The set before them then applies to their days.`, "Delete"))) return
              try {
                await call("training.deleteThresholds", { path: { on: t.on } })
                toast("Thresholds deleted: the training figures are being recomputed.")
                reload()
              } catch (error) {
                failed(error)
              }
            }
          }, "Delete"))))))))

  replace(main,
    h("h1", null, "Training"),
    h("form", { class: "filters", onsubmit: (e: Event) => e.preventDefault() },
      field("Fitness over", select("range", range, RANGES)),
      field("Power curve of", select("period", period, PERIODS)),
      sportPicker({ label: "Sports", selected: sports, onClose: (chosen) => go({ sport: chosen.join(",") }) }).element),
    h("section", null, h("h2", null, "Fitness, fatigue and form"),
      load.days.length === 0
        ? h("p", { class: "empty" }, "No activities in this range yet.")
        : [pmcCards, pmcBox, pmcLegend, h("p", { class: "muted" },
          "Fitness and fatigue are the training load's averages over 42 and 7 days; form is fitness minus fatigue. ",
          "Each activity's load is its training stress score (power and FTP), else its hrTSS (heart rate and thresholds)."), pmcTable]),
    h("section", null, h("h2", null, "Power curve"),
      ftpCards,
      historyCurve.powerCurve.length === 0 ? h("p", { class: "empty" }, "No activity with power yet.") : [curveBox, curveLegend, curveTable]),
    h("section", null, h("h2", null, "Thresholds"),
      h("p", { class: "muted" }, "A set applies from its date until the next one; saving one with the same date replaces it."),
      form, thresholdsTable))

  if (load.days.length > 0) {
    const xs = load.days.map((d) => Date.parse(`${d.on}T12:00:00`) / 1000)
    const bars = uPlot.paths.bars!({ size: [0.8, 8] })
    const figure = (_u: uPlot, v: number | null) => (v === null || v === undefined ? "–" : oneDecimal(v))
    const line = (label: string, color: string, extra: Partial<uPlot.Series> = {}): uPlot.Series =>
      ({ label, stroke: color, width: 2, points: { show: false }, value: figure, ...extra })
    const loadColor = trainingColor("load")
    cleanups.push(chart(pmcBox, {
      height: 280,
      legend: pmcLegend,
      cursor: { drag: { x: false, y: false } },
      series: [
        { label: "Day", value: (_u, _v, _s, i) => (i === null || load.days[i] === undefined ? "–" : format.calendarDate(load.days[i]!.on)) },
        line("Load", loadColor, { fill: `${loadColor}66`, width: 1, paths: bars }),
        line("Fitness", trainingColor("fitness")),
        line("Fatigue", trainingColor("fatigue"), { width: 1.5 }),
        line("Form", trainingColor("form"), { width: 1.5, dash: [6, 4] })
      ],
      x: dateAxis
    }, [xs, load.days.map((d) => d.load), load.days.map((d) => d.fitness), load.days.map((d) => d.fatigue), load.days.map((d) => d.form)]).remove)
  }
  if (historyCurve.powerCurve.length > 0) {
    cleanups.push(powerCurveChart(curveBox, curveLegend, [
      { label: periodLabel, color: metricColor("power"), points: periodCurve.powerCurve },
      { label: "All time", color: trainingColor("history"), dashed: true, points: historyCurve.powerCurve }
    ]).remove)
  }
  return () => cleanups.forEach((c) => c())
}
