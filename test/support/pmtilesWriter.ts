import { Resvg } from "@resvg/resvg-js"
import { zxyToTileId } from "pmtiles"

/**
 * A minimal PMTiles version 3 writer for the tests' own map files: the 127-byte header, one root
 * directory of varint-encoded entries in Hilbert tile-id order, empty metadata, then the tiles,
 * nothing compressed. Enough for small files (a root directory of up to a few thousand tiles).
 */

export type WrittenTileType = "mvt" | "png" | "jpeg" | "webp"
const TILE_TYPE_CODES: Record<WrittenTileType, number> = { mvt: 1, png: 2, jpeg: 3, webp: 4 }

export interface WrittenTile {
  readonly z: number
  readonly x: number
  readonly y: number
  readonly bytes: Uint8Array
}

export interface PmtilesOptions {
  readonly tileType: WrittenTileType
  readonly tiles: ReadonlyArray<WrittenTile>
  /** west, south, east, north; the whole world by default */
  readonly bounds?: readonly [number, number, number, number]
}

const varint = (out: Array<number>, value: number) => {
  let v = value
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80)
    v = Math.floor(v / 0x80)
  }
  out.push(v)
}

export const writePmtiles = (options: PmtilesOptions): Buffer => {
  const sorted = options.tiles.map((t) => ({ ...t, id: zxyToTileId(t.z, t.x, t.y) })).sort((a, b) => a.id - b.id)
  let offset = 0
  const entries = sorted.map((t) => {
    const entry = { id: t.id, offset, length: t.bytes.length }
    offset += t.bytes.length
    return entry
  })
  const dir: Array<number> = []
  varint(dir, entries.length)
  let last = 0
  for (const e of entries) {
    varint(dir, e.id - last)
    last = e.id
  }
  for (const _ of entries) varint(dir, 1) // run lengths
  for (const e of entries) varint(dir, e.length)
  entries.forEach((e, i) => varint(dir, i > 0 && e.offset === entries[i - 1]!.offset + entries[i - 1]!.length ? 0 : e.offset + 1))
  const root = Buffer.from(dir)
  const metadata = Buffer.from("{}")
  const data = Buffer.concat(sorted.map((t) => Buffer.from(t.bytes)))

  const header = Buffer.alloc(127)
  header.write("PMTiles", 0, "latin1")
  header.writeUInt8(3, 7)
  const u64 = (at: number, v: number) => header.writeBigUInt64LE(BigInt(v), at)
  const rootOffset = 127
  const metadataOffset = rootOffset + root.length
  const dataOffset = metadataOffset + metadata.length
  u64(8, rootOffset)
  u64(16, root.length)
  u64(24, metadataOffset)
  u64(32, metadata.length)
  u64(40, dataOffset) // no leaf directories
  u64(48, 0)
  u64(56, dataOffset)
  u64(64, data.length)
  u64(72, entries.length)
  u64(80, entries.length)
  u64(88, entries.length)
  header.writeUInt8(1, 96) // clustered
  header.writeUInt8(1, 97) // directories not compressed
  header.writeUInt8(1, 98) // tiles not compressed
  header.writeUInt8(TILE_TYPE_CODES[options.tileType], 99)
  const zooms = sorted.map((t) => t.z)
  header.writeUInt8(Math.min(...zooms), 100)
  header.writeUInt8(Math.max(...zooms), 101)
  const [west, south, east, north] = options.bounds ?? [-180, -85.05, 180, 85.05]
  const e7 = (at: number, v: number) => header.writeInt32LE(Math.round(v * 1e7), at)
  e7(102, west)
  e7(106, south)
  e7(110, east)
  e7(114, north)
  header.writeUInt8(Math.min(...zooms), 118)
  e7(119, (west + east) / 2)
  e7(123, (south + north) / 2)
  return Buffer.concat([header, root, metadata, data])
}

