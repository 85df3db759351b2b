import type uPlot from "uplot"
import { api } from "./api.ts"
import { imperial } from "./config.ts"
import { h, nextId } from "./dom.ts"
import { chart, PALETTE } from "./chart.ts"
import * as format from "./format.ts"
import type { LatLng } from "./routeMap.ts"
import { swimLapsTable } from "./swimView.ts"
import type { Activity, BestEffort, Lap, Split, Streams } from "./types.ts"

/**
 * An activity's streams as charts over distance or time, with a cursor that points on the
 * map, and its laps, splits and best efforts as tables.
 */

/** Samples asked for: enough for a chart as wide as a screen, thinned by the API keeping peaks. */
const CHART_POINTS = 1000

export const loadStreams = (id: string) => api<Streams>(`activities/${encodeURIComponent(id)}/streams?points=${CHART_POINTS}`)

export const routeOf = (streams: Streams["streams"]): Array<LatLng> =>
  (streams.latlng ?? []).filter((p): p is readonly [number, number] => p !== null)

interface Series {
  readonly label: string
  readonly unit: string
  readonly values: ReadonlyArray<number | null>
  readonly show?: (n: number) => string
  readonly reversed?: boolean
}

const seriesOf = (streams: Streams["streams"], activity: Activity): Array<Series> => {
  const list: Array<Series> = []
  const map = (values: ReadonlyArray<number | null> | undefined, f: (n: number) => number | null) =>
    values === undefined ? undefined : values.map((v) => (v === null ? null : f(v)))
  // a swimmer climbs nothing
  const altitude = format.isSwim(activity.sportType) ? undefined : map(streams.altitude, format.toElevationUnit)
  if (altitude) list.push({ label: "Altitude", unit: format.elevationUnit, values: altitude })
  if (streams.velocity) {
    if (format.isPaced(activity.sportType)) {
      const per = format.paceUnit(activity.sportType)
      // slower than a stroll is a stop, not a pace worth a scale (a swimmer's is slower: 4:45 /100 m)
      const stop = format.isSwim(activity.sportType) ? 0.35 : 0.5
      const pace = map(streams.velocity, (v) => (v > stop ? per.meters / v : null))!
      list.push({ label: "Pace", unit: per.label, values: pace, show: format.duration, reversed: true })
    } else {
      list.push({ label: "Speed", unit: format.speedUnit, values: map(streams.velocity, format.toSpeedUnit)! })
    }
  }
  if (streams.heartrate) list.push({ label: "Heart rate", unit: "bpm", values: streams.heartrate })
  if (streams.watts) list.push({ label: "Power", unit: "W", values: streams.watts })
  if (streams.cadence) list.push({ label: "Cadence", unit: format.cadenceUnit(activity.sportType), values: streams.cadence })
  return list.filter((s) => s.values.some((v) => v !== null && v !== 0))
}

/**
 * The charts, one per stream, sharing a cursor; `onPoint` gets the sample under it (or null).
 * Returns what to remove when the page goes.
 */
