import { ApiError, call } from "../api.ts"
import { chart, css, dateAxis } from "../chart.ts"
import { confirmDialog, field, h, replace, toast } from "../dom.ts"
import * as format from "../format.ts"
import type { Page } from "../main.ts"
import { routeMap } from "../routeMap.ts"
import { effortTime, grade } from "../segmentFormat.ts"
import type { SegmentEffort } from "../../../../schema/SegmentModels.ts"

/**
 * One segment: its line on the map, its elevation profile (where the API knows its altitudes),
 * the athlete's best effort beside the last, the top 10, every effort as time against date,
 * renaming and deletion.
 */

const failed = (error: unknown) => toast(error instanceof ApiError ? error.message : String(error), "error")

/** Metres along a line of [lat, lon] points, from its start. */
const along = (points: ReadonlyArray<readonly [number, number]>): Array<number> => {
  const out = [0]
  for (let i = 1; i < points.length; i++) {
    const [a, b] = [points[i - 1]!, points[i]!]
    const rad = Math.PI / 180
    const x = (b[1] - a[1]) * rad * Math.cos(((a[0] + b[0]) / 2) * rad)
    const y = (b[0] - a[0]) * rad
    out.push(out[i - 1]! + 6_371_000 * Math.hypot(x, y))
  }
  return out
}

const effortCard = (title: string, e: SegmentEffort | null) =>
  h("div", { class: "card effort-card" },
    h("h3", null, title),
    e === null
      ? h("p", { class: "muted" }, "No effort yet.")
      : [
        h("p", { class: "big" }, format.duration(e.elapsedTimeInSeconds)),
        h("p", null, h("a", { href: `#/activity/${encodeURIComponent(e.activityId)}` }, e.activityName)),
        h("p", { class: "muted" }, `${format.localDateTime(e.startDateLocal, "short")} · ${format.speedOrPace(e.averageSpeedInKmPerHour, e.sportType)}${e.averageHeartRate === null ? "" : ` · ${Math.round(e.averageHeartRate)} bpm`} · rank ${e.rank}`)
      ])

/** Every effort on the segment, newest first, read a page of the largest size at a time (the pages after the first side by side). */
const everyEffort = async (segmentId: string) => {
  const page = (n: number) => call("segments.efforts", { path: { segmentId }, query: { sort: "date", "pagination[page]": n, "pagination[size]": 100 } })
  const first = await page(1)
  const rest = await Promise.all(Array.from({ length: first.pagination.totalPages - 1 }, (_, k) => page(k + 2)))
  return [first, ...rest].flatMap((p) => p.efforts)
}

