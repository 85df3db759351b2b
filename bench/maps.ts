/**
 * Map draw benchmark: how long an activity's map takes to be drawn in headless Chromium from a
 * local PMTiles file (MAP_TILES_FILE), beside the same map drawn from an online tile server
 * through the daemon's proxy (MAP_TILE_URL), measured in the same run. The "online server" is a
 * node:http server on loopback answering the same PNG bytes at once: a real one is further away,
 * so the file must be at least as fast as the fastest server there can be.
 *
 * Two built daemons (`node dist/main.js`), each over a fresh storage holding the same one-hour
 * ride (a loop around Ghent); the file and the tile server hold the same tiles around it at
 * zooms 0-14. Each draw opens the ride's page in a fresh browser context (no browser cache),
 * signed in with the key; "drawn" is the moment the route is on the map and every tile of the
 * map is loaded, from the start of navigation, and "tiles" the time from the first tile asked to
 * the last one received (the part of the draw the map's source makes). The first draw of each daemon is its cold one
 * (the proxy fetches every tile from the server; the file's tiles are read from the file), then
 * RUNS draws with the daemon warm, each daemon in turn.
 *
 *   npm run bench:maps          builds first; under a minute
 *
 * Environment: BENCH_RUNS=n (default 9). Prints target vs measured; always exits 0.
 */
import { Effect, Exit, Layer, Scope } from "effect"
import * as fs from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { ActivityRepo } from "../src/services/activities/ActivityRepo.ts"
import { encodeDraft } from "../src/services/activities/StreamsCodec.ts"
import { startChildDaemon } from "../test/support/ChildDaemon.ts"
import { makeRoot, type Root, servicesLayer } from "../test/support/ImportHarness.ts"
import { CHROMIUM, CHROMIUM_MISSING, chromiumAvailable, DESKTOP, launchChromium } from "../test/support/chromium.ts"
import { pngTile, type WrittenTile, writePmtiles } from "../test/support/pmtilesWriter.ts"
import { generatedRide } from "./generatedActivities.ts"
import { printTable, quantile } from "./measure.ts"

const RUNS = Number(process.env.BENCH_RUNS ?? 9)

interface Drawn {
  /** from the start of navigation until the route is drawn and every tile loaded */
  readonly ms: number
  /** from the first tile asked to the last one received */
  readonly tileMs: number
  readonly tiles: number
}
const RIDE_ID = "activity-bench-map-ride"
/** The ride's loop: its centre, and the tiles around it at each zoom (wider than the map's box on a desktop). */
const [LON, LAT] = [3.72, 51.05]
const MAX_ZOOM = 14

const tiles = (): Array<WrittenTile> => {
  // the test's tile has two looks (its checker's parity): drawn once each
  const looks = [pngTile(0, 0, 0), pngTile(0, 0, 1)]
  const out: Array<WrittenTile> = []
  for (let z = 0; z <= MAX_ZOOM; z++) {
    const n = 2 ** z
    const cx = Math.floor(((LON + 180) / 360) * n)
    const r = (LAT * Math.PI) / 180
    const cy = Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n)
    for (let x = Math.max(0, cx - 4); x <= Math.min(n - 1, cx + 4); x++) {
      for (let y = Math.max(0, cy - 3); y <= Math.min(n - 1, cy + 3); y++) out.push({ z, x, y, bytes: looks[(x + y) % 2]! })
    }
  }
  return out
}

