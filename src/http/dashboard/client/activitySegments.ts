import * as L from "leaflet"
import { ApiError, call } from "./api.ts"
import { css } from "./chart.ts"
import { field, h, replace, toast } from "./dom.ts"
import * as format from "./format.ts"
import type { LatLng, RouteMap } from "./routeMap.ts"
import { effortTime, grade, recordLabel } from "./segmentFormat.ts"
import type { Stretches } from "./stretches.ts"
import type { Activity } from "./types.ts"

/**
 * An activity's segment efforts (rank, PR marks) and climbs (category, length, grade, VAM),
 * each shown on demand on the map and over the charts, a climb made a segment in one click, and
 * a segment made of a stretch chosen on a chart (a drag, or two clicks), on the map (two clicks)
 * or by typing its two distances.
 */

interface Track {
  readonly latlng: ReadonlyArray<LatLng | null> | undefined
  readonly distance: ReadonlyArray<number | null> | undefined
}

const message = (error: unknown) => (error instanceof ApiError ? error.message : String(error))

/** The recorded positions between two distances of the activity. */
const stretch = (track: Track, from: number, to: number): Array<LatLng> => {
  const out: Array<LatLng> = []
  const { latlng, distance } = track
  if (latlng === undefined || distance === undefined) return out
  for (let i = 0; i < latlng.length; i++) {
    const d = distance[i], p = latlng[i]
    if (d !== null && d !== undefined && p !== null && p !== undefined && d >= from && d <= to) out.push(p)
  }
  return out
}

/** The distance along the track nearest a point, read on the lines between its samples. */
const distanceNear = (track: Track, at: L.LatLng): number | null => {
  const { latlng, distance } = track
  if (latlng === undefined || distance === undefined) return null
  // metres east and north of the point, near enough for a click's few pixels
  const kx = 111_320 * Math.cos((at.lat * Math.PI) / 180)
  const ky = 110_574
  let best: number | null = null
  let bestSq = Infinity
  let previous: { x: number; y: number; d: number } | null = null
  for (let i = 0; i < latlng.length; i++) {
    const p = latlng[i], d = distance[i]
    if (p === null || p === undefined || d === null || d === undefined) continue
    const here = { x: (p[1] - at.lng) * kx, y: (p[0] - at.lat) * ky, d }
    if (previous === null) {
      const sq = here.x ** 2 + here.y ** 2
      if (sq < bestSq) [best, bestSq] = [d, sq]
    } else {
      const dx = here.x - previous.x, dy = here.y - previous.y
      const length = dx * dx + dy * dy
      const t = length === 0 ? 0 : Math.min(1, Math.max(0, -(previous.x * dx + previous.y * dy) / length))
      const sq = (previous.x + t * dx) ** 2 + (previous.y + t * dy) ** 2
      if (sq < bestSq) [best, bestSq] = [previous.d + t * (d - previous.d), sq]
    }
    previous = here
  }
  return best
}

