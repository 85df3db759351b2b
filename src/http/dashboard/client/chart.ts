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

export interface ChartHandle {
  readonly plot: uPlot
  readonly remove: () => void
}

export type AxisOptions = Pick<uPlot.Axis, "values" | "incrs" | "space" | "label" | "size">

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
