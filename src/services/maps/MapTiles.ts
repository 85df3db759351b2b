import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as path from "node:path"
import type { MapClientConfig, MapStatus } from "../../schema/MapModels.ts"
import { AppConfig } from "../platform/AppConfig.ts"
import { inChannel } from "../platform/Logs.ts"
import { StoragePaths } from "../platform/StoragePaths.ts"
import { VERSION } from "../platform/version.ts"
import { makeHotTiles } from "./HotTiles.ts"
import { CONTENT_TYPES, openPmtiles, type OpenPmtiles } from "./PmtilesFile.ts"
import { openTileDiskCache, type TileDiskCache } from "./TileDiskCache.ts"

/**
 * The tiles of every map, answered by the daemon at `/tiles/{z}/{x}/{y}`: read from a local
 * PMTiles file (MAP_TILES_FILE), or else fetched from MAP_TILE_URL by the daemon itself and kept
 * on disk (the browser never asks another host). The fetching follows OpenStreetMap's tile
 * policy: a User-Agent naming Waymark, at most two requests at once, each tile fetched once
 * while it is kept. When the tile server cannot be reached, that is logged once, and tiles are
 * not asked again for a while: every map request is answered at once with the reason.
 */

export const TILE_URL_TEMPLATE = "/tiles/{z}/{x}/{y}"
export const USER_AGENT = `Waymark/${VERSION} (self-hosted activity tracker)`

/** At most two downloads at once, as OpenStreetMap's tile policy asks. */
const DOWNLOADS_AT_ONCE = 2
const FETCH_TIMEOUT = "15 seconds"
/** After a failed fetch, tiles are not asked again for this long (ms). */
const RETRY_AFTER_MS = 30_000
/** A kept tile is fetched again after this long (ms); until then, and whenever the server fails, it is served. */
const FRESH_MS = 7 * 24 * 3600_000
const MAX_ZOOM = 24
/** Bytes of the file's tiles kept in memory: a region's tiles around home at every zoom, many times over. */
const HOT_TILE_BYTES = 16 * 1024 ** 2

export interface Tile {
  readonly bytes: Uint8Array
  readonly contentType: string
  readonly etag: string
  readonly cacheControl: string
}

/** The map file itself, served whole or by byte ranges to a client that reads PMTiles. */
export interface MapFile {
  readonly path: string
  readonly sizeBytes: number
  /** the file's version as an ETag: its size and modification time when the daemon opened it */
  readonly etag: string
}

/** The map cannot have that tile: a zoom or column the world does not have. */
export class TileNotFound extends Data.TaggedError("TileNotFound")<{ readonly message: string }> {}
/** The tile server cannot be reached, or refused: the map draws the routes on a plain background. */
export class TileUnavailable extends Data.TaggedError("TileUnavailable")<{ readonly message: string }> {}

/** A transparent 1×1 PNG: a raster file's answer where it has no tile (the map shows its background). */
const EMPTY_PNG = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010806000000" + "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082",
  "hex"
)

const hostOf = (url: string) => {
  try {
    return new URL(url.replaceAll("{", "").replaceAll("}", "")).host
  } catch {
    return url
  }
}

const OSM_ATTRIBUTION = '© <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors'

