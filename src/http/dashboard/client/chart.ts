import uPlot from "uplot"

/**
 * uPlot charts that follow their container's width and the page's colours (light or dark
 * by the system setting, read from the CSS custom properties).
 */

export const css = (name: string) => getComputedStyle(document.body).getPropertyValue(name).trim() || "#888"

export const PALETTE = ["#e4572e", "#1b6ef3", "#2a9d8f", "#9b5de5", "#f4a261", "#d62828", "#43aa8b", "#577590"]

export interface ChartHandle {
  readonly plot: uPlot
  readonly remove: () => void
}

const axis = (values?: uPlot.Axis["values"], label?: string): uPlot.Axis => ({
  stroke: css("--muted"),
  grid: { stroke: css("--line"), width: 1 },
  ticks: { stroke: css("--line"), width: 1 },
  ...(values === undefined ? {} : { values }),
  ...(label === undefined ? {} : { label })
})

export const chart = (
  container: HTMLElement,
  options: Omit<uPlot.Options, "width" | "height" | "axes"> & {
    readonly height?: number
    readonly xValues?: uPlot.Axis["values"]
    readonly yValues?: uPlot.Axis["values"]
    readonly yLabel?: string
  },
  data: uPlot.AlignedData
): ChartHandle => {
  const { height = 180, xValues, yValues, yLabel, ...rest } = options
  const plot = new uPlot({
    ...rest,
    width: Math.max(container.clientWidth, 200),
    height,
    axes: [axis(xValues), axis(yValues, yLabel)]
  }, data, container)
  const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(container.clientWidth, 200), height }))
  resize.observe(container)
  return {
    plot,
    remove: () => {
      resize.disconnect()
      plot.destroy()
    }
  }
}
