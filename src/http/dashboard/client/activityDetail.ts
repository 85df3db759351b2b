import type uPlot from "uplot"
import { call } from "./api.ts"
import { imperial } from "./config.ts"
import { h, nextId } from "./dom.ts"
import { type AxisOptions, chart, DURATION_STEPS, MINUTE_STEPS } from "./chart.ts"
import * as format from "./format.ts"
import { type Metric, metricColor } from "./palette.ts"
import type { LatLng } from "./routeMap.ts"
import { type Stretch, stretchBands, type Stretches } from "./stretches.ts"
import { swimLapsTable } from "./swimView.ts"
import type { Activity, Streams } from "./types.ts"

/**
 * An activity's streams as charts over distance or time, with a cursor that points on the
 * map, and its laps, splits and best efforts as tables.
 */

/** Samples asked for: enough for a chart as wide as a screen, thinned by the API keeping peaks. */
const CHART_POINTS = 1000

export const loadStreams = (id: string) => call("activityDetail.streams", { path: { activityId: id }, query: { points: CHART_POINTS } })

export const routeOf = (streams: Streams["streams"]): Array<LatLng> =>
  (streams.latlng ?? []).filter((p): p is readonly [number, number] => p !== null)

interface Series {
  readonly metric: Metric
  readonly label: string
  readonly unit: string
  readonly values: ReadonlyArray<number | null>
  /** a value as the legend shows it, unit included */
  readonly show: (n: number) => string
  /** a pace: seconds per unit, faster up, ticks at whole minutes */
  readonly pace?: boolean
}

const fixed = (digits: number) => (n: number) => n.toLocaleString(undefined, { minimumFractionDigits: digits, maximumFractionDigits: digits })

const seriesOf = (streams: Streams["streams"], activity: Activity): Array<Series> => {
  const list: Array<Series> = []
  const map = (values: ReadonlyArray<number | null> | undefined, f: (n: number) => number | null) =>
    values === undefined ? undefined : values.map((v) => (v === null ? null : f(v)))
  const plain = (metric: Metric, label: string, unit: string, values: ReadonlyArray<number | null> | undefined, digits = 0) => {
    if (values !== undefined) list.push({ metric, label, unit, values, show: (n) => `${fixed(digits)(n)} ${unit}` })
  }
  // a swimmer climbs nothing
  if (!format.isSwim(activity.sportType)) plain("altitude", "Altitude", format.elevationUnit, map(streams.altitude, format.toElevationUnit))
  if (streams.velocity) {
    const paceUnit = format.paceUnitOf(activity.sportType)
    if (paceUnit !== null) {
      // slower than a stroll is a stop, not a pace worth a scale (a swimmer's is slower: 4:45 /100 m)
      const stop = format.isSwim(activity.sportType) ? 0.35 : 0.5
      const pace = map(streams.velocity, (v) => (v > stop ? format.paceSeconds(v, paceUnit) : null))!
      const unit = format.PACE_LABELS[paceUnit]
      list.push({ metric: "speed", label: "Pace", unit, values: pace, show: (n) => `${format.duration(n)} ${unit}`, pace: true })
    } else {
      plain("speed", "Speed", format.speedUnit, map(streams.velocity, format.toSpeedUnit), 1)
    }
  }
  plain("heartrate", "Heart rate", "bpm", streams.heartrate)
  plain("power", "Power", "W", streams.watts)
  plain("cadence", "Cadence", format.cadenceUnit(activity.sportType), streams.cadence)
  return list.filter((s) => s.values.some((v) => v !== null && v !== 0))
}

/** The value at a share of the sorted values (nearest rank). */
const quantile = (sorted: ReadonlyArray<number>, q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))]!

/**
 * A pace scale from whole minute to whole minute around all but the slowest and fastest 2 %
 * (a stop or a GPS jump would flatten the rest), faster up.
 */
const paceScale = (values: ReadonlyArray<number | null>): uPlot.Scale => {
  const sorted = values.filter((v): v is number => v !== null).sort((a, b) => a - b)
  const low = sorted.length === 0 ? 0 : Math.floor(quantile(sorted, 0.02) / 60) * 60
  const high = sorted.length === 0 ? 60 : Math.ceil(quantile(sorted, 0.98) / 60) * 60
  return { dir: -1, range: () => [low, Math.max(high, low + 60)] }
}

/**
 * The charts, one per stream, sharing a cursor; `onPoint` gets the sample under it (or null),
 * each chart's legend the value there; the stretches shown or being chosen drawn over them (when
 * the streams have distances), named beneath the charts' heading. Returns what to remove when
 * the page goes.
 */
