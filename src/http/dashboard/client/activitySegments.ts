import * as L from "leaflet"
import { ApiError, call } from "./api.ts"
import { css } from "./chart.ts"
import { field, h, replace, toast } from "./dom.ts"
import * as format from "./format.ts"
import type { LatLng, RouteMap } from "./routeMap.ts"
import { effortTime, grade, recordLabel } from "./segmentFormat.ts"
import type { Activity } from "./types.ts"

/**
 * An activity's segment efforts (rank, PR marks) and climbs (category, length, grade, VAM),
 * each shown on the map on demand, a climb made a segment in one click, and a segment made of
 * the stretch between two distances of the activity.
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

export const segmentsSection = async (a: Activity, track: Track, map: RouteMap | undefined): Promise<{ readonly section: HTMLElement; readonly remove: () => void }> => {
  const [{ efforts }, { climbs }] = await Promise.all([
    call("segments.activityEfforts", { path: { activityId: a.id } }),
    call("segments.climbs", { path: { activityId: a.id } })
  ])
  let highlight: L.Polyline | undefined
  let pressed: HTMLButtonElement | undefined
  const show = (button: HTMLButtonElement, from: number, to: number) => {
    highlight?.remove()
    highlight = undefined
    pressed?.setAttribute("aria-pressed", "false")
    if (pressed === button) {
      pressed = undefined
      return
    }
    pressed = button
    button.setAttribute("aria-pressed", "true")
    const points = stretch(track, from, to)
    if (map === undefined || points.length < 2) return
    highlight = L.polyline(points as Array<[number, number]>, { color: css("--link"), weight: 7, opacity: 0.9, interactive: false, className: "segment-highlight" }).addTo(map.map)
    map.map.fitBounds(highlight.getBounds(), { padding: [24, 24] })
  }
  const showButton = (label: string, from: number, to: number) => {
    const button: HTMLButtonElement = h("button", { type: "button", class: "small", "aria-pressed": "false", onclick: () => show(button, from, to) }, "Show", h("span", { class: "visually-hidden" }, ` ${label} on the map`))
    return button
  }

  const effortsPart = efforts.length === 0
    ? h("p", { class: "muted" }, "No segment passed.")
    : h("div", { class: "table-wrap", tabindex: 0, role: "region", "aria-label": "Segment efforts" }, h("table", { id: "activity-efforts" },
      h("thead", null, h("tr", null,
        h("th", { scope: "col" }, "Segment"),
        h("th", { scope: "col", class: "num" }, "Time"),
        h("th", { scope: "col", class: "num" }, "Rank"),
        h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "On the map")))),
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
      const label = `climb ${index + 1} (${c.category === "HC" ? "HC" : `category ${c.category}`})`
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
          }, "Make segment", h("span", { class: "visually-hidden" }, ` of ${label}`))))
    }))

  // a segment of a chosen stretch: two distances along the activity, shown on the map as typed
  const toUnit = format.toDistanceUnit(1000) / 1000
  const max = format.toDistanceUnit(a.distanceInMeter)
  const from = h("input", { name: "from", type: "number", min: 0, max: max.toFixed(2), step: "0.01", required: true, value: "0" })
  const to = h("input", { name: "to", type: "number", min: 0, max: max.toFixed(2), step: "0.01", required: true, value: Math.min(max, 1 * toUnit).toFixed(2) })
  const segName = h("input", { name: "name", required: true, maxlength: 255, placeholder: `${a.name}: stretch` })
  const makeError = h("p", { class: "error", role: "alert", hidden: true })
  let preview: L.Polyline | undefined
  const meters = (input: HTMLInputElement) => Number(input.value) / toUnit
  const drawPreview = () => {
    preview?.remove()
    preview = undefined
    const points = stretch(track, meters(from), meters(to))
    if (map === undefined || points.length < 2) return
    preview = L.polyline(points as Array<[number, number]>, { color: css("--link"), weight: 6, dashArray: "6 6", opacity: 0.9, interactive: false }).addTo(map.map)
  }
  from.addEventListener("input", drawPreview)
  to.addEventListener("input", drawPreview)
  const makeForm = h("details", { class: "card", id: "make-segment" },
    h("summary", { onclick: () => setTimeout(drawPreview) }, "Make a segment of a stretch"),
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
      highlight?.remove()
      preview?.remove()
    }
  }
}

export const drawSegments = (into: HTMLElement, a: Activity, track: Track, map: RouteMap | undefined): Promise<() => void> =>
  segmentsSection(a, track, map).then(({ section, remove }) => {
    replace(into, section)
    return remove
  })
