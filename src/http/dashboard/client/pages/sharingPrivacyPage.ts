import * as L from "leaflet"
import { ApiError, call } from "../api.ts"
import { confirmDialog, field, h, replace, toast } from "../dom.ts"
import type { Page } from "../main.ts"
import { css } from "../palette.ts"
import { routeMap } from "../routeMap.ts"

/**
 * Privacy for share links: the privacy zones drawn on a map (a click on it places a new zone's
 * centre, the radius shows at once) with their list and removal, and how much of each end of
 * every shared track is hidden. Both apply at once to every link, made before or after.
 */

const failed = (error: unknown) => toast(error instanceof ApiError ? error.message : String(error), "error")
const reload = () => dispatchEvent(new HashChangeEvent("hashchange"))

export const sharingPrivacyPage: Page = async (main) => {
  const [{ privacyZones }, settings, latest] = await Promise.all([
    call("sharing.zones"),
    call("sharing.settings"),
    call("activities.search", { query: { "pagination[size]": 1 } })
  ])
  const mapBox = h("div", { class: "map zones-map", id: "zones-map", role: "region", "aria-label": "Map of the privacy zones; click to place a new zone" })
  const name = h("input", { name: "name", required: true, maxlength: 100, placeholder: "Home" })
  const latitude = h("input", { name: "latitude", type: "number", step: "any", min: -90, max: 90, required: true })
  const longitude = h("input", { name: "longitude", type: "number", step: "any", min: -180, max: 180, required: true })
  const radius = h("input", { name: "radiusInMeter", type: "number", min: 200, max: 2000, step: 50, value: 500, required: true })
  const ends = h("input", { name: "hiddenEndsInMeter", type: "number", min: 0, max: 2000, step: 50, value: settings.hiddenEndsInMeter, required: true })
  const zoneError = h("p", { class: "error", role: "alert", hidden: true })
  const list = h("ul", { class: "zone-list", id: "zone-list" })

  replace(main,
    h("h1", null, "Privacy & sharing"),
    h("p", { class: "muted" }, "Share links never show a point inside a privacy zone, nor the start and the finish of a track. Your own pages and the API are unchanged."),
    h("section", { class: "card" },
      h("h2", null, "Privacy zones"),
      mapBox,
      h("p", { class: "muted" }, "Click the map to place a zone, or type its centre."),
      h("form", {
        class: "stack",
        id: "zone-form",
        onsubmit: async (e: Event) => {
          e.preventDefault()
          try {
            await call("sharing.createZone", {
              payload: { name: name.value, latitude: Number(latitude.value), longitude: Number(longitude.value), radiusInMeter: Number(radius.value) }
            })
            toast("Zone added: every link hides it.", "ok", { next: true })
            reload()
          } catch (error) {
            zoneError.hidden = false
            zoneError.textContent = error instanceof ApiError ? error.message : String(error)
          }
        }
      }, field("Name", name), field("Latitude", latitude), field("Longitude", longitude), field("Radius (m)", radius, "200 to 2,000 m"), zoneError,
        h("div", { class: "row end" }, h("button", { type: "submit", class: "primary" }, "Add zone"))),
      h("h3", null, "Zones"),
      list),
    h("section", { class: "card" },
      h("h2", null, "Start and finish"),
      h("form", {
        class: "stack",
        id: "ends-form",
        onsubmit: async (e: Event) => {
          e.preventDefault()
          try {
            await call("sharing.saveSettings", { payload: { hiddenEndsInMeter: Number(ends.value) } })
            toast("Saved.")
          } catch (error) {
            failed(error)
          }
        }
      }, field("Hidden at each end (m)", ends, "The first and the last metres of every shared track; 0 to 2,000 m"),
        h("div", { class: "row end" }, h("button", { type: "submit", class: "primary" }, "Save")))))

  const map = routeMap(mapBox, [])
  const style = () => ({ color: css("--danger"), weight: 2, fillOpacity: 0.2 })
  const circles = privacyZones.map((z) => L.circle([z.latitude, z.longitude], { radius: z.radiusInMeter, ...style() }).bindTooltip(z.name).addTo(map.map))
  const start = latest.activities[0]?.startLatLng
  if (circles.length > 0) {
    map.map.fitBounds(circles.reduce((all, c) => all.extend(c.getBounds()), circles[0]!.getBounds()), { padding: [16, 16] })
  } else if (start) {
    map.map.setView(start as [number, number], 12)
  }
  // the zone being placed
  let preview: L.Circle | undefined
  const place = () => {
    const lat = Number(latitude.value), lng = Number(longitude.value), r = Number(radius.value)
    if (latitude.value === "" || longitude.value === "" || !Number.isFinite(lat + lng + r)) return
    preview?.remove()
    preview = L.circle([lat, lng], { radius: r, color: css("--accent"), weight: 2, dashArray: "4 4", fillOpacity: 0.1 }).addTo(map.map)
  }
  map.map.on("click", (e: L.LeafletMouseEvent) => {
    latitude.value = e.latlng.lat.toFixed(5)
    longitude.value = e.latlng.lng.toFixed(5)
    place()
    name.focus()
  })
  for (const input of [latitude, longitude, radius]) input.addEventListener("input", place)

  replace(list, privacyZones.length === 0
    ? h("li", { class: "muted" }, "No zone yet.")
    : privacyZones.map((z) =>
      h("li", null,
        h("span", null, `${z.name}: ${z.radiusInMeter} m around ${z.latitude.toFixed(4)}, ${z.longitude.toFixed(4)}`),
        h("button", {
          type: "button",
          class: "danger",
          onclick: async () => {
            if (!(await confirmDialog(`Remove the zone “${z.name}”? Links will show what lies in it.`, "Remove"))) return
            try {
              await call("sharing.deleteZone", { path: { zoneId: z.id } })
              toast("Zone removed.", "ok", { next: true })
              reload()
            } catch (error) {
              failed(error)
            }
          }
        }, "Remove"))))
  return map.remove
}