export const segmentPage: Page = async (main, _params, id) => {
  const [segment, { efforts: top }, efforts] = await Promise.all([
    call("segments.get", { path: { segmentId: id } }),
    call("segments.efforts", { path: { segmentId: id }, query: { sort: "time", "pagination[size]": 10 } }),
    everyEffort(id)
  ])
  const cleanups: Array<() => void> = []
  const s = segment
  const mapBox = h("div", { class: "map", id: "segment-map", role: "region", "aria-label": "Map of the segment" })
  const profile = h("div", { class: "chart", id: "segment-profile" }, h("h3", null, `Elevation (${format.elevationUnit})`))
  const history = h("div", { class: "chart", id: "segment-history" }, h("h3", null, "Every effort: time against date"))
  const name = h("input", { name: "name", value: s.name, required: true, maxlength: 255 })
  const renameError = h("p", { class: "error", role: "alert", hidden: true })

  replace(main,
    h("p", { class: "crumbs" }, h("a", { href: "#/segments" }, "← Segments")),
    h("h1", { id: "segment-name" }, s.name),
    h("dl", { class: "stats" },
      h("div", { class: "stat" }, h("dt", null, "Distance"), h("dd", null, format.distance(s.distanceInMeter))),
      h("div", { class: "stat" }, h("dt", null, "Average grade"), h("dd", null, grade(s.averageGrade))),
      s.elevationGainInMeter === null ? null : h("div", { class: "stat" }, h("dt", null, "Elevation gain"), h("dd", null, format.elevation(s.elevationGainInMeter))),
      h("div", { class: "stat" }, h("dt", null, "Efforts"), h("dd", null, format.count(s.effortCount)))),
    s.matching.status === "matching"
      ? h("p", { class: "muted", role: "status" }, `Matching the history: ${s.matching.checkedActivities} of ${s.matching.totalActivities} activities checked.`)
      : null,
    mapBox,
    s.altitudes === null ? null : profile,
    h("div", { class: "effort-pair", id: "segment-best-last" }, effortCard("Best", s.bestEffort), effortCard("Last", s.lastEffort)),
    h("section", null,
      h("h2", null, "Top 10"),
      efforts.length === 0
        ? h("p", { class: "muted" }, "No effort yet.")
        : h("div", { class: "table-wrap", tabindex: 0, role: "region", "aria-label": "Top 10 efforts" }, h("table", { id: "segment-top" },
          h("thead", null, h("tr", null,
            h("th", { scope: "col", class: "num" }, "Rank"),
            h("th", { scope: "col" }, "Activity"),
            h("th", { scope: "col" }, "Date"),
            h("th", { scope: "col", class: "num" }, "Time"),
            h("th", { scope: "col", class: "num" }, "Speed"))),
          h("tbody", null, top.map((e) =>
            h("tr", null,
              h("td", { class: "num" }, e.rank),
              h("td", null, h("a", { href: `#/activity/${encodeURIComponent(e.activityId)}` }, e.activityName)),
              h("td", null, format.localDateTime(e.startDateLocal, "short")),
              h("td", { class: "num" }, effortTime(e)),
              h("td", { class: "num" }, format.speedOrPace(e.averageSpeedInKmPerHour, e.sportType)))))))),
    efforts.length === 0 ? null : history,
    h("details", { class: "card" },
      h("summary", null, "Rename or delete"),
      h("form", {
        class: "stack",
        id: "rename-segment",
        onsubmit: async (e: Event) => {
          e.preventDefault()
          try {
            await call("segments.update", { path: { segmentId: s.id }, payload: { name: name.value } })
            toast("Renamed.", "ok", { next: true })
            dispatchEvent(new HashChangeEvent("hashchange"))
          } catch (error) {
            renameError.hidden = false
            renameError.textContent = error instanceof ApiError ? error.message : String(error)
          }
        }
      }, field("Name", name), renameError,
        h("div", { class: "row end" },
          h("button", {
            type: "button",
            class: "danger",
            onclick: async () => {
              if (!(await confirmDialog(`Delete the segment “${s.name}” with its ${format.plural(s.effortCount, "effort")}?`, "Delete"))) return
              try {
                await call("segments.delete", { path: { segmentId: s.id } })
                toast("Segment deleted.", "ok", { next: true })
                location.hash = "#/segments"
              } catch (error) {
                failed(error)
              }
            }
          }, "Delete…"),
          h("button", { type: "submit", class: "primary" }, "Save")))))

  const map = routeMap(mapBox, [s.points])
  cleanups.push(map.remove)
  const distances = along(s.points)
  if (s.altitudes !== null) {
    const km = distances.map(format.toDistanceUnit)
    const plot = chart(profile, {
      series: [{ label: format.distanceUnit }, { label: format.elevationUnit, stroke: css("--accent"), fill: `color-mix(in srgb, ${css("--accent")} 20%, transparent)`, width: 2 }],
      x: { values: (_u, ticks) => ticks.map((t) => `${t.toFixed(1)} ${format.distanceUnit}`) },
      hooks: { setCursor: [(u) => map.showPoint(u.cursor.idx === null || u.cursor.idx === undefined ? null : s.points[u.cursor.idx] ?? null)] }
    }, [km, s.altitudes.map(format.toElevationUnit)])
    cleanups.push(plot.remove)
  }
  if (efforts.length > 0) {
    const byDate = [...efforts].sort((a, b) => a.startDate.localeCompare(b.startDate))
    const times = byDate.map((e) => e.elapsedTimeInSeconds)
    const plot = chart(history, {
      series: [{}, { label: "Time", stroke: css("--accent"), width: 0, points: { show: true, size: 8, fill: css("--accent") }, value: (_u, v) => (v === null ? "–" : format.duration(v)) }],
      x: dateAxis,
      y: { values: (_u, ticks) => ticks.map((t) => format.duration(t)), size: 60 },
      scales: { x: { time: false, range: (_u, min, max) => (min === max ? [min - 86_400 * 3, max + 86_400 * 3] : [min - (max - min) * 0.05, max + (max - min) * 0.05]) } }
    }, [byDate.map((e) => Date.parse(e.startDate) / 1000), times])
    cleanups.push(plot.remove)
  }
  return () => cleanups.forEach((c) => c())
}
