import * as HttpClient from "@effect/platform/HttpClient"
import polyline from "@mapbox/polyline"
import { afterAll, beforeAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { builtDashboard } from "../../support/programs.ts"
import { CHROMIUM_MISSING, chromiumAvailable, SCREENSHOTS } from "../../support/chromium.ts"
import { mvtTile, pngTile, tilesAround, writePmtiles } from "../../support/pmtilesWriter.ts"
import { daemonOrigin, seedActivity, TestDaemon } from "../../support/TestDaemon.ts"
import { openSignedIn } from "./signedInPage.ts"

/**
 * Every map of the dashboard drawn from the daemon's own tiles, in Chromium: a route over tiles
 * of a raster file and over vector tiles drawn in the page (light and dark), on the activity page
 * and the heatmap, at phone and desktop sizes (screenshots in test-artifacts/maps), axe-core clean
 * in each; and with no file and no reachable tile server, the route on a plain background and the
 * reason said once.
 * Every request of every page is counted: none leaves the daemon.
 */

const ARTIFACTS = path.resolve("test-artifacts/maps")
const skipReason = chromiumAvailable ? undefined : CHROMIUM_MISSING
if (skipReason !== undefined) console.warn(`[maps browser test] skipped: ${skipReason}`)

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-maps-browser-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
beforeAll(() => builtDashboard())

// a loop in Ghent (the heatmap draws it; the activity page draws the seeded activity's few metres
// there at zoom 18); the files hold zooms up to 12 around it: past them the map scales zoom 12
const ROUTE: Array<[number, number]> = [[51.05, 3.72], [51.058, 3.723], [51.063, 3.737], [51.055, 3.752], [51.046, 3.742], [51.05, 3.72]]
const rasterFile = path.join(dir, "raster.pmtiles")
fs.writeFileSync(rasterFile, writePmtiles({ tileType: "png", tiles: tilesAround(3.735, 51.055, 0, 12, pngTile), bounds: [3.4, 50.8, 4.1, 51.3] }))
const vectorFile = path.join(dir, "vector.pmtiles")
fs.writeFileSync(vectorFile, writePmtiles({ tileType: "mvt", tiles: tilesAround(3.735, 51.055, 0, 12, () => mvtTile()) }))

const PAGES = ["activities", "import", "stats", "training", "calendar", "milestones", "year", "gear", "system"]

/**
 * Opens the activity's page and the heatmap, signed in, and with `everyPage` every other page
 * too; answers the requests that went elsewhere than the daemon. The pages other than these two
 * draw no map: what they ask does not depend on the tiles, and one daemon's round of them (the
 * one told of a tile server elsewhere) shows that none asks anything elsewhere.
 */
const visitEverything = (name: string, ready: string, everyPage = false) =>
  Effect.gen(function*() {
    const daemon = yield* TestDaemon
    const base = yield* daemonOrigin
    const id = yield* seedActivity({ encodedPolyline: polyline.encode(ROUTE), startLatLng: ROUTE[0]! })
    return yield* Effect.promise(async () => {
      const ui = await openSignedIn(base, daemon.apiKey, ARTIFACTS)
      const elsewhere: Array<string> = []
      const tiles: Array<string> = []
      ui.context.on("request", (request) => {
        const url = request.url()
        if (!url.startsWith(`${base}/`) && !url.startsWith("data:") && !url.startsWith("blob:")) elsewhere.push(url)
        if (url.startsWith(`${base}/tiles/`)) tiles.push(url)
      })
      try {
        await ui.go(`#/activity/${id}`, "#activity-map .leaflet-overlay-pane path")
        await ui.page.locator(ready).first().waitFor({ timeout: 15_000 })
        const shots = await ui.shoot(`activity-${name}`)
        await ui.axe(`activity (${name} map)`)
        await ui.go("#/stats", "#heatmap .leaflet-overlay-pane path")
        await ui.page.locator(ready.replace("#activity-map", "#heatmap")).first().waitFor({ timeout: 15_000 })
        await ui.shoot(`heatmap-${name}`)
        await ui.axe(`stats (${name} heatmap)`)
        if (everyPage) for (const page of PAGES) await ui.go(`#/${page}`, "main h1")
        const note = await ui.page.evaluate(() => (globalThis as any).document.querySelectorAll(".map-note").length)
        return { elsewhere, tiles, shots, problems: [...ui.problems], ui, note }
      } finally {
        await ui.close()
      }
    })
  })

describe.skipIf(skipReason !== undefined)("maps drawn from the daemon's tiles", () => {
  layer(TestDaemon.layer({ env: { MAP_TILES_FILE: rasterFile } }), { excludeTestServices: true, timeout: 180_000 })("a raster file", (it) => {
    it.effect("the route over the file's PNG tiles (past zoom 12 scaled), light and dark, phone and desktop; no request leaves the daemon", () =>
      Effect.gen(function*() {
        const seen = yield* visitEverything("raster", "#activity-map img.leaflet-tile-loaded")
        expect(seen.elsewhere).toEqual([])
        expect(seen.tiles.length).toBeGreaterThan(0)
        // past the file's zoom 12 the map asks zoom 12 and scales it
        expect(seen.tiles.every((url) => Number(new URL(url).pathname.split("/")[2]) <= 12)).toBe(true)
        expect(seen.problems).toEqual([])
        expect(seen.shots.length).toBe(SCREENSHOTS ? 6 : 0)
      }), 180_000)
  })

  layer(TestDaemon.layer({ env: { MAP_TILES_FILE: vectorFile } }), { excludeTestServices: true, timeout: 180_000 })("a vector file", (it) => {
    it.effect("the route over vector tiles drawn in the page, in the flavour of the page's scheme; no request leaves the daemon", () =>
      Effect.gen(function*() {
        const seen = yield* visitEverything("vector", "#activity-map canvas.leaflet-tile-loaded")
        expect(seen.elsewhere).toEqual([])
        expect(seen.tiles.length).toBeGreaterThan(0)
        expect(seen.problems).toEqual([])
      }), 180_000)
  })

  layer(TestDaemon.layer({ env: { MAP_TILE_URL: "http://127.0.0.1:9/{z}/{x}/{y}.png" } }), { excludeTestServices: true, timeout: 180_000 })("no map at all", (it) => {
    it.effect("without a file or a reachable tile server the route is drawn on a plain background and the map says why, once; no page asks anything elsewhere", () =>
      Effect.gen(function*() {
        const seen = yield* visitEverything("none", "#activity-map .map-note", true)
        expect(seen.elsewhere).toEqual([])
        expect(seen.note).toBe(0) // the last page drawn (System) has no map
        const status = yield* (yield* HttpClient.HttpClient).get("/status")
        expect(status.status).toBe(200)
      }), 180_000)
  })
})
