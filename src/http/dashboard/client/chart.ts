import uPlot from "uplot"
import { css } from "./palette.ts"

/**
 * uPlot charts that follow their container's width and the page's colours (light or dark by
 * the system setting, read from the CSS custom properties), with ticks at round values and the
 * values under the cursor in the chart's legend.
 */

export { css }

/** Steps of a duration axis, in seconds: 5, 10, 15, 30 s; 1, 2, 5, 10, 15, 30 min; 1, 2, 3, 6, 12 h; days. */
export const DURATION_STEPS = [
  1, 2, 5, 10, 15, 30,
  60, 120, 300, 600, 900, 1800,
  3600, 7200, 10_800, 21_600, 43_200,
  86_400, 172_800, 432_000, 864_000, 1_728_000, 4_320_000, 8_640_000
]

/** Steps of a pace axis: whole minutes. */
export const MINUTE_STEPS = DURATION_STEPS.filter((s) => s >= 60)

/** Durations athletes quote first (5 s, 1, 5 and 20 min, 1 h), then the other round ones: a logarithmic axis's ticks in that order of preference. */
const DURATION_TICKS = [5, 60, 300, 1200, 3600, 1, 15, 30, 600, 1800, 7200, 10_800, 18_000, 21_600, 2, 10, 120, 14_400, 43_200, 86_400]

/**
 * A logarithmic axis of durations in seconds (a power curve's): ticks at round durations, the
 * preferred first, each kept where it leaves `space` px to those already kept.
 */
export const logDurationAxis = (label: (seconds: number) => string, space = 30): AxisOptions => ({
  space,
  // uPlot's own filter of a log axis keeps only 1, 2 and 5 × 10ⁿ: these ticks are chosen already
  filter: (_u, splits) => splits,
  splits: (u, _axis, min, max) => {
    const pxPerDecade = u.bbox.width / uPlot.pxRatio / Math.max(Math.log10(max / min), 1e-9)
    const kept: Array<number> = []
    for (const t of DURATION_TICKS) {
      if (t >= min && t <= max && kept.every((k) => Math.abs(Math.log10(t / k)) * pxPerDecade >= space)) kept.push(t)
    }
    return kept.sort((a, b) => a - b)
  },
  values: (_u, ticks) => ticks.map(label)
})

const DAY = 86_400
const MONTH = 30 * DAY
const YEAR = 365 * DAY
const dayMonth = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short" })
const dayMonthYear = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", year: "numeric" })
const monthOnly = new Intl.DateTimeFormat(undefined, { month: "short" })
const monthYear = new Intl.DateTimeFormat(undefined, { month: "short", year: "numeric" })

/**
 * An axis of dates (seconds since the epoch, local days): ticks every day, on Mondays, on the
 * first of every 1, 2, 3 or 6 months, or on New Year's Day of every 1, 2, 5 or 10 years; the
 * first tick and the first of a new year name the year.
 */
export const dateAxis: AxisOptions = {
  space: 64,
  incrs: [DAY, 7 * DAY, MONTH, 2 * MONTH, 3 * MONTH, 6 * MONTH, YEAR, 2 * YEAR, 5 * YEAR, 10 * YEAR],
  splits: (_u, _axis, min, max, incr) => {
    const start = new Date(min * 1000)
    let nth: (i: number) => Date
    if (incr >= YEAR) {
      const every = Math.round(incr / YEAR)
      const first = Math.ceil(start.getFullYear() / every) * every
      nth = (i) => new Date(first + i * every, 0, 1)
    } else if (incr >= MONTH) {
      const every = Math.round(incr / MONTH)
      const first = Math.ceil((start.getFullYear() * 12 + start.getMonth()) / every) * every
      nth = (i) => new Date(Math.floor((first + i * every) / 12), (first + i * every) % 12, 1)
    } else {
      const every = Math.round(incr / DAY)
      // a week's ticks on Mondays
      const shift = every === 7 ? (8 - start.getDay()) % 7 : 0
      nth = (i) => new Date(start.getFullYear(), start.getMonth(), start.getDate() + shift + i * every)
    }
    const ticks: Array<number> = []
    for (let i = 0, t = nth(0).getTime() / 1000; t <= max; t = nth(++i).getTime() / 1000) {
      if (t >= min) ticks.push(t)
    }
    return ticks
  },
  values: (_u, ticks, _axis, _space, incr) => ticks.map((t, i) => {
    const d = new Date(t * 1000)
    if (incr >= YEAR) return String(d.getFullYear())
    const newYear = i === 0 || new Date(ticks[i - 1]! * 1000).getFullYear() !== d.getFullYear()
    if (incr >= MONTH) return (newYear ? monthYear : monthOnly).format(d)
    return (newYear ? dayMonthYear : dayMonth).format(d)
  })
}

export interface ChartHandle {
  readonly plot: uPlot
  readonly remove: () => void
}

export type AxisOptions = Pick<uPlot.Axis, "values" | "incrs" | "splits" | "filter" | "space" | "label" | "size">

const axis = (options: AxisOptions): uPlot.Axis => ({
  stroke: css("--muted"),
  grid: { stroke: css("--line"), width: 1 },
  ticks: { stroke: css("--line"), width: 1 },
  ...options
})

export const chart = (
  container: HTMLElement,
  options: Omit<uPlot.Options, "width" | "height" | "axes" | "legend"> & {
    readonly height?: number
    readonly x?: AxisOptions
    readonly y?: AxisOptions
    /** where the legend goes, with the values under the cursor; none when absent */
    readonly legend?: HTMLElement
  },
  data: uPlot.AlignedData
): ChartHandle => {
  const { height = 180, x, y, legend, ...rest } = options
  // the box's width inside its padding: a canvas as wide as the box would stick out of it
  const width = () => {
    const style = getComputedStyle(container)
    return Math.max(Math.floor(container.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)), 160)
  }
  const plot = new uPlot({
    ...rest,
    width: width(),
    height,
    // a tick at least every 50 px across, 24 px up
    axes: [axis({ space: 50, ...x }), axis({ space: 24, ...y })],
    legend: legend === undefined ? { show: false } : { show: true, live: true, mount: (_u, el) => legend.append(el) },
    hooks: {
      ...rest.hooks,
      // the legend's values only while the cursor is on a value
      setLegend: [...(rest.hooks?.setLegend ?? []), (u) => legend?.classList.toggle("idle", u.legend.idx === null || u.legend.idx === undefined)]
    }
  }, data, container)
  legend?.classList.add("idle")
  const resize = new ResizeObserver(() => plot.setSize({ width: width(), height }))
  resize.observe(container)
  return {
    plot,
    remove: () => {
      resize.disconnect()
      plot.destroy()
    }
  }
}