/** The tiles of zooms `minZoom`..`maxZoom` covering a point (lon, lat), and their neighbours: what a map around it asks. */
export const tilesAround = (lon: number, lat: number, minZoom: number, maxZoom: number, make: (z: number, x: number, y: number) => Uint8Array): Array<WrittenTile> => {
  const tiles: Array<WrittenTile> = []
  for (let z = minZoom; z <= maxZoom; z++) {
    const n = 2 ** z
    const cx = Math.floor(((lon + 180) / 360) * n)
    const r = (lat * Math.PI) / 180
    const cy = Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n)
    for (let x = Math.max(0, cx - 2); x <= Math.min(n - 1, cx + 2); x++) {
      for (let y = Math.max(0, cy - 2); y <= Math.min(n - 1, cy + 2); y++) tiles.push({ z, x, y, bytes: make(z, x, y) })
    }
  }
  return tiles
}

/** A 256-pixel PNG tile drawn by the test: a pale ground, a checker of the tile's parity, its address written on it. */
export const pngTile = (_z: number, x: number, y: number): Uint8Array => {
  const tint = (x + y) % 2 === 0 ? "#cfe3c8" : "#b9d3f0"
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256">
<rect width="256" height="256" fill="${tint}"/><rect x="0.5" y="0.5" width="255" height="255" fill="none" stroke="#7a8a99"/>
<path d="M0 200 C 80 150, 160 250, 256 190" stroke="#5d8fd6" stroke-width="10" fill="none"/></svg>`
  return new Resvg(svg).render().asPng()
}

// --- a vector tile (MVT) in the basemap's layers, encoded by hand

const zigzag = (n: number) => (n << 1) ^ (n >> 31)

class Proto {
  readonly out: Array<number> = []
  key(field: number, wire: number) {
    varint(this.out, (field << 3) | wire)
    return this
  }
  uint(field: number, v: number) {
    return this.key(field, 0), varint(this.out, v), this
  }
  bytes(field: number, b: ArrayLike<number>) {
    this.key(field, 2)
    varint(this.out, b.length)
    for (let i = 0; i < b.length; i++) this.out.push(b[i]!)
    return this
  }
  string(field: number, s: string) {
    return this.bytes(field, Buffer.from(s, "utf8"))
  }
  packed(field: number, values: ReadonlyArray<number>) {
    const inner: Array<number> = []
    for (const v of values) varint(inner, v)
    return this.bytes(field, inner)
  }
}

/** A polygon ring's geometry commands, in tile units (extent 4096). */
const ring = (points: ReadonlyArray<readonly [number, number]>): Array<number> => {
  const commands: Array<number> = []
  let px = 0
  let py = 0
  points.forEach(([x, y], i) => {
    if (i === 0) commands.push((1 & 7) | (1 << 3))
    if (i === 1) commands.push((2 & 7) | ((points.length - 1) << 3))
    commands.push(zigzag(x - px), zigzag(y - py))
    px = x
    py = y
  })
  commands.push(7 | (1 << 3))
  return commands
}

const layer = (name: string, kind: string, geometry: Array<number>) => {
  const feature = new Proto().uint(1, 1).packed(2, [0, 0]).uint(3, 3).packed(4, geometry)
  const value = new Proto().string(1, kind)
  return new Proto().uint(15, 2).string(1, name).bytes(2, feature.out).string(3, "kind").bytes(4, value.out).uint(5, 4096)
}

/** A vector tile: land over the whole tile, and a lake in its middle. */
export const mvtTile = (): Uint8Array => {
  const earth = layer("earth", "earth", ring([[0, 0], [4096, 0], [4096, 4096], [0, 4096]]))
  const water = layer("water", "lake", ring([[1024, 1024], [3072, 1024], [3072, 3072], [1024, 3072]]))
  return Uint8Array.from(new Proto().bytes(3, earth.out).bytes(3, water.out).out)
}
