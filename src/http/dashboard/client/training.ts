import type uPlot from "uplot"
import type * as Training from "../../../schema/TrainingModels.ts"
import { chart, type ChartHandle, logDurationAxis } from "./chart.ts"
import { h } from "./dom.ts"
import * as format from "./format.ts"
import { zoneFill } from "./palette.ts"

/** What the Training page and an activity's page share: the API's training types, a power curve chart, zones as bars. */

export type Thresholds = typeof Training.Thresholds.Type
export type ActivityAnalysis = typeof Training.ActivityAnalysis.Type
export type PowerCurve = typeof Training.PowerCurveAnswer.Type
export type TrainingLoad = typeof Training.TrainingLoadAnswer.Type
type Zone = { readonly zone: number; readonly name: string; readonly min: number; readonly max: number | null; readonly timeInSeconds: number }

/** 5 s, 1 min, 1 h 30 min: a duration of the power curve as people say it. */
export const durationLabel = (seconds: number): string => {
  if (seconds < 60) return `${seconds} s`
  if (seconds < 3600) return `${seconds / 60} min`
  const hours = Math.floor(seconds / 3600)
  const minutes = (seconds % 3600) / 60
  return minutes === 0 ? `${hours} h` : `${hours} h ${minutes} min`
}

/** Shorter, for an axis: 5s, 1m, 1h. */
const tickLabel = (seconds: number): string =>
  seconds < 60 ? `${seconds}s` : seconds < 3600 ? `${seconds / 60}m` : seconds % 3600 === 0 ? `${seconds / 3600}h` : `${Math.floor(seconds / 3600)}h${(seconds % 3600) / 60}`

export interface CurveSeries {
  readonly label: string
  readonly color: string
  /** a reference drawn dashed (the whole history's curve beside a period's) */
  readonly dashed?: boolean
  readonly points: ReadonlyArray<{ readonly durationInSeconds: number; readonly watts: number }>
}

/**
 * Power curves over a logarithmic axis of durations, as training tools draw them (the seconds
 * and the hours both readable), ticks at round durations, one line each and their watts under
 * the cursor in `legend`.
 */
export const powerCurveChart = (container: HTMLElement, legend: HTMLElement, curves: ReadonlyArray<CurveSeries>, height = 240): ChartHandle => {
  const durations = [...new Set(curves.flatMap((c) => c.points.map((p) => p.durationInSeconds)))].sort((a, b) => a - b)
  const data = curves.map((c) => {
    const at = new Map(c.points.map((p) => [p.durationInSeconds, p.watts]))
    return durations.map((d) => at.get(d) ?? null)
  })
  const watts = (_u: uPlot, v: number | null) => (v === null || v === undefined ? "–" : `${format.count(v)} W`)
  return chart(container, {
    height,
    legend,
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: false, distr: 3, log: 10, range: [durations[0]!, Math.max(durations.at(-1)!, durations[0]! * 2)] } },
    series: [
      { label: "Duration", value: (_u, v) => (v === null || v === undefined ? "–" : durationLabel(v)) },
      ...curves.map((c) => ({ label: c.label, stroke: c.color, width: 2, ...(c.dashed === true ? { dash: [6, 4] } : {}), points: { show: true, size: 4 }, spanGaps: true, value: watts }))
    ],
    x: logDurationAxis(tickLabel),
    y: { values: (_u, ticks) => ticks.map((t) => `${format.count(t)}`) }
  }, [durations, ...data] as uPlot.AlignedData)
}

/** Time in each zone as horizontal bars, with its bounds and share, in a table (its text is what a screen reader reads). */
export const zoneBars = (id: string, caption: string, kind: "power" | "heartRate", zones: ReadonlyArray<Zone>): HTMLElement => {
  const unit = kind === "power" ? "W" : "bpm"
  const total = zones.reduce((sum, z) => sum + z.timeInSeconds, 0)
  const bound = (n: number) => n.toLocaleString(undefined, { maximumFractionDigits: 0 })
  return h("div", { class: "table-wrap zones", tabindex: 0 }, h("table", { id },
    h("caption", { class: "visually-hidden" }, caption),
    h("thead", null, h("tr", null,
      h("th", { scope: "col" }, "Zone"), h("th", { scope: "col", class: "num opt" }, unit),
      h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Share")), h("th", { scope: "col", class: "num" }, "Time"))),
    h("tbody", null, zones.map((z) => {
      const share = total > 0 ? z.timeInSeconds / total : 0
      const bar = h("span", { class: "bar" })
      // through the CSS object model: the page's policy refuses style attributes
      bar.style.width = `${(share * 100).toFixed(1)}%`
      bar.style.background = zoneFill(kind, z.zone)
      return h("tr", null,
        h("td", null, `Z${z.zone} ${z.name}`),
        h("td", { class: "num opt" }, z.max === null ? `${bound(z.min)}+` : `${bound(z.min)}–${bound(z.max)}`),
        h("td", { class: "bar-cell" }, bar, h("span", { class: "share" }, `${Math.round(share * 100)} %`)),
        h("td", { class: "num" }, format.duration(z.timeInSeconds)))
    }))))
}

/** Power zones of an analysis in the shape the bars take. */
export const powerZonesOf = (zones: ActivityAnalysis["powerZones"]): Array<Zone> =>
  (zones ?? []).map((z) => ({ zone: z.zone, name: z.name, min: z.minWatts, max: z.maxWatts, timeInSeconds: z.timeInSeconds }))

export const heartRateZonesOf = (zones: ActivityAnalysis["heartRateZones"]): Array<Zone> =>
  (zones ?? []).map((z) => ({ zone: z.zone, name: z.name, min: z.minHeartRate, max: z.maxHeartRate, timeInSeconds: z.timeInSeconds }))
