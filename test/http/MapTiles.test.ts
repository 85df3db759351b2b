import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { FetchSource, PMTiles } from "pmtiles"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { mapFileProblems } from "../../src/services/platform/StartupChecks.ts"
import { mvtTile, pngTile, tilesAround, writePmtiles } from "../support/pmtilesWriter.ts"
import { daemonOrigin, send } from "../support/TestDaemon.ts"
import { TestDaemon } from "../support/TestDaemon.ts"
import { expectError } from "./helpers.ts"

/** Tiles from a local PMTiles file written here: the bytes as written, the caching headers, the status, the start-up check. */

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-maps-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

// Paris, zooms 3 to 6
const rasterTiles = tilesAround(2.35, 48.85, 3, 6, pngTile)
const rasterFile = path.join(dir, "paris.pmtiles")
fs.writeFileSync(rasterFile, writePmtiles({ tileType: "png", tiles: rasterTiles, bounds: [1.5, 48.3, 3.2, 49.4] }))
const vectorTiles = tilesAround(2.35, 48.85, 0, 4, () => mvtTile())
const vectorFile = path.join(dir, "paris-vector.pmtiles")
fs.writeFileSync(vectorFile, writePmtiles({ tileType: "mvt", tiles: vectorTiles }))

describe("map tiles from a PMTiles file", () => {
  layer(TestDaemon.layer({ env: { MAP_TILES_FILE: rasterFile } }), { excludeTestServices: true })("raster", (it) => {
    it.effect("every tile of the file is answered byte for byte, as PNG, with an ETag and a cache lifetime, without a key", () =>
      Effect.gen(function*() {
        for (const tile of rasterTiles) {
          const answer = yield* send("GET", `/tiles/${tile.z}/${tile.x}/${tile.y}`, { key: null })
          expect(answer.status).toBe(200)
          expect(answer.headers["content-type"]).toBe("image/png")
          expect(Buffer.compare(answer.bytes, Buffer.from(tile.bytes)), `${tile.z}/${tile.x}/${tile.y}`).toBe(0)
        }
        const first = rasterTiles[0]!
        const answer = yield* send("GET", `/tiles/${first.z}/${first.x}/${first.y}.png`, { key: null })
        expect(Buffer.compare(answer.bytes, Buffer.from(first.bytes))).toBe(0)
        expect(answer.headers["cache-control"]).toBe("public, max-age=3600")
        expect(answer.headers["etag"]).toMatch(/^"[0-9a-z-]+"$/)
        const again = yield* send("GET", `/tiles/${first.z}/${first.x}/${first.y}`, { key: null, headers: { "if-none-match": answer.headers["etag"]! } })
        expect(again.status).toBe(304)
        expect(again.bytes.length).toBe(0)
        expect(again.headers["etag"]).toBe(answer.headers["etag"])
        // a weak tag, or one of a list, is the same tile; another tag is answered with the bytes
        for (const held of [`W/${answer.headers["etag"]}`, `"other", ${answer.headers["etag"]}`]) {
          expect((yield* send("GET", `/tiles/${first.z}/${first.x}/${first.y}`, { key: null, headers: { "if-none-match": held } })).status, held).toBe(304)
        }
        const changed = yield* send("GET", `/tiles/${first.z}/${first.x}/${first.y}`, { key: null, headers: { "if-none-match": '"other"' } })
        expect(changed.status).toBe(200)
        expect(Buffer.compare(changed.bytes, Buffer.from(first.bytes))).toBe(0)
      }))

    it.effect("outside the file's area or zooms a tile is an empty image, never an error; an address the world has not is 404", () =>
      Effect.gen(function*() {
        for (const url of ["/tiles/2/0/0", "/tiles/9/10/10", "/tiles/6/0/0"]) {
          const answer = yield* send("GET", url, { key: null })
          expect(answer.status, url).toBe(200)
          expect(answer.headers["content-type"]).toBe("image/png")
          expect(answer.bytes.subarray(1, 4).toString("latin1")).toBe("PNG")
        }
        expectError(yield* send("GET", "/tiles/3/8/0", { key: null }), 404, "not_found")
        expectError(yield* send("GET", "/tiles/a/0/0", { key: null }), 404, "not_found")
        expectError(yield* send("GET", "/tiles/40/0/0", { key: null }), 404, "not_found")
      }))

    it.effect("the file itself is served by byte ranges, byte for byte: 206 with its Content-Range, the whole file without a range, 416 past its end; a PMTiles reader over HTTP reads every tile", () =>
      Effect.gen(function*() {
        const written = fs.readFileSync(rasterFile)
        const size = written.length
        const whole = yield* send("GET", "/tiles/file.pmtiles", { key: null })
        expect(whole.status).toBe(200)
        expect(whole.headers["accept-ranges"]).toBe("bytes")
        expect(Buffer.compare(whole.bytes, written)).toBe(0)
        const asked: ReadonlyArray<[string, number, number]> = [
          ["bytes=0-126", 0, 126],
          ["bytes=127-", 127, size - 1],
          ["bytes=-50", size - 50, size - 1],
          [`bytes=${size - 10}-${size + 1000}`, size - 10, size - 1],
          [`bytes=${size - 1}-${size - 1}`, size - 1, size - 1]
        ]
        for (const [range, start, end] of asked) {
          const part = yield* send("GET", "/tiles/file.pmtiles", { key: null, headers: { range } })
          expect(part.status, range).toBe(206)
          expect(part.headers["content-range"], range).toBe(`bytes ${start}-${end}/${size}`)
          expect(part.headers["content-length"], range).toBe(String(end - start + 1))
          expect(Buffer.compare(part.bytes, written.subarray(start, end + 1)), range).toBe(0)
          expect(part.headers["etag"]).toBe(whole.headers["etag"])
        }
        for (const range of [`bytes=${size}-`, "bytes=-0"]) {
          const refused = yield* send("GET", "/tiles/file.pmtiles", { key: null, headers: { range } })
          expectError(refused, 416, "range_not_satisfiable")
          expect(refused.headers["content-range"]).toBe(`bytes */${size}`)
        }
        // a range written wrong, several ranges, or one of another version of the file: the whole file
        for (const headers of [{ range: "bytes=9-3" }, { range: "bytes=0-1,5-6" }, { range: "bytes=0-9", "if-range": '"another"' }]) {
          const answer = yield* send("GET", "/tiles/file.pmtiles", { key: null, headers })
          expect(answer.status, JSON.stringify(headers)).toBe(200)
          expect(answer.bytes.length).toBe(size)
        }
        expect((yield* send("GET", "/tiles/file.pmtiles", { key: null, headers: { "if-none-match": whole.headers["etag"]! } })).status).toBe(304)

        const base = yield* daemonOrigin
        const reader = new PMTiles(new FetchSource(`${base}/tiles/file.pmtiles`))
        for (const tile of rasterTiles) {
          const read = yield* Effect.promise(() => reader.getZxy(tile.z, tile.x, tile.y))
          expect(Buffer.compare(Buffer.from(read!.data), Buffer.from(tile.bytes)), `${tile.z}/${tile.x}/${tile.y}`).toBe(0)
        }
      }))

    it.effect("/status says the map is drawn from the file: its name, tile type, zooms, area and size", () =>
      Effect.gen(function*() {
        const status = yield* send("GET", "/api/v1/status")
        expect(status.json.map).toEqual({
          source: "file",
          file: "paris.pmtiles",
          tileType: "png",
          minZoom: 3,
          maxZoom: 6,
          bounds: { west: 1.5, south: 48.3, east: 3.2, north: 49.4 },
          sizeBytes: fs.statSync(rasterFile).size
        })
      }))
  })

  layer(TestDaemon.layer({ env: { MAP_TILES_FILE: vectorFile } }), { excludeTestServices: true })("vector", (it) => {
    it.effect("vector tiles are answered as MVT byte for byte; a tile the file has not is an empty vector tile", () =>
      Effect.gen(function*() {
        for (const tile of vectorTiles) {
          const answer = yield* send("GET", `/tiles/${tile.z}/${tile.x}/${tile.y}`, { key: null })
          expect(answer.status).toBe(200)
          expect(answer.headers["content-type"]).toBe("application/vnd.mapbox-vector-tile")
          expect(Buffer.compare(answer.bytes, Buffer.from(tile.bytes))).toBe(0)
        }
        const outside = yield* send("GET", "/tiles/4/0/0", { key: null })
        expect(outside.status).toBe(200)
        expect(outside.bytes.length).toBe(0)
        expect((yield* send("GET", "/api/v1/status")).json.map.tileType).toBe("mvt")
      }))
  })
})

