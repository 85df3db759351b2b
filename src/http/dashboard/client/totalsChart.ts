import uPlot from "uplot"
import { type AxisOptions, chart, type ChartHandle, DURATION_STEPS } from "./chart.ts"
import * as format from "./format.ts"
import { sportColor } from "./palette.ts"
import type { Total } from "./types.ts"

/**
 * The totals of a run of periods as bars stacked by sport, each sport in its own colour, its
 * value for the period under the cursor in the legend: the statistics' weeks, months or years,
 * and the months of the year in review.
 */

export type Measure = "distance" | "time" | "elevation" | "count"

/** Whole hours as "12 h", the rest as h:mm. */
const hours = (seconds: number) => (seconds % 3600 === 0 ? `${seconds / 3600} h` : format.duration(seconds, true).replace(/:\d\d$/, ""))

export const MEASURES: Record<Measure, {
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

export interface TotalsChartOptions {
  readonly totals: ReadonlyArray<Total>
  /** the periods along the axis, oldest first, those without a total included */
  readonly periods: ReadonlyArray<string>
  readonly measure: Measure
  /** what a period is ("Month"), and a period's name in the legend and at its tick */
  readonly periodName: string
  readonly label: (period: string) => string
  readonly tick: (period: string) => string
  /** how many periods a tick may stand for, and the room a tick's label takes */
  readonly tickSteps: ReadonlyArray<number>
  readonly tickSpace: number
  readonly height?: number
}

export const totalsChart = (box: HTMLElement, legend: HTMLElement, options: TotalsChartOptions): ChartHandle => {
  const { totals, periods, measure, periodName, label, tick, tickSteps, tickSpace, height = 260 } = options
  const shown = new Set(periods)
  const sports = [...new Set(totals.filter((t) => shown.has(t.period)).map((t) => t.sportType))]
  const m = MEASURES[measure]
  const value = new Map(totals.map((t) => [`${t.period} ${t.sportType}`, m.of(t)]))
  const own = sports.map((s) => periods.map((p) => value.get(`${p} ${s}`) ?? 0))
  // stacked: series k reaches the sum of sports k and after, drawn tallest first
  const stacks = sports.map((_, k) => periods.map((_p, i) => own.slice(k).reduce((sum, values) => sum + values[i]!, 0) || null))
  const bars = uPlot.paths.bars!({ size: [0.7, 60] })
  return chart(box, {
    height,
    legend,
    cursor: { points: { show: false }, drag: { x: false, y: false } },
    scales: { x: { time: false, range: [-0.5, periods.length - 0.5] }, y: { range: (_u, _min, max) => [0, Math.max(max, 1) * 1.05] } },
    series: [
      { label: periodName, value: (_u, i) => (i === null || i === undefined || periods[i] === undefined ? "–" : label(periods[i]!)) },
      ...sports.map((s, k) => {
        const color = sportColor(s)
        // the legend shows the sport's own value, not the top of its stack
        return { label: format.sportLabel(s), fill: color, stroke: color, paths: bars, points: { show: false }, value: (u: uPlot) => (u.cursor.idx === null || u.cursor.idx === undefined ? "–" : m.show(own[k]![u.cursor.idx]!)) }
      })
    ],
    x: { space: tickSpace, incrs: [...tickSteps], values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) && periods[t] !== undefined ? tick(periods[t]!) : "")) },
    y: { ...m.axis, values: m.axis?.values ?? ((_u, ticks) => ticks.map((t) => t.toLocaleString())) }
  }, [periods.map((_, i) => i), ...stacks])
}
