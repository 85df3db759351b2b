import { afterAll, describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer, Logger } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { MapTiles, USER_AGENT } from "../../../src/services/maps/MapTiles.ts"
import { AppConfig } from "../../../src/services/platform/AppConfig.ts"
import { StoragePaths } from "../../../src/services/platform/StoragePaths.ts"
import { pngTile } from "../../support/pmtilesWriter.ts"

/**
 * The tile proxy against a fake tile server on loopback that counts what it is asked: each tile
 * fetched once while kept, at most two downloads at once, a User-Agent naming Waymark, the
 * oldest tiles removed from a full cache, and an unreachable server logged once.
 */

interface FakeTileServer {
  readonly url: string
  readonly asked: Array<string>
  readonly userAgents: Set<string>
  readonly maxAtOnce: () => number
  readonly close: () => Promise<void>
}

const startFake = async (tileBytes: (z: number, x: number, y: number) => Uint8Array): Promise<FakeTileServer> => {
  const asked: Array<string> = []
  const userAgents = new Set<string>()
  let atOnce = 0
  let most = 0
  const server = http.createServer((request, response) => {
    asked.push(request.url ?? "")
    userAgents.add(request.headers["user-agent"] ?? "")
    atOnce += 1
    most = Math.max(most, atOnce)
    const [z, x, y] = (request.url ?? "").split("/").slice(1).map((s) => parseInt(s, 10))
    // a slow server: concurrent downloads overlap if the proxy lets them
    setTimeout(() => {
      atOnce -= 1
      response.writeHead(200, { "content-type": "image/png" }).end(tileBytes(z!, x!, y!))
    }, 30)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    asked,
    userAgents,
    maxAtOnce: () => most,
    close: () => new Promise((resolve) => server.close(() => resolve()))
  }
}

const roots: Array<string> = []
afterAll(() => roots.forEach((root) => fs.rmSync(root, { recursive: true, force: true })))

/** MapTiles alone over a fresh STORAGE_DIR, its log lines kept in `logs`. */
const withProxy = <A, E>(env: Record<string, string>, body: (maps: MapTiles, cacheDir: string, logs: Array<string>) => Effect.Effect<A, E>) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-tile-proxy-"))
  roots.push(root)
  const storageDir = path.join(root, "storage")
  const logs: Array<string> = []
  const logger = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => logs.push((Array.isArray(message) ? message : [message]).map(String).join(" "))))
  const maps = MapTiles.Default.pipe(
    Layer.provide(Layer.merge(StoragePaths.Default, AppConfig.Default)),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries({ STORAGE_DIR: storageDir, WATCH_DIR: path.join(root, "watch"), ...env })))))
  )
  return Effect.flatMap(MapTiles, (m) => body(m, path.join(storageDir, "files", "map-tiles"), logs)).pipe(
    Effect.provide(Layer.merge(maps, logger)),
    Effect.scoped
  )
}

const fakeServer = Effect.acquireRelease(Effect.promise(() => startFake((z, x, y) => pngTile(z, x, y))), (fake) => Effect.promise(() => fake.close()))

describe("the tile proxy", () => {
  it.scoped("a tile asked twice, even at once, is fetched once, with a User-Agent naming Waymark; never more than two downloads at once", () =>
    Effect.gen(function*() {
      const fake = yield* fakeServer
      yield* withProxy({ MAP_TILE_URL: `${fake.url}/{z}/{x}/{y}.png` }, (maps) =>
        Effect.gen(function*() {
          const first = yield* Effect.all([maps.tile(5, 16, 10), maps.tile(5, 16, 10)], { concurrency: 2 })
          expect(Buffer.compare(Buffer.from(first[0].bytes), Buffer.from(pngTile(5, 16, 10)))).toBe(0)
          expect(first[1].bytes).toEqual(first[0].bytes)
          yield* maps.tile(5, 16, 10)
          expect(fake.asked).toEqual(["/5/16/10.png"])
          expect([...fake.userAgents]).toEqual([USER_AGENT])
          expect(USER_AGENT).toMatch(/^Waymark\/\d+\.\d+\.\d+ /)
          // eight different tiles asked at once: the server sees two at a time
          yield* Effect.all(Array.from({ length: 8 }, (_, i) => maps.tile(6, i, 20)), { concurrency: "unbounded" })
          expect(fake.asked.length).toBe(9)
          expect(fake.maxAtOnce()).toBe(2)
          const status = maps.status()
          expect(status).toMatchObject({ source: "proxy", reachable: true, cachedTiles: 9, hits: 2, misses: 9 })
          if (status.source === "proxy") expect(status.hitRate).toBeCloseTo(2 / 11)
        }))
    }))

  it.scoped("a full cache removes the least recently used tiles first, and a removed tile is fetched again", () =>
    Effect.gen(function*() {
      // tiles of 300 KB in a cache of 1 MB: three fit
      const big = (z: number, x: number) => Buffer.alloc(300 * 1024, (z + x) % 251)
      const fake = yield* Effect.acquireRelease(Effect.promise(() => startFake(big)), (f) => Effect.promise(() => f.close()))
      yield* withProxy({ MAP_TILE_URL: `${fake.url}/{z}/{x}/{y}`, MAP_TILE_CACHE_MB: "1" }, (maps, cacheDir) =>
        Effect.gen(function*() {
          yield* maps.tile(3, 1, 1)
          yield* maps.tile(3, 2, 1)
          yield* maps.tile(3, 3, 1)
          yield* maps.tile(3, 1, 1) // used again: now the newest
          yield* maps.tile(3, 4, 1) // the fourth: 3/2/1, the least recently used, goes
          expect(fs.readdirSync(cacheDir).sort()).toEqual(["3-1-1.png", "3-3-1.png", "3-4-1.png"])
          const status = maps.status()
          expect(status.source === "proxy" && status.cacheBytes <= status.cacheLimitBytes).toBe(true)
          const before = fake.asked.length
          yield* maps.tile(3, 1, 1)
          expect(fake.asked.length).toBe(before)
          yield* maps.tile(3, 2, 1)
          expect(fake.asked.slice(before)).toEqual(["/3/2/1"])
        }))
    }))

  it.scoped("a tile server that cannot be reached: each tile fails at once with the reason, and the log says so once", () =>
    Effect.gen(function*() {
      // a port nothing listens on
      const fake = yield* fakeServer
      const url = fake.url
      yield* Effect.promise(() => fake.close())
      yield* withProxy({ MAP_TILE_URL: `${url}/{z}/{x}/{y}.png` }, (maps, _dir, logs) =>
        Effect.gen(function*() {
          const failures = yield* Effect.all(Array.from({ length: 12 }, (_, i) => Effect.exit(maps.tile(4, i, 5))), { concurrency: 4 })
          for (const exit of failures) {
            expect(Exit.isFailure(exit)).toBe(true)
            if (Exit.isFailure(exit)) expect(JSON.stringify(exit.cause)).toContain("Map tiles cannot be fetched from 127.0.0.1")
          }
          expect(logs.filter((line) => line.includes("map tiles cannot be fetched"))).toHaveLength(1)
          const status = maps.status()
          expect(status).toMatchObject({ source: "proxy", reachable: false })
        }))
    }))
})