describe("the map file is checked at start", () => {
  it("a missing file, a file that is not PMTiles, or another version stops the start with a sentence naming the file", () => {
    const missing = path.join(dir, "nowhere.pmtiles")
    expect(mapFileProblems({ MAP_TILES_FILE: missing })).toEqual([
      `MAP_TILES_FILE ${missing} cannot be read: there is no such file (ENOENT); set MAP_TILES_FILE to a readable .pmtiles file, or unset it.`
    ])
    const text = path.join(dir, "notes.pmtiles")
    fs.writeFileSync(text, "not a map at all ".repeat(20))
    expect(mapFileProblems({ MAP_TILES_FILE: text })[0]).toContain(`MAP_TILES_FILE ${text} is not a PMTiles file`)
    const v2 = path.join(dir, "old.pmtiles")
    const bytes = fs.readFileSync(rasterFile)
    bytes[7] = 2
    fs.writeFileSync(v2, bytes)
    expect(mapFileProblems({ MAP_TILES_FILE: v2 })[0]).toContain(`MAP_TILES_FILE ${v2} is PMTiles version 2`)
    expect(mapFileProblems({ MAP_TILES_FILE: dir })[0]).toContain("is not a file")
    expect(mapFileProblems({ MAP_TILES_FILE: rasterFile })).toEqual([])
    expect(mapFileProblems({})).toEqual([])
  })
})