export const segmentsSection = async (a: Activity, track: Track, map: RouteMap | undefined, stretches: Stretches): Promise<{ readonly section: HTMLElement; readonly remove: () => void }> => {
  const [{ efforts }, { climbs }] = await Promise.all([
    call("segments.activityEfforts", { path: { activityId: a.id } }),
    call("segments.climbs", { path: { activityId: a.id } })
  ])
  let highlight: L.Polyline | undefined
  let pressed: HTMLButtonElement | undefined
  const show = (button: HTMLButtonElement, label: string, from: number, to: number) => {
    highlight?.remove()
    highlight = undefined
    pressed?.setAttribute("aria-pressed", "false")
    if (pressed === button) {
      pressed = undefined
      stretches.show(null)
      return
    }
    pressed = button
    button.setAttribute("aria-pressed", "true")
    stretches.show({ from, to, label })
    const points = stretch(track, from, to)
    if (map === undefined || points.length < 2) return
    highlight = L.polyline(points as Array<[number, number]>, { color: css("--link"), weight: 7, opacity: 0.9, interactive: false, className: "segment-highlight" }).addTo(map.map)
    map.map.fitBounds(highlight.getBounds(), { padding: [24, 24] })
  }
  const showButton = (label: string, from: number, to: number) => {
    const button: HTMLButtonElement = h("button", { type: "button", class: "small", "aria-pressed": "false", onclick: () => show(button, label, from, to) }, "Show", h("span", { class: "visually-hidden" }, ` ${label} on the map and the charts`))
    return button
  }

  const effortsPart = efforts.length === 0
    ? h("p", { class: "muted" }, "No segment passed.")
    : h("div", { class: "table-wrap", tabindex: 0, role: "region", "aria-label": "Segment efforts" }, h("table", { id: "activity-efforts" },
      h("thead", null, h("tr", null,
        h("th", { scope: "col" }, "Segment"),
        h("th", { scope: "col", class: "num" }, "Time"),
        h("th", { scope: "col", class: "num" }, "Rank"),
        h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "On the map and the charts")))),
      h("tbody", null, efforts.map((e) => {
        const mark = recordLabel(e.personalRecord)
        return h("tr", null,
          h("td", null, h("a", { href: `#/segment/${encodeURIComponent(e.segmentId)}` }, e.segmentName), " ",
            mark === null ? null : h("span", { class: `badge ${e.personalRecord === "personalRecord" ? "success" : "queued"}`, title: "Its place on the segment when it was made" }, mark)),
          h("td", { class: "num" }, effortTime(e)),
          h("td", { class: "num" }, `${e.rank} / ${e.effortsAtDate}`),
          h("td", null, showButton(e.segmentName, e.startDistanceInMeter, e.endDistanceInMeter)))
      }))))

  // a list rather than a table: its two buttons beside four figures would not fit a phone
  const climbsPart = climbs.length === 0
    ? h("p", { class: "muted" }, "No climb.")
    : h("ul", { id: "activity-climbs", class: "climb-list" }, climbs.map((c, index) => {
      const label = `Climb ${index + 1} (${c.category === "HC" ? "HC" : `category ${c.category}`})`
      return h("li", { class: "card" },
        h("div", null,
          h("strong", null, c.category === "HC" ? "HC" : `Cat. ${c.category}`), " ",
          h("span", null, `${format.distance(c.lengthInMeter)} at ${grade(c.averageGrade)}`),
          h("small", { class: "muted" }, [
            ` · +${format.elevation(c.elevationGainInMeter)}`,
            c.vam === null ? "" : ` · VAM ${format.count(c.vam)} m/h`,
            ` · from ${format.distance(c.startDistanceInMeter)}`
          ].join(""))),
        h("div", { class: "row tight" },
          showButton(label, c.startDistanceInMeter, c.endDistanceInMeter),
          h("button", {
            type: "button",
            class: "small",
            onclick: async () => {
              try {
                const made = await call("segments.climbSegment", { path: { activityId: a.id, climbIndex: index }, payload: {} })
                toast(`Segment “${made.name}” made.`, "ok", { next: true })
                location.hash = `#/segment/${encodeURIComponent(made.id)}`
              } catch (error) {
                toast(message(error), "error")
              }
            }
          }, "Make segment", h("span", { class: "visually-hidden" }, ` of ${label.toLowerCase()}`))))
    }))

  // a segment of a chosen stretch: dragged across a chart, clicked at both ends on a chart or the
  // map, or typed as two distances; shown on the map and the charts as it is chosen
  const toUnit = format.toDistanceUnit(1000) / 1000
  const max = format.toDistanceUnit(a.distanceInMeter)
  const from = h("input", { name: "from", type: "number", min: 0, max: max.toFixed(2), step: "0.01", required: true, value: "0" })
  const to = h("input", { name: "to", type: "number", min: 0, max: max.toFixed(2), step: "0.01", required: true, value: Math.min(max, 1 * toUnit).toFixed(2) })
  const segName = h("input", { name: "name", required: true, maxlength: 255, placeholder: `${a.name}: stretch` })
  const makeError = h("p", { class: "error", role: "alert", hidden: true })
  const status = h("p", { class: "muted", role: "status", id: "make-segment-status" })
  let preview: L.Polyline | undefined
  const ends: Array<L.CircleMarker> = []
  const meters = (input: HTMLInputElement) => Number(input.value) / toUnit
  const drawPreview = (start = meters(from), end = meters(to)) => {
    preview?.remove()
    preview = undefined
    ends.splice(0).forEach((m) => m.remove())
    stretches.choose({ from: start, to: end, label: "the new segment" })
    if (map === undefined) return
    const points = stretch(track, start, end)
    if (points.length >= 2) {
      preview = L.polyline(points as Array<[number, number]>, { color: css("--link"), weight: 6, dashArray: "6 6", opacity: 0.9, interactive: false, className: "segment-chosen" }).addTo(map.map)
    }
    for (const p of [points[0], points[points.length - 1]]) {
      if (p !== undefined) ends.push(L.circleMarker(p as [number, number], { radius: 6, color: css("--link"), weight: 3, fillColor: "#ffffff", fillOpacity: 1, interactive: false, className: "segment-chosen-end" }).addTo(map.map))
    }
  }
  const typed = () => {
    start = null
    drawPreview()
  }
  from.addEventListener("input", typed)
  to.addEventListener("input", typed)
  const inUnit = (m: number) => (m * toUnit).toFixed(2)
  // a first click waiting for its stretch's other end
  let start: number | null = null
  const pick = (at: number, end?: number) => {
    if (end === undefined && start === null) {
      start = at
      from.value = inUnit(at)
      to.value = inUnit(at)
      drawPreview(at, at)
      status.textContent = `Start at ${format.distance(at)}: now choose its end.`
      return
    }
    const [lo, hi] = end === undefined ? [Math.min(start!, at), Math.max(start!, at)] : [at, end]
    start = null
    from.value = inUnit(lo)
    to.value = inUnit(hi)
    drawPreview(lo, hi)
    status.textContent = `The stretch from ${format.distance(lo)} to ${format.distance(hi)} (${format.distance(hi - lo)}) is chosen.`
  }
  const onMapClick = (e: L.LeafletMouseEvent) => {
    const at = distanceNear(track, e.latlng)
    if (at !== null) pick(at)
  }
  const choosing = (on: boolean) => {
    start = null
    status.textContent = ""
    stretches.onPick(on ? pick : null)
    map?.map.getContainer().classList.toggle("picking", on)
    if (on) {
      map?.map.on("click", onMapClick)
      drawPreview()
    } else {
      map?.map.off("click", onMapClick)
      preview?.remove()
      preview = undefined
      ends.splice(0).forEach((m) => m.remove())
      stretches.choose(null)
    }
  }
  const makeForm: HTMLDetailsElement = h("details", { class: "card", id: "make-segment", ontoggle: () => choosing(makeForm.open) },
    h("summary", null, "Make a segment of a stretch"),
    h("form", {
      class: "stack",
      onsubmit: async (e: Event) => {
        e.preventDefault()
        try {
          const made = await call("segments.create", {
            payload: { name: segName.value, activityId: a.id, fromDistanceInMeter: meters(from), toDistanceInMeter: meters(to) }
          })
          toast(`Segment “${made.name}” made.`, "ok", { next: true })
          location.hash = `#/segment/${encodeURIComponent(made.id)}`
        } catch (error) {
          makeError.hidden = false
          makeError.textContent = message(error)
        }
      }
    },
      h("p", { class: "muted" }, map === undefined
        ? "Drag across a chart, or click the stretch's start and then its end; or type its distances."
        : "Drag across a chart, or click the stretch's start and then its end on a chart or on the map; or type its distances."),
      status,
      h("div", { class: "row tight" }, field(`From (${format.distanceUnit})`, from), field(`To (${format.distanceUnit})`, to)),
      field("Name", segName), makeError,
      h("div", { class: "row end" }, h("button", { type: "submit", class: "primary" }, "Make segment"))))

  const section = h("section", { id: "activity-segments" },
    h("h2", null, "Segments"), effortsPart,
    h("h2", null, "Climbs"), climbsPart,
    makeForm)
  return {
    section,
    remove: () => {
      choosing(false)
      highlight?.remove()
      stretches.show(null)
    }
  }
}

export const drawSegments = (into: HTMLElement, a: Activity, track: Track, map: RouteMap | undefined, stretches: Stretches): Promise<() => void> =>
  segmentsSection(a, track, map, stretches).then(({ section, remove }) => {
    replace(into, section)
    return remove
  })
