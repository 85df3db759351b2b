import { call } from "./api.ts"
import { imperial } from "./config.ts"
import { h, replace } from "./dom.ts"
import * as format from "./format.ts"
import { metricColor } from "./palette.ts"
import { heartRateZonesOf, powerCurveChart, powerZonesOf, zoneBars } from "./training.ts"
import type { Activity } from "./types.ts"

/**
 * An activity's training analysis on its page: normalized power, intensity, training load,
 * grade-adjusted or swim pace, its power curve and its time in zones as bars. Drawn into
 * `container` once the analysis arrives; returns what to remove when the page goes.
 */

const MILE = 1609.344

const stat = (label: string, value: string | null, note?: string) =>
  value === null ? null : h("div", { class: "stat" }, h("dt", null, label), h("dd", null, value, note === undefined ? null : h("small", { class: "muted" }, note)))

const fixed = (n: number | null, digits: number) => (n === null ? null : n.toLocaleString(undefined, { minimumFractionDigits: digits, maximumFractionDigits: digits }))

export const drawAnalysis = async (container: HTMLElement, activity: Activity): Promise<() => void> => {
  const a = await call("training.analysis", { path: { activityId: activity.id } })
  const loadNote = a.trainingLoadSource === "power" ? "training stress score" : a.trainingLoadSource === "heartRate" ? "hrTSS, from heart rate" : undefined
  const gap = a.gradeAdjustedPaceInSecondsPerKm === null
    ? null
    : `${format.duration(a.gradeAdjustedPaceInSecondsPerKm * (imperial ? MILE / 1000 : 1))} /${format.distanceUnit}`
  const figures = h("dl", { class: "stats", id: "analysis-figures" },
    stat("Normalized power", a.normalizedPower === null ? null : `${a.normalizedPower} W`),
    stat("Intensity factor", fixed(a.intensityFactor, 2), a.ftp === null ? undefined : `of FTP ${a.ftp} W`),
    stat("Training load", fixed(a.trainingLoad, 0), loadNote),
    stat("TRIMP", fixed(a.trimp, 0)),
    stat("Work", a.workInKilojoules === null ? null : `${format.count(Math.round(a.workInKilojoules))} kJ`),
    stat("Grade-adjusted pace", gap),
    stat("Pace", a.paceInSecondsPer100m === null ? null : `${format.duration(a.paceInSecondsPer100m)} /100 m`))
  // thresholds are dated: one whose date is unknown has none that apply, and no training load
  const missing = activity.dateUnknown
    ? h("p", { class: "muted" }, "Its date is unknown: no thresholds apply to it, and it adds no training load.")
    : a.thresholds === null
    ? h("p", { class: "muted" }, "No thresholds apply to this date: add your FTP and heart rates on the ", h("a", { href: "#/training" }, "Training page"),
      " to see intensity, training stress and zones.")
    : null
  // titled as the activity's other charts, with the values under the cursor beside the title
  const curveLegend = h("div", { class: "chart-legend" })
  const curveBox = h("div", { class: "chart", id: "activity-power-curve", role: "img", "aria-label": "Power curve of this activity: the best average power over each duration" },
    h("div", { class: "chart-head" }, h("h3", null, "Power curve (W)"), curveLegend))
  const curve = a.powerCurve ?? []
  const power = powerZonesOf(a.powerZones)
  const heart = heartRateZonesOf(a.heartRateZones)
  replace(container,
    h("h2", null, "Training"),
    figures,
    missing,
    curve.length === 0 ? null : curveBox,
    power.length === 0 && heart.length === 0 ? null : h("div", { class: "grid2 tables" },
      power.length === 0 ? null : h("section", null, h("h3", null, "Time in power zones"), zoneBars("power-zones", "Time in power zones", "power", power)),
      heart.length === 0 ? null : h("section", null, h("h3", null, "Time in heart-rate zones"), zoneBars("heart-rate-zones", "Time in heart-rate zones", "heartRate", heart))))
  if (curve.length === 0) return () => undefined
  return powerCurveChart(curveBox, curveLegend, [{ label: "Best power", color: metricColor("power"), points: curve }], 200).remove
}
