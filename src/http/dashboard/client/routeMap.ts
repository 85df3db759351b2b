import * as L from "leaflet"
import { config } from "./config.ts"
import { addStylesheet } from "./dom.ts"

/**
 * The one map of every page: one or many routes over the daemon's tiles (`/tiles/{z}/{x}/{y}`,
 * read from a local PMTiles file or fetched and kept by the daemon; the page never asks another
 * host). Raster tiles go into a tile layer; vector tiles are drawn in the page with
 * protomaps-leaflet in a light or a dark flavour following the page's scheme. Past the source's
 * zooms the nearest zoom it has is shown, scaled. The routes are vectors over a plain
 * background, so they still show when no tile can be had; the map then says once why. Leaflet
 * and its styles load with the first page that draws a map: the module waits for its
 * stylesheet, which Leaflet needs in place to measure the map.
 */

await addStylesheet("map.css")

export type LatLng = readonly [number, number]

export interface RouteMap {
  readonly map: L.Map
  /** Moves the cursor dot to a point of the route (null hides it). */
  readonly showPoint: (point: LatLng | null) => void
  readonly remove: () => void
}

/** The highest zoom a map offers: past the source's own, its tiles are scaled. */
const MAX_ZOOM = 18

const source = config.map
const bounds = source.bounds === null ? undefined : L.latLngBounds(source.bounds as [[number, number], [number, number]])
const darkScheme = window.matchMedia("(prefers-color-scheme: dark)")

const rasterLayer = (): L.Layer =>
  L.tileLayer(source.url, {
    minZoom: 0,
    maxZoom: MAX_ZOOM,
    minNativeZoom: source.minZoom,
    maxNativeZoom: Math.min(source.maxZoom, MAX_ZOOM),
    ...(bounds === undefined ? {} : { bounds }),
    attribution: source.attribution
  })

/** Vector tiles drawn in the page, in the flavour of the page's scheme (the renderer loads with the first vector map). */
const vectorLayer = async (): Promise<L.Layer> => {
  const { leafletLayer } = await import("protomaps-leaflet")
  return leafletLayer({
    url: source.url,
    flavor: darkScheme.matches ? "dark" : "light",
    lang: document.documentElement.lang || "en",
    maxDataZoom: Math.max(source.maxZoom, 1),
    maxZoom: MAX_ZOOM,
    ...(bounds === undefined ? {} : { bounds }),
    attribution: source.attribution
  }) as unknown as L.Layer
}

/** Why tiles did not load, in the daemon's words (its answer to the failed tile), said once over the map. */
const explainOnce = (container: HTMLElement) => {
  let said = false
  return (url: string | undefined) => {
    if (said) return
    said = true
    const note = document.createElement("p")
    note.className = "map-note"
    note.setAttribute("role", "status")
    note.textContent = "The map's background cannot be loaded; the route is drawn on a plain background."
    container.append(note)
    if (url !== undefined) {
      void fetch(url).then(async (response) => {
        const body = await response.json() as { readonly message?: string }
        if (typeof body.message === "string") note.textContent = `${body.message} The route is drawn on a plain background.`
      }).catch(() => undefined)
    }
  }
}

export const routeMap = (container: HTMLElement, routes: ReadonlyArray<ReadonlyArray<LatLng>>, options: { readonly thin?: boolean } = {}): RouteMap => {
  const map = L.map(container, { scrollWheelZoom: false, keyboard: true, maxZoom: MAX_ZOOM })
  const explain = explainOnce(container)
  let base: L.Layer | undefined
  let removed = false
  const showBase = async () => {
    const layer = source.tiles === "vector" ? await vectorLayer() : rasterLayer()
    if (removed) return
    layer.on("tileerror", (event: L.TileErrorEvent) => explain((event.tile as HTMLImageElement).src || undefined))
    base?.remove()
    base = layer.addTo(map)
  }
  void showBase()
  // a vector map follows the page's scheme as it changes (raster tiles have one look)
  const onScheme = () => {
    if (source.tiles === "vector") void showBase()
  }
  darkScheme.addEventListener("change", onScheme)

  const style = options.thin === true
    ? { color: "#e4572e", weight: 2, opacity: 0.5, interactive: false }
    : { color: "#e4572e", weight: 4, opacity: 0.9, interactive: false }
  const lines = routes.filter((r) => r.length > 1).map((r) => L.polyline(r as Array<[number, number]>, style).addTo(map))
  const routeBounds = lines.reduce<L.LatLngBounds | undefined>((all, line) => (all === undefined ? line.getBounds() : all.extend(line.getBounds())), undefined)
  if (routeBounds !== undefined) map.fitBounds(routeBounds, { padding: [16, 16] })
  else if (bounds !== undefined) map.fitBounds(bounds)
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
      removed = true
      darkScheme.removeEventListener("change", onScheme)
      resize.disconnect()
      map.remove()
    }
  }
}