export const drawCharts = (
  container: HTMLElement,
  streams: Streams["streams"],
  activity: Activity,
  onPoint: (index: number | null) => void,
  stretches?: Stretches
): (() => void) => {
  const series = seriesOf(streams, activity)
  if (series.length === 0 || (streams.time === undefined && streams.distance === undefined)) return () => undefined
  const hasDistance = streams.distance !== undefined && activity.distanceInMeter > 0
  // a swim's distance in metres (yards), as swimmers count it
  const swimUnit = format.isSwim(activity.sportType) ? (imperial ? { meters: 0.9144, label: "yd" } : { meters: 1, label: "m" }) : null
  const handles: Array<{ remove: () => void }> = []
  const body = h("div")
  const syncKey = nextId("sync")
  const bands = stretches === undefined || streams.distance === undefined ? undefined : stretchBands(stretches, streams.distance)
  const range = (s: Stretch) => `${s.label}, ${format.distance(s.from)} to ${format.distance(s.to)}`
  const named = h("p", { class: "muted chart-stretch", id: "chart-stretch", "aria-live": "polite" })
  const name = () => {
    const shown = stretches?.shown() ?? null
    const chosen = stretches?.chosen() ?? null
    named.textContent = [shown === null ? "" : `Shown: ${range(shown)}.`, chosen === null ? "" : `Chosen: ${range(chosen)}.`].join(" ").trim()
    named.hidden = named.textContent === ""
  }
  name()
  const unname = stretches?.subscribe(name)

  const draw = (over: "distance" | "time") => {
    handles.splice(0).forEach((c) => c.remove())
    body.replaceChildren()
    const xs = over === "distance"
      ? streams.distance!.map((d) => (d === null ? null : swimUnit === null ? format.toDistanceUnit(d) : d / swimUnit.meters))
      : streams.time!.map((t) => t)
    // uPlot wants increasing x values: carry the last known one over gaps
    let last = 0
    const x = xs.map((v) => (v === null ? last : (last = Math.max(last, v))))
    const clock = format.durations([last])
    // a swim's distance in metres (yards), a pool being 25 or 50 of them
    const distanceLabel = swimUnit?.label ?? format.distanceUnit
    const xAxis: AxisOptions = over === "time"
      ? { incrs: DURATION_STEPS, space: 80, values: (_u, ticks) => ticks.map(clock) }
      : { values: (_u, ticks) => ticks.map((t) => `${t.toLocaleString(undefined, { maximumFractionDigits: 2 })} ${distanceLabel}`) }
    const xLegend = over === "time" ? clock : (n: number) => `${fixed(swimUnit === null ? 2 : 0)(n)} ${distanceLabel}`
    series.forEach((s) => {
      const legend = h("div", { class: "chart-legend" })
      const box = h("div", { class: "chart", role: "img", "aria-label": `${s.label} over ${over}` },
        h("div", { class: "chart-head" }, h("h3", null, `${s.label} (${s.unit})`), legend))
      body.appendChild(box)
      const color = metricColor(s.metric)
      const value = (_u: uPlot, v: number | null) => (v === null || v === undefined ? "–" : s.show(v))
      const made = chart(box, {
        height: 150,
        legend,
        cursor: { sync: { key: syncKey }, drag: { x: false, y: false } },
        scales: { x: { time: false }, y: s.pace === true ? paceScale(s.values) : {} },
        series: [
          { label: over === "time" ? "Time" : "Distance", value: (_u, v) => (v === null || v === undefined ? "–" : xLegend(v)) },
          {
            label: s.label, stroke: color, width: 1.5, fill: `${color}22`, spanGaps: false, points: { show: false }, value,
            // a pace is filled down to the slowest, as a speed is to zero
            ...(s.pace === true ? { fillTo: (u: uPlot) => u.scales["y"]!.max! } : {})
          }
        ],
        hooks: { setCursor: [(u) => onPoint(u.cursor.idx ?? null)], ...(bands === undefined ? {} : { draw: [bands.draw] }) },
        x: xAxis,
        ...(s.pace === true ? { y: { incrs: MINUTE_STEPS, values: (_u: uPlot, ticks: Array<number>) => ticks.map((t) => format.duration(t)) } } : {})
      }, [x, s.values as Array<number | null>])
      const detach = bands?.attach(made.plot)
      handles.push({ remove: () => {
        detach?.()
        made.remove()
      } })
    })
  }

  const group = nextId("over")
  const choice = (value: "distance" | "time", label: string, checked: boolean) => {
    const id = nextId("over")
    return h("span", null,
      h("input", { type: "radio", name: group, id, value, checked, onchange: () => draw(value) }),
      h("label", { for: id }, ` ${label}`))
  }
  container.append(
    h("h2", null, "Charts"),
    h("fieldset", { class: "toggle" }, h("legend", null, "Charts over"),
      hasDistance ? choice("distance", "distance", true) : null,
      streams.time !== undefined ? choice("time", "time", !hasDistance) : null),
    named,
    body)
  draw(hasDistance ? "distance" : "time")
  container.addEventListener("mouseleave", () => onPoint(null))
  return () => {
    unname?.()
    handles.forEach((c) => c.remove())
  }
}

