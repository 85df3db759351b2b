import { call } from "../api.ts"
import { h, replace } from "../dom.ts"
import * as format from "../format.ts"
import type { Page } from "../main.ts"
import type { Status } from "../types.ts"

/** What /healthz says: every check and supervised loop, the import queue, and the version. */

interface Health {
  readonly status: "ok" | "failing"
  readonly checks: Record<string, { readonly ok: boolean; readonly error?: string }>
  readonly importQueue: { readonly queued: number }
  readonly fibers: Record<string, {
    readonly state: string
    readonly since: string
    readonly restarts: number
    readonly failing: boolean
    readonly lastError?: string
    readonly lastErrorAt?: string
  }>
}

const REFRESH_MS = 5000

const health = async (): Promise<Health> => {
  const response = await fetch("/healthz", { headers: { accept: "application/json" } })
  return await response.json() as Health
}

const megabytes = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MB`

/** Where the maps' tiles come from: the file's area, zooms, type and size, or the proxy's cache and hit rate. */
const mapSource = (map: Status["map"]): string =>
  map.source === "file"
    ? `Maps: from the file ${map.file} (${map.tileType === "mvt" ? "vector" : map.tileType.toUpperCase()} tiles, zooms ${map.minZoom}–${map.maxZoom}, ` +
      `area ${map.bounds.west.toFixed(2)}, ${map.bounds.south.toFixed(2)} to ${map.bounds.east.toFixed(2)}, ${map.bounds.north.toFixed(2)}, ${megabytes(map.sizeBytes)})`
    : `Maps: tiles fetched from ${new URL(map.tileUrl.replaceAll("{", "").replaceAll("}", "")).host} and kept here (${format.count(map.cachedTiles)} tiles, ` +
      `${megabytes(map.cacheBytes)} of ${megabytes(map.cacheLimitBytes)}, ${map.hitRate === null ? "no tile asked yet" : `${Math.round(map.hitRate * 100)}% from the cache`})` +
      (map.reachable ? "" : ` · the tile server cannot be reached: ${map.lastError ?? ""}`)

const badge = (ok: boolean, text: string) => h("span", { class: `badge ${ok ? "success" : "failed"}` }, text)

export const systemPage: Page = async (main) => {
  const status = await call("system.status")
  const body = h("div")
  const draw = (report: Health) =>
    replace(body,
      h("p", null, "Service: ", badge(report.status === "ok", report.status), ` · ${status.version} · import queue: ${format.count(report.importQueue.queued)} waiting · uploads ${status.canUpload ? "open" : "closed"}`),
      h("p", { id: "map-source" }, mapSource(status.map)),
      h("h2", null, "Checks"),
      h("div", { class: "table-wrap", tabindex: 0 }, h("table", { id: "checks" },
        h("thead", null, h("tr", null, h("th", { scope: "col" }, "Check"), h("th", { scope: "col" }, "State"), h("th", { scope: "col" }, "Error"))),
        h("tbody", null, Object.entries(report.checks).map(([name, c]) =>
          h("tr", null, h("td", null, format.words(name)), h("td", null, badge(c.ok, c.ok ? "ok" : "failing")), h("td", null, c.error ?? "")))))),
      h("h2", null, "Supervised loops"),
      h("div", { class: "table-wrap", tabindex: 0 }, h("table", { id: "fibers" },
        h("thead", null, h("tr", null, h("th", { scope: "col" }, "Loop"), h("th", { scope: "col" }, "State"), h("th", { scope: "col", class: "opt" }, "Since"),
          h("th", { scope: "col", class: "num opt" }, "Restarts"), h("th", { scope: "col" }, "Last error"))),
        h("tbody", null, Object.entries(report.fibers).map(([name, f]) =>
          h("tr", null, h("td", null, format.words(name)), h("td", null, badge(!f.failing, format.words(f.state))), h("td", { class: "nowrap opt" }, format.instant(f.since)),
            h("td", { class: "num opt" }, String(f.restarts)),
            h("td", null, f.lastError === undefined ? "" : `${f.lastError}${f.lastErrorAt ? ` (${format.instant(f.lastErrorAt)})` : ""}`)))))))
  draw(await health())
  replace(main, h("h1", null, "System"), body)
  const timer = setInterval(() => {
    if (document.visibilityState === "visible") void health().then(draw).catch(() => undefined)
  }, REFRESH_MS)
  return () => clearInterval(timer)
}
