import * as Schema from "effect/Schema"

/** Which source the maps are drawn from, as `/status` reports it. */

export const MapBounds = Schema.Struct({
  west: Schema.Number,
  south: Schema.Number,
  east: Schema.Number,
  north: Schema.Number
}).annotations({ identifier: "MapBounds" })

export const MapFileStatus = Schema.Struct({
  source: Schema.Literal("file"),
  file: Schema.String.annotations({ description: "The file's name (MAP_TILES_FILE)" }),
  tileType: Schema.Literal("png", "jpeg", "webp", "avif", "mvt").annotations({ description: "mvt: vector tiles, drawn in the browser" }),
  minZoom: Schema.Int,
  maxZoom: Schema.Int,
  bounds: MapBounds,
  sizeBytes: Schema.Int
}).annotations({ identifier: "MapFileStatus", description: "Tiles are read from a local PMTiles file" })

export const MapProxyStatus = Schema.Struct({
  source: Schema.Literal("proxy"),
  tileUrl: Schema.String.annotations({ description: "MAP_TILE_URL, which the service fetches tiles from" }),
  reachable: Schema.Boolean.annotations({ description: "false after a fetch failed, until one succeeds again" }),
  lastError: Schema.NullOr(Schema.String),
  cachedTiles: Schema.Int,
  cacheBytes: Schema.Int,
  cacheLimitBytes: Schema.Int,
  hits: Schema.Int.annotations({ description: "Tiles answered from the cache since the start" }),
  misses: Schema.Int.annotations({ description: "Tiles fetched from the tile server since the start" }),
  hitRate: Schema.NullOr(Schema.Number).annotations({ description: "hits / (hits + misses), null before the first tile" })
}).annotations({ identifier: "MapProxyStatus", description: "Tiles are fetched by the service from MAP_TILE_URL and kept on disk" })

export const MapStatus = Schema.Union(MapFileStatus, MapProxyStatus).annotations({ identifier: "MapStatus" })
export type MapStatus = typeof MapStatus.Type

/** What the dashboard's maps are told (the shell's configuration): where tiles are and what they hold. */
export interface MapClientConfig {
  /** raster: images in a tile layer; vector: drawn in the browser */
  readonly tiles: "raster" | "vector"
  /** the daemon's tile route, `{z}/{x}/{y}` filled in by the map */
  readonly url: string
  /** the zooms the source has: past them the nearest is shown, scaled */
  readonly minZoom: number
  readonly maxZoom: number
  /** [[south, west], [north, east]] of a file's area; null: the whole world */
  readonly bounds: readonly [readonly [number, number], readonly [number, number]] | null
  readonly attribution: string
}