export const drawCharts = (
  container: HTMLElement,
  streams: Streams["streams"],
  activity: Activity,
  onPoint: (index: number | null) => void
): (() => void) => {
  const series = seriesOf(streams, activity)
  if (series.length === 0 || (streams.time === undefined && streams.distance === undefined)) return () => undefined
  const hasDistance = streams.distance !== undefined && activity.distanceInMeter > 0
  // a swim's distance in metres (yards), as swimmers count it
  const swimUnit = format.isSwim(activity.sportType) ? (imperial ? { meters: 0.9144, label: "yd" } : { meters: 1, label: "m" }) : null
  const handles: Array<{ remove: () => void }> = []
  const body = h("div")
  const syncKey = nextId("sync")

  const draw = (over: "distance" | "time") => {
    handles.splice(0).forEach((c) => c.remove())
    body.replaceChildren()
    const xs = over === "distance"
      ? streams.distance!.map((d) => (d === null ? null : swimUnit === null ? format.toDistanceUnit(d) : d / swimUnit.meters))
      : streams.time!.map((t) => t)
    // uPlot wants increasing x values: carry the last known one over gaps
    let last = 0
    const x = xs.map((v) => (v === null ? last : (last = Math.max(last, v))))
    series.forEach((s, i) => {
      const box = h("div", { class: "chart", role: "img", "aria-label": `${s.label} over ${over}` }, h("h3", null, `${s.label} (${s.unit})`))
      body.appendChild(box)
      const color = PALETTE[i % PALETTE.length]!
      handles.push(chart(box, {
        height: 150,
        legend: { show: false },
        cursor: { sync: { key: syncKey }, drag: { x: false, y: false } },
        scales: { x: { time: false }, y: s.reversed === true ? { dir: -1 } : {} },
        series: [{}, { label: s.label, stroke: color, width: 1.5, fill: `${color}22`, spanGaps: false, points: { show: false } }],
        hooks: { setCursor: [(u) => onPoint(u.cursor.idx ?? null)] },
        xValues: (_u, ticks) => ticks.map((t) => (over === "time" ? format.duration(t) : `${t} ${swimUnit?.label ?? format.distanceUnit}`)),
        ...(s.show === undefined ? {} : { yValues: (_u: uPlot, ticks: Array<number>) => ticks.map((t) => s.show!(t)) })
      }, [x, s.values as Array<number | null>]))
    })
  }

  const name = nextId("over")
  const choice = (value: "distance" | "time", label: string, checked: boolean) => {
    const id = nextId("over")
    return h("span", null,
      h("input", { type: "radio", name, id, value, checked, onchange: () => draw(value) }),
      h("label", { for: id }, ` ${label}`))
  }
  container.append(
    h("h2", null, "Charts"),
    h("fieldset", { class: "toggle" }, h("legend", null, "Charts over"),
      hasDistance ? choice("distance", "distance", true) : null,
      streams.time !== undefined ? choice("time", "time", !hasDistance) : null),
    body)
  draw(hasDistance ? "distance" : "time")
  container.addEventListener("mouseleave", () => onPoint(null))
  return () => handles.forEach((c) => c.remove())
}

export const table = (id: string, caption: string, head: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>, numeric: ReadonlyArray<boolean>) =>
  h("div", { class: "table-wrap", tabindex: 0 }, h("table", { id },
    h("caption", { class: "visually-hidden" }, caption),
    h("thead", null, h("tr", null, head.map((t, i) => h("th", { scope: "col", class: numeric[i] ? "num" : null }, t)))),
    h("tbody", null, rows.map((r) => h("tr", null, r.map((c, i) => h("td", { class: numeric[i] ? "num" : null }, c)))))))

/** Laps, splits (in the athlete's unit) and best efforts, each only when there is one. */
export const detailTables = async (activity: Activity): Promise<HTMLElement> => {
  const id = encodeURIComponent(activity.id)
  const [{ laps }, { splits }, { bestEfforts }] = await Promise.all([
    api<{ laps: ReadonlyArray<Lap> }>(`activities/${id}/laps`),
    api<{ splits: ReadonlyArray<Split> }>(`activities/${id}/splits`),
    api<{ bestEfforts: ReadonlyArray<BestEffort> }>(`activities/${id}/best-efforts`)
  ])
  const sport = activity.sportType
  const rate = format.isPaced(sport) ? "Pace" : "Speed"
  // a swim's splits are per 100 m (100 yd), and it climbs nothing
  const swim = format.isSwim(sport)
  const unit = swim ? (imperial ? "100yd" : "100m") : imperial ? "mile" : "km"
  const unitName = swim ? (imperial ? "100 yd" : "100 m") : imperial ? "mile" : "km"
  const mine = splits.filter((s) => s.unit === unit)
  const hr = (n: number | null) => (n === null ? "–" : `${n}`)
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
          format.speedOrPace(b.distanceInMeter / b.elapsedTimeInSeconds * 3.6, sport), format.duration(b.startOffsetInSeconds)]),
        [false, true, true, true]))
      : null)
}