export class MapTiles extends Effect.Service<MapTiles>()("services/maps/MapTiles", {
  scoped: Effect.gen(function*() {
    const config = yield* AppConfig
    const paths = yield* StoragePaths
    const scope = yield* Effect.scope

    const valid = (z: number, x: number, y: number) =>
      Number.isInteger(z) && Number.isInteger(x) && Number.isInteger(y) && z >= 0 && z <= MAX_ZOOM && x >= 0 && y >= 0 && x < 2 ** z && y < 2 ** z

    const notFound = (z: number, x: number, y: number) => new TileNotFound({ message: `There is no map tile ${z}/${x}/${y}.` })

    if (Option.isSome(config.mapTilesFile)) {
      const file = config.mapTilesFile.value
      const pmtiles: OpenPmtiles = yield* Effect.acquireRelease(
        Effect.tryPromise({ try: () => openPmtiles(file), catch: (e) => new Error((e as Error).message) }).pipe(Effect.orDie),
        (opened) => Effect.promise(() => opened.close())
      )
      const { summary } = pmtiles
      const contentType = CONTENT_TYPES[summary.tileType]
      const vector = summary.tileType === "mvt"
      yield* Effect.logInfo(
        `maps are drawn from ${file} (${summary.tileType} tiles, zooms ${summary.minZoom}-${summary.maxZoom}, ${(summary.sizeBytes / 1024 ** 2).toFixed(1)} MB)`
      ).pipe(inChannel("daemon"))
      // where the file has no tile (outside its area or zooms), an empty one: the map shows its background, never an error
      const empty = vector ? new Uint8Array(0) : EMPTY_PNG
      const status: MapStatus = { source: "file", file: path.basename(file), ...summary }
      const client: MapClientConfig = {
        tiles: vector ? "vector" : "raster",
        url: TILE_URL_TEMPLATE,
        minZoom: summary.minZoom,
        maxZoom: summary.maxZoom,
        bounds: [[summary.bounds.south, summary.bounds.west], [summary.bounds.north, summary.bounds.east]],
        attribution: OSM_ATTRIBUTION
      }
      const hot = makeHotTiles<Tile>(HOT_TILE_BYTES)
      const tile = Effect.fn("MapTiles.tile")(function*(z: number, x: number, y: number) {
        if (!valid(z, x, y)) return yield* notFound(z, x, y)
        const key = `${z}/${x}/${y}`
        const kept = hot.get(key)
        if (kept !== undefined) return kept
        const bytes = yield* Effect.promise(() => pmtiles.tile(z, x, y))
        const read: Tile = {
          bytes: bytes ?? empty,
          contentType: bytes === undefined && !vector ? "image/png" : contentType,
          etag: `"${pmtiles.version}-${z}-${x}-${y}"`,
          cacheControl: "public, max-age=3600"
        }
        hot.put(key, read)
        return read
      })
      /** A tile kept in memory, at once (no effect, no span: the fast path's answer), if it is. */
      const tileNow = (z: number, x: number, y: number): Tile | undefined => hot.get(`${z}/${x}/${y}`)
      const whole: MapFile = { path: file, sizeBytes: summary.sizeBytes, etag: `"${pmtiles.version}"` }
      return { client, status: () => status, tile, tileNow, file: whole as MapFile | undefined }
    }

    // the proxy
    const http = (yield* HttpClient.HttpClient)
    const host = hostOf(config.mapTileUrl)
    const cache: TileDiskCache = openTileDiskCache(path.join(paths.storageDir, "files", "map-tiles"), config.mapTileCacheMb * 1024 ** 2)
    const downloads = yield* Effect.makeSemaphore(DOWNLOADS_AT_ONCE)
    const inFlight = new Map<string, Deferred.Deferred<Fetched, TileUnavailable | TileNotFound>>()
    let hits = 0
    let misses = 0
    let lastError: string | null = null
    let retryAt = 0

    const urlOf = (z: number, x: number, y: number) =>
      config.mapTileUrl.replaceAll("{z}", String(z)).replaceAll("{x}", String(x)).replaceAll("{y}", String(y))
        .replaceAll("{s}", "abc"[(x + y) % 3]!)

    const failed = (reason: string) =>
      Effect.gen(function*() {
        retryAt = Date.now() + RETRY_AFTER_MS
        if (lastError === null) {
          yield* Effect.logWarning(`map tiles cannot be fetched from ${host}: ${reason}; maps show the routes on a plain background until it answers again`).pipe(inChannel("daemon"))
        }
        lastError = reason
        return yield* new TileUnavailable({ message: `Map tiles cannot be fetched from ${host}: ${reason}.` })
      })

    type Fetched = { readonly bytes: Uint8Array; readonly contentType: string }

    const download = (z: number, x: number, y: number): Effect.Effect<Fetched, TileUnavailable | TileNotFound> =>
      Effect.gen(function*() {
        const response = yield* http.execute(HttpClientRequest.get(urlOf(z, x, y)).pipe(
          HttpClientRequest.setHeaders({ "user-agent": USER_AGENT, accept: "image/*,application/vnd.mapbox-vector-tile,*/*;q=0.5" })
        )).pipe(Effect.timeout(FETCH_TIMEOUT))
        if (response.status === 404) return yield* notFound(z, x, y)
        if (response.status !== 200) return yield* Effect.fail(`it answered ${response.status}`)
        const bytes = new Uint8Array(yield* response.arrayBuffer)
        const contentType = response.headers["content-type"] ?? "image/png"
        return { bytes, contentType } satisfies Fetched as Fetched
      }).pipe(
        Effect.scoped,
        downloads.withPermits(1),
        Effect.catchAll((e): Effect.Effect<never, TileUnavailable | TileNotFound> =>
          typeof e === "string"
            ? failed(e)
            : e._tag === "TileNotFound"
            ? Effect.fail(e)
            : failed(e._tag === "TimeoutException" ? "no answer in 15 s" : e.message)
        ),
        Effect.tap((found) =>
          Effect.gen(function*() {
            misses += 1
            cache.put(`${z}-${x}-${y}`, found.bytes, found.contentType)
            if (lastError !== null) {
              lastError = null
              yield* Effect.logInfo(`map tiles can be fetched from ${host} again`).pipe(inChannel("daemon"))
            }
          })
        )
      )

    /** One download of a tile however many ask for it at once; it runs on when an asker leaves. */
    const fetched = (z: number, x: number, y: number) =>
      Effect.gen(function*() {
        const key = `${z}-${x}-${y}`
        const running = inFlight.get(key)
        if (running !== undefined) {
          // served without a download of its own: a hit
          hits += 1
          return yield* Deferred.await(running)
        }
        const done = yield* Deferred.make<Fetched, TileUnavailable | TileNotFound>()
        inFlight.set(key, done)
        yield* Deferred.complete(done, download(z, x, y)).pipe(Effect.ensuring(Effect.sync(() => inFlight.delete(key))), Effect.forkIn(scope))
        return yield* Deferred.await(done)
      })

    const answer = (z: number, x: number, y: number, found: { readonly bytes: Uint8Array; readonly contentType: string }): Tile => ({
      bytes: found.bytes,
      contentType: found.contentType,
      etag: `"${z}-${x}-${y}-${found.bytes.length.toString(36)}"`,
      cacheControl: "public, max-age=86400"
    })

    const tile = Effect.fn("MapTiles.tile")(function*(z: number, x: number, y: number) {
      if (!valid(z, x, y)) return yield* notFound(z, x, y)
      const kept = cache.get(`${z}-${x}-${y}`)
      if (kept !== undefined && (Date.now() - kept.fetchedAt < FRESH_MS || Date.now() < retryAt)) {
        hits += 1
        return answer(z, x, y, kept)
      }
      if (Date.now() < retryAt) return yield* new TileUnavailable({ message: `Map tiles cannot be fetched from ${host}: ${lastError ?? "it did not answer"}.` })
      const found = yield* fetched(z, x, y).pipe(
        // a kept tile past its age is still better than none
        Effect.catchTag("TileUnavailable", (e) => kept === undefined ? Effect.fail(e) : Effect.succeed(kept))
      )
      return answer(z, x, y, found)
    })

    const client: MapClientConfig = {
      tiles: "raster",
      url: TILE_URL_TEMPLATE,
      minZoom: 0,
      maxZoom: 19,
      bounds: null,
      attribution: host.endsWith("openstreetmap.org") ? OSM_ATTRIBUTION : ""
    }
    const status = (): MapStatus => {
      const kept = cache.stats()
      return {
        source: "proxy",
        tileUrl: config.mapTileUrl,
        reachable: lastError === null,
        lastError,
        cachedTiles: kept.tiles,
        cacheBytes: kept.bytes,
        cacheLimitBytes: kept.limitBytes,
        hits,
        misses,
        hitRate: hits + misses === 0 ? null : hits / (hits + misses)
      }
    }
    // a fetched tile is read from the disk cache (a hit) or fetched: never at once
    const tileNow = (_z: number, _x: number, _y: number): Tile | undefined => undefined
    return { client, status, tile, tileNow, file: undefined as MapFile | undefined }
  }),
  // Node's own fetch, loaded with the first tile fetched: the undici package's client (100
  // modules) would be loaded with the daemon and held at rest for maps that may read a file
  dependencies: [FetchHttpClient.layer]
}) {}