/**
 * A table of figures in a box that scrolls sideways when the screen is narrower than its columns
 * (a phone): it then says so under the box, and its edges shade where columns are hidden.
 */
export const table = (id: string, caption: string, head: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>, numeric: ReadonlyArray<boolean>) => {
  const hint = h("p", { class: "scroll-hint muted", id: `${id}-hint`, hidden: true }, `Swipe the table sideways for all ${head.length} columns.`)
  const wrap = h("div", { class: "table-wrap scrolls", tabindex: 0, "aria-describedby": hint.id }, h("table", { id },
    h("caption", { class: "visually-hidden" }, caption),
    h("thead", null, h("tr", null, head.map((t, i) => h("th", { scope: "col", class: numeric[i] ? "num" : null }, t)))),
    h("tbody", null, rows.map((r) => h("tr", null, r.map((c, i) => h("td", { class: numeric[i] ? "num" : null }, c)))))))
  new ResizeObserver(() => { hint.hidden = wrap.scrollWidth <= wrap.clientWidth + 1 }).observe(wrap)
  return h("div", { class: "table-box" }, wrap, hint)
}

/** Laps, splits (in the athlete's unit) and best efforts, each only when there is one. */
export const detailTables = async (activity: Activity): Promise<HTMLElement> => {
  const path = { activityId: activity.id }
  const [{ laps }, { splits }, { bestEfforts }] = await Promise.all([
    call("activityDetail.laps", { path }),
    call("activityDetail.splits", { path }),
    call("activityDetail.bestEfforts", { path })
  ])
  const sport = activity.sportType
  const rate = format.isPaced(sport) ? "Pace" : "Speed"
  // a swim's splits are per 100 m (100 yd), and it climbs nothing
  const swim = format.isSwim(sport)
  const unit = swim ? (imperial ? "100yd" : "100m") : imperial ? "mile" : "km"
  const unitName = swim ? (imperial ? "100 yd" : "100 m") : imperial ? "mile" : "km"
  const mine = splits.filter((s) => s.unit === unit)
  const hr = (n: number | null) => (n === null ? "–" : `${n}`)
  // where in the activity each effort starts, all in one format
  const from = format.durations(bestEfforts.map((b) => b.startOffsetInSeconds))
  return h("div", { class: "grid2 tables" },
    laps.length > 1 && swim
      ? h("section", { class: "wide" }, h("h2", null, "Laps"), swimLapsTable(laps, sport))
      : laps.length > 1
      ? h("section", null, h("h2", null, "Laps"), table("laps", "Laps", ["#", "Distance", "Time", rate, "Elevation", "HR"],
        laps.map((l) => [String(l.lapIndex), format.distance(l.distanceInMeter), format.duration(l.movingTimeInSeconds),
          format.speedOrPace(l.averageSpeedInKmPerHour, sport), format.elevation(l.elevationInMeter), hr(l.averageHeartRate)]),
        [false, true, true, true, true, true]))
      : null,
    mine.length > 0 && swim
      // a split of 100 m (100 yd) takes its pace in time
      ? h("section", null, h("h2", null, `Splits per ${unitName}`), table("splits", "Splits", [unitName, "Pace", "HR"],
        mine.map((s) => [String(s.splitIndex), format.speedOrPace(s.averageSpeedInKmPerHour, sport), hr(s.averageHeartRate)]),
        [false, true, true]))
      : mine.length > 0
      ? h("section", null, h("h2", null, `Splits per ${unitName}`), table("splits", "Splits", [imperial ? "Mile" : "Km", "Time", rate, "Elevation", "HR"],
        mine.map((s) => [String(s.splitIndex), format.duration(s.movingTimeInSeconds), format.speedOrPace(s.averageSpeedInKmPerHour, sport),
          `${s.elevationDifferenceInMeter >= 0 ? "+" : "−"}${format.elevation(Math.abs(s.elevationDifferenceInMeter))}`, hr(s.averageHeartRate)]),
        [false, true, true, true, true]))
      : null,
    bestEfforts.length > 0
      ? h("section", null, h("h2", null, "Best efforts"), table("best-efforts", "Best efforts", ["Distance", "Time", rate, "From"],
        bestEfforts.map((b) => [b.name, format.duration(b.elapsedTimeInSeconds),
          format.speedOrPace(b.distanceInMeter / b.elapsedTimeInSeconds * 3.6, sport), from(b.startOffsetInSeconds)]),
        [false, true, true, true]))
      : null)
}