/** The online tile server, on loopback: the same bytes at `/{z}/{x}/{y}.png`, 404 elsewhere; it counts what it is asked. */
const startTileServer = async (written: ReadonlyArray<WrittenTile>) => {
  const bytes = new Map(written.map((t) => [`/${t.z}/${t.x}/${t.y}.png`, Buffer.from(t.bytes)]))
  let asked = 0
  const server = createServer((request, response) => {
    asked += 1
    const found = bytes.get(request.url ?? "")
    if (found === undefined) return void response.writeHead(404).end()
    response.writeHead(200, { "content-type": "image/png", "content-length": found.length })
    response.end(found)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/{z}/{x}/{y}.png`, asked: () => asked, stop: () => server.close() }
}

const seed = (root: Root) =>
  Effect.runPromise(Effect.gen(function*() {
    yield* (yield* ActivityRepo).insert(RIDE_ID, encodeDraft(generatedRide()))
  }).pipe(Effect.provide(servicesLayer(root).pipe(Layer.orDie))))

const main = async () => {
  if (!chromiumAvailable) {
    console.log(`bench:maps skipped: ${CHROMIUM_MISSING}`)
    return
  }
  const loadAtStart = os.loadavg()
  const written = tiles()
  const fileRoot = makeRoot()
  const file = path.join(fileRoot.root, "ghent.pmtiles")
  fs.writeFileSync(file, writePmtiles({ tileType: "png", tiles: written }))
  const server = await startTileServer(written)
  const proxyRoot = makeRoot({ SERVICE_API_KEY: fileRoot.apiKey })
  const scope = Effect.runSync(Scope.make())
  try {
    await seed(fileRoot)
    await seed(proxyRoot)
    const start = (root: Root, env: Record<string, string>) =>
      Effect.runPromise(startChildDaemon({ env: { ...root.env, LOG_LEVEL: "warning", ...env }, apiKey: fileRoot.apiKey, built: true }).pipe(Scope.extend(scope)))
    const daemons = [
      { label: "the local file (MAP_TILES_FILE)", baseUrl: (await start(fileRoot, { MAP_TILES_FILE: file })).baseUrl },
      { label: "the online server, through the proxy (MAP_TILE_URL)", baseUrl: (await start(proxyRoot, { MAP_TILE_URL: server.url })).baseUrl }
    ]
    const browser = await launchChromium()
    try {
      /**
       * ms from the start of navigation until the route is drawn and every tile of the map is
       * loaded; ms from the first tile asked to the last one received (Resource Timing); the tiles asked.
       */
      const draw = async (base: string): Promise<Drawn> => {
        const context = await browser.newContext({ viewport: DESKTOP })
        const signIn = await context.request.post(`${base}/sign-in`, { form: { key: fileRoot.apiKey }, headers: { origin: base }, maxRedirects: 0 })
        if (signIn.status() !== 303) throw new Error(`sign-in answered ${signIn.status()}`)
        const page = await context.newPage()
        let asked = 0
        page.on("request", (request) => void (new URL(request.url()).pathname.startsWith("/tiles/") && (asked += 1)))
        try {
          await page.goto(`${base}/#/activity/${RIDE_ID}`)
          await page.waitForFunction(() => {
            const document = (globalThis as any).document
            const all = document.querySelectorAll("#activity-map img.leaflet-tile")
            return document.querySelector("#activity-map .leaflet-overlay-pane path") !== null && all.length > 0 &&
              document.querySelectorAll("#activity-map img.leaflet-tile:not(.leaflet-tile-loaded)").length === 0
          }, undefined, { timeout: 30_000, polling: 5 })
          const ms = await page.evaluate(() => performance.now())
          const tileMs = await page.evaluate(() => {
            const entries = performance.getEntriesByType("resource").filter((e) => new URL(e.name).pathname.startsWith("/tiles/")) as unknown as Array<{ readonly name: string; readonly startTime: number; readonly responseEnd: number }>
            return Math.max(...entries.map((e) => e.responseEnd)) - Math.min(...entries.map((e) => e.startTime))
          })
          return { ms, tileMs, tiles: asked }
        } finally {
          await context.close()
        }
      }
      const cold: Array<Drawn> = []
      for (const { baseUrl } of daemons) cold.push(await draw(baseUrl))
      const fetchedCold = server.asked()
      const warm: Array<Array<Drawn>> = daemons.map(() => [])
      const tilesAsked: Array<number> = daemons.map(() => 0)
      for (let i = 0; i < RUNS; i++) {
        for (const [d, { baseUrl }] of daemons.entries()) {
          const drawn = await draw(baseUrl)
          warm[d]!.push(drawn)
          tilesAsked[d] = drawn.tiles
        }
      }
      console.log(`\nmap draw of a one-hour ride's page, desktop ${DESKTOP.width}x${DESKTOP.height}, Chromium ${browser.version()} (${CHROMIUM}), ${RUNS} draws each after the cold one`)
      console.log(`load average (1, 5, 15 min): ${loadAtStart.map((v) => v.toFixed(2)).join(" ")} at the start, ${os.loadavg().map((v) => v.toFixed(2)).join(" ")} at the end`)
      console.log(`the tile server was asked ${fetchedCold} tiles by the proxy for the cold draw, ${server.asked() - fetchedCold} after it\n`)
      const medians = warm.map((xs) => quantile(xs.map((x) => x.ms), 0.5)!)
      printTable(
        ["map drawn from", "tiles", "cold draw", "cold tiles", "median draw", "max", "median tiles", "target", "met"],
        daemons.map(({ label }, d) => [
          label,
          String(tilesAsked[d]),
          `${cold[d]!.ms.toFixed(0)} ms`,
          `${cold[d]!.tileMs.toFixed(0)} ms`,
          `${medians[d]!.toFixed(0)} ms`,
          `${Math.max(...warm[d]!.map((x) => x.ms)).toFixed(0)} ms`,
          `${quantile(warm[d]!.map((x) => x.tileMs), 0.5)!.toFixed(0)} ms`,
          d === 0 ? "median <= the server's" : "",
          // the drawn map is looked for every 5 ms: within that of the server's median is as fast
          d === 0 ? (medians[0]! <= medians[1]! + 5 ? "yes" : "NO") : ""
        ])
      )
    } finally {
      await browser.close()
    }
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    server.stop()
    for (const root of [fileRoot, proxyRoot]) fs.rmSync(root.root, { recursive: true, force: true })
  }
}

main().catch((e) => console.error("benchmark failed:", e)).finally(() => process.exit(0))
