import { bytesToHeader, Compression, type Header, PMTiles, type RangeResponse, type Source, TileType } from "pmtiles"
import * as fs from "node:fs"
import * as path from "node:path"
import * as zlib from "node:zlib"

/**
 * A PMTiles (version 3) file on this machine, read with the `pmtiles` reader through a Source
 * that reads the file at offsets: the header and directories are cached by the reader, each
 * tile is one read of its bytes.
 */

/** The tile types a map can draw: raster images, or vector tiles drawn in the browser. */
export const MAP_TILE_TYPES = ["png", "jpeg", "webp", "avif", "mvt"] as const
export type MapTileType = typeof MAP_TILE_TYPES[number]

const TILE_TYPES: Partial<Record<TileType, MapTileType>> = {
  [TileType.Png]: "png",
  [TileType.Jpeg]: "jpeg",
  [TileType.Webp]: "webp",
  [TileType.Avif]: "avif",
  [TileType.Mvt]: "mvt"
}

export const CONTENT_TYPES: Record<MapTileType, string> = {
  png: "image/png",
  jpeg: "image/jpeg",
  webp: "image/webp",
  avif: "image/avif",
  mvt: "application/vnd.mapbox-vector-tile"
}

const HEADER_BYTES = 127
const MAGIC = "PMTiles"

export interface PmtilesSummary {
  readonly tileType: MapTileType
  readonly minZoom: number
  readonly maxZoom: number
  readonly bounds: { readonly west: number; readonly south: number; readonly east: number; readonly north: number }
  readonly sizeBytes: number
}

const summaryOf = (header: Header, sizeBytes: number, tileType: MapTileType): PmtilesSummary => ({
  tileType,
  minZoom: header.minZoom,
  maxZoom: header.maxZoom,
  bounds: { west: header.minLon, south: header.minLat, east: header.maxLon, north: header.maxLat },
  sizeBytes
})

/**
 * What the file's header says, or why it cannot be used (a sentence naming the file): checked
 * at start, before anything else opens it.
 */
export const readPmtilesHeader = (file: string): { readonly ok: PmtilesSummary } | { readonly problem: string } => {
  let bytes: Buffer
  let size: number
  try {
    const stat = fs.statSync(file)
    if (!stat.isFile()) return { problem: `MAP_TILES_FILE ${file} is not a file: set MAP_TILES_FILE to a .pmtiles file, or unset it.` }
    size = stat.size
    const fd = fs.openSync(file, "r")
    try {
      bytes = Buffer.alloc(HEADER_BYTES)
      fs.readSync(fd, bytes, 0, HEADER_BYTES, 0)
    } finally {
      fs.closeSync(fd)
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "error"
    const why = code === "ENOENT" ? "there is no such file" : code === "EACCES" || code === "EPERM" ? "this user may not read it" : (e as Error).message
    return { problem: `MAP_TILES_FILE ${file} cannot be read: ${why} (${code}); set MAP_TILES_FILE to a readable .pmtiles file, or unset it.` }
  }
  if (size < HEADER_BYTES || bytes.toString("latin1", 0, 7) !== MAGIC) {
    return { problem: `MAP_TILES_FILE ${file} is not a PMTiles file (it does not start with the PMTiles header); convert it with \`pmtiles convert\`, or unset MAP_TILES_FILE.` }
  }
  if (bytes[7] !== 3) {
    return { problem: `MAP_TILES_FILE ${file} is PMTiles version ${bytes[7]}, and only version 3 is read; convert it with \`pmtiles convert\`.` }
  }
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + HEADER_BYTES) as ArrayBuffer
  let header: Header
  try {
    header = bytesToHeader(buffer)
  } catch (e) {
    return { problem: `MAP_TILES_FILE ${file} has a header that cannot be read (${(e as Error).message}).` }
  }
  const tileType = TILE_TYPES[header.tileType]
  if (tileType === undefined) {
    return { problem: `MAP_TILES_FILE ${file} holds tiles of a type maps cannot draw (type ${header.tileType}); use a file of PNG, JPEG, WebP or MVT (vector) tiles.` }
  }
  if (header.rootDirectoryOffset + header.rootDirectoryLength > size || header.minZoom > header.maxZoom) {
    return { problem: `MAP_TILES_FILE ${file} is cut short or damaged (its directory lies past its ${size} bytes); download or extract it again.` }
  }
  return { ok: summaryOf(header, size, tileType) }
}

/** The reader's Source over an open file: each range is one positioned read. */
class LocalFileSource implements Source {
  constructor(readonly file: string, readonly handle: fs.promises.FileHandle) {}
  getKey() {
    return this.file
  }
  async getBytes(offset: number, length: number): Promise<RangeResponse> {
    const bytes = new Uint8Array(length)
    const { bytesRead } = await this.handle.read(bytes, 0, length, offset)
    return { data: bytesRead === length ? bytes.buffer : bytes.buffer.slice(0, bytesRead) }
  }
}

/** Directories and tiles decompressed with node's zlib (the reader's default is the browser's DecompressionStream). */
const decompress = async (buffer: ArrayBuffer, compression: Compression): Promise<ArrayBuffer> => {
  const inflated = compression === Compression.None || compression === Compression.Unknown
    ? undefined
    : compression === Compression.Gzip
    ? zlib.gunzipSync(new Uint8Array(buffer))
    : compression === Compression.Brotli
    ? zlib.brotliDecompressSync(new Uint8Array(buffer))
    : (() => {
      throw new Error("zstd-compressed PMTiles are not read; convert the file with gzip compression")
    })()
  return inflated === undefined ? buffer : inflated.buffer.slice(inflated.byteOffset, inflated.byteOffset + inflated.byteLength) as ArrayBuffer
}

export interface OpenPmtiles {
  readonly summary: PmtilesSummary
  /** A tag of the file's version (size and modification time): a tile's ETag includes it. */
  readonly version: string
  /** The tile's bytes, uncompressed; undefined when the file has no tile there. */
  readonly tile: (z: number, x: number, y: number) => Promise<Uint8Array | undefined>
  readonly close: () => Promise<void>
}

export const openPmtiles = async (file: string): Promise<OpenPmtiles> => {
  const checked = readPmtilesHeader(file)
  if ("problem" in checked) throw new Error(checked.problem)
  const handle = await fs.promises.open(file, "r")
  const stat = await handle.stat()
  const reader = new PMTiles(new LocalFileSource(path.resolve(file), handle), undefined, decompress)
  await reader.getHeader()
  return {
    summary: checked.ok,
    version: `${stat.size.toString(36)}-${Math.round(stat.mtimeMs).toString(36)}`,
    tile: async (z, x, y) => {
      const found = await reader.getZxy(z, x, y)
      return found === undefined ? undefined : new Uint8Array(found.data)
    },
    close: () => handle.close()
  }
}
