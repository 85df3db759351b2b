import * as L from "leaflet"
import { ApiError, call, urlOf } from "./api.ts"
import { css } from "./palette.ts"
import { confirmDialog, h, replace, toast } from "./dom.ts"
import * as format from "./format.ts"
import type { RouteMap } from "./routeMap.ts"
import type { Activity } from "./types.ts"

/**
 * Sharing an activity from its page: what a link shows (each choice on or off), the link made
 * (shown once: its token is stored hashed) with a copy button, the picture a link preview
 * shows, the links made before with their revocation; and on the route map, the part links
 * show drawn over the route, so that the athlete sees what the privacy zones and the hidden
 * ends keep out.
 */

const CHOICES = [
  ["map", "Map", true],
  ["charts", "Charts", true],
  ["heartRate", "Heart rate", false],
  ["power", "Power", false],
  ["photos", "Photos", false],
  ["description", "Description", false]
] as const

type ShowName = (typeof CHOICES)[number][0]

const message = (error: unknown) => (error instanceof ApiError ? error.message : String(error))

/**
 * The pane of the part links show: beneath the route's own (a wider green line around it), and
 * apart from it, so that the route stays the one line of the map's overlays.
 */
const sharedPane = (map: RouteMap): string => {
  if (map.map.getPane("sharedPart") === undefined) map.map.createPane("sharedPart").style.zIndex = "390"
  return "sharedPart"
}

/** Draws the part links show over the route map; returns what removes it. */
export const drawShared = async (a: Activity, map: RouteMap | undefined, note: HTMLElement): Promise<() => void> => {
  const track = await call("sharing.shareTrack", { path: { activityId: a.id } })
  if (!track.hasPositions) {
    note.textContent = "Links show this activity's totals: it has no positions."
    return () => {}
  }
  const lines = map === undefined
    ? []
    : track.segments.filter((s) => s.length > 1).map((s) =>
      L.polyline(s as Array<[number, number]>, { color: css("--ok"), weight: 6, opacity: 0.85, interactive: false, pane: sharedPane(map) }).addTo(map.map))
  note.textContent = track.segments.length === 0
    ? "Links show no part of this route: all of it lies in a privacy zone or in the hidden ends."
    : `On the map, links show the part drawn in green (${format.distance(track.distanceInMeter)}); the privacy zones and the hidden start and finish are left out.`
  return () => lines.forEach((line) => line.remove())
}

export const shareSection = (a: Activity): HTMLElement => {
  const boxes = new Map<ShowName, HTMLInputElement>(CHOICES.map(([name, , on]) => [name, h("input", { type: "checkbox", name, checked: on })]))
  const made = h("div", { id: "share-made", "aria-live": "polite" })
  const list = h("ul", { class: "share-list", id: "share-list" })
  const card = h("img", {
    src: urlOf("sharing.shareImage", { path: { activityId: a.id } }),
    alt: `The picture a link to ${a.name} shows`,
    width: 600,
    height: 315,
    loading: "lazy",
    class: "share-card"
  })

  const drawList = async () => {
    const { shares } = await call("sharing.shares", { path: { activityId: a.id } })
    replace(list, shares.length === 0
      ? h("li", { class: "muted" }, "No link yet.")
      : shares.map((s) =>
        h("li", null,
          h("span", null, `${format.localDateTime(s.createdOn.slice(0, 19))}: ${CHOICES.filter(([n]) => s.shows[n]).map(([, label]) => label.toLowerCase()).join(", ") || "figures only"}`),
          h("button", {
            type: "button",
            class: "danger",
            onclick: async () => {
              if (!(await confirmDialog("Revoke this link? Anyone who has it will find nothing there.", "Revoke"))) return
              try {
                await call("sharing.revokeShare", { path: { activityId: a.id, shareId: s.id } })
                toast("Link revoked.")
                made.replaceChildren()
                await drawList()
              } catch (error) {
                toast(message(error), "error")
              }
            }
          }, "Revoke"))))
  }

  const create = async (e: Event) => {
    e.preventDefault()
    try {
      const shows = Object.fromEntries([...boxes].map(([name, box]) => [name, box.checked])) as Record<ShowName, boolean>
      const share = await call("sharing.createShare", { path: { activityId: a.id }, payload: { shows } })
      const url = share.url ?? ""
      const input = h("input", { id: "share-url", readonly: true, value: url, "aria-label": "The link" })
      replace(made,
        h("p", null, "Anyone with this link sees the activity as below. It is shown only now: copy it."),
        h("div", { class: "row share-url" },
          input,
          h("button", {
            type: "button",
            class: "primary",
            onclick: async () => {
              try {
                await navigator.clipboard.writeText(url)
                toast("Link copied.")
              } catch {
                input.select()
                toast("Select the link and copy it.", "error")
              }
            }
          }, "Copy link"),
          h("a", { class: "button", href: url, target: "_blank", rel: "noopener noreferrer" }, "Open")))
      await drawList()
    } catch (error) {
      toast(message(error), "error")
    }
  }

  const section = h("details", { class: "card", id: "activity-share" },
    h("summary", null, "Share"),
    h("form", { class: "stack", onsubmit: create },
      h("fieldset", { class: "share-choices" },
        h("legend", null, "The link shows the name, date, sport and figures, and:"),
        CHOICES.map(([name, label]) => h("label", { class: "check" }, boxes.get(name)!, ` ${label}`))),
      h("div", { class: "row end" }, h("button", { type: "submit", class: "primary" }, "Create link"))),
    made,
    h("h3", null, "Links"),
    list,
    h("h3", null, "The picture a link preview shows"),
    card)
  // drawn when opened: the list and the picture cost a request each
  section.addEventListener("toggle", () => {
    if (section.open) drawList().catch((error) => replace(list, h("li", { class: "error" }, message(error))))
  }, { once: true })
  return section
}
