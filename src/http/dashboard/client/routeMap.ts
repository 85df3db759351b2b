import * as L from "leaflet"
import { config } from "./config.ts"
import { addStylesheet } from "./dom.ts"

/**
 * A Leaflet map of one or many routes. Tiles come from MAP_TILE_URL; the routes are vectors
 * drawn over a plain background, so they still show when no tile can be loaded. Leaflet and
 * its styles load with the first page that draws a map: the module waits for its stylesheet,
 * which Leaflet needs in place to measure the map.
 */

await addStylesheet("map.css")

export type LatLng = readonly [number, number]

export interface RouteMap {
  readonly map: L.Map
  /** Moves the cursor dot to a point of the route (null hides it). */
  readonly showPoint: (point: LatLng | null) => void
  readonly remove: () => void
}

const attribution = config.tileUrl.includes("openstreetmap.org") ? "© OpenStreetMap contributors" : ""

export const routeMap = (container: HTMLElement, routes: ReadonlyArray<ReadonlyArray<LatLng>>, options: { readonly thin?: boolean } = {}): RouteMap => {
  const map = L.map(container, { scrollWheelZoom: false, keyboard: true })
  L.tileLayer(config.tileUrl, { maxZoom: 18, attribution, crossOrigin: true }).addTo(map)
  const style = options.thin === true
    ? { color: "#e4572e", weight: 2, opacity: 0.5, interactive: false }
    : { color: "#e4572e", weight: 4, opacity: 0.9, interactive: false }
  const lines = routes.filter((r) => r.length > 1).map((r) => L.polyline(r as Array<[number, number]>, style).addTo(map))
  const bounds = lines.reduce<L.LatLngBounds | undefined>((all, line) => (all === undefined ? line.getBounds() : all.extend(line.getBounds())), undefined)
  if (bounds !== undefined) map.fitBounds(bounds, { padding: [16, 16] })
  else map.setView([20, 0], 2)
  const dot = L.circleMarker([0, 0], { radius: 7, color: "#fff", weight: 2, fillColor: "#1b6ef3", fillOpacity: 1, interactive: false })
  const resize = new ResizeObserver(() => map.invalidateSize())
  resize.observe(container)
  return {
    map,
    showPoint: (point) => {
      if (point === null) dot.remove()
      else {
        dot.setLatLng(point as [number, number])
        if (!map.hasLayer(dot)) dot.addTo(map)
      }
    },
    remove: () => {
      resize.disconnect()
      map.remove()
    }
  }
}
