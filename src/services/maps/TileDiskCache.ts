import * as fs from "node:fs"
import * as path from "node:path"

/**
 * Fetched map tiles kept on disk, one file a tile, within a size bound: when a new tile would
 * pass it, the least recently used tiles are removed first. The order of use lives in memory
 * (a Map in order of use); at start it is rebuilt from the files' modification times, so the
 * tiles written last are kept longest across restarts.
 */

export interface CachedTile {
  readonly bytes: Uint8Array
  readonly contentType: string
  /** when the tile was fetched (ms since the epoch) */
  readonly fetchedAt: number
}

const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "image/avif": "avif",
  "application/vnd.mapbox-vector-tile": "mvt",
  "application/x-protobuf": "pbf"
}
const TYPES: Record<string, string> = Object.fromEntries(Object.entries(EXTENSIONS).map(([type, ext]) => [ext, type]))
const FILE_NAME = /^(\d+)-(\d+)-(\d+)\.([a-z]+)$/

interface Entry {
  readonly file: string
  readonly size: number
  readonly contentType: string
  readonly fetchedAt: number
}

export interface TileDiskCache {
  readonly get: (key: string) => CachedTile | undefined
  readonly put: (key: string, bytes: Uint8Array, contentType: string) => void
  readonly stats: () => { readonly tiles: number; readonly bytes: number; readonly limitBytes: number }
}

/** `key` is `z-x-y`. */
export const openTileDiskCache = (dir: string, limitBytes: number): TileDiskCache => {
  fs.mkdirSync(dir, { recursive: true })
  const entries = new Map<string, Entry>()
  let total = 0

  const found = fs.readdirSync(dir).flatMap((name) => {
    const match = FILE_NAME.exec(name)
    const file = path.join(dir, name)
    if (match === null || TYPES[match[4]!] === undefined) {
      // a write cut short by a crash (its temporary name) or a stranger: not a tile
      fs.rmSync(file, { force: true })
      return []
    }
    const stat = fs.statSync(file)
    return [{ key: `${match[1]}-${match[2]}-${match[3]}`, entry: { file, size: stat.size, contentType: TYPES[match[4]!]!, fetchedAt: stat.mtimeMs } }]
  })
  for (const { key, entry } of found.sort((a, b) => a.entry.fetchedAt - b.entry.fetchedAt)) {
    entries.set(key, entry)
    total += entry.size
  }

  const remove = (key: string) => {
    const entry = entries.get(key)
    if (entry === undefined) return
    entries.delete(key)
    total -= entry.size
    fs.rmSync(entry.file, { force: true })
  }
  const evict = () => {
    for (const key of entries.keys()) {
      if (total <= limitBytes) break
      remove(key)
    }
  }
  evict()

  return {
    get: (key) => {
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      let bytes: Uint8Array
      try {
        bytes = fs.readFileSync(entry.file)
      } catch {
        // removed behind our back: fetched again
        entries.delete(key)
        total -= entry.size
        return undefined
      }
      entries.delete(key)
      entries.set(key, entry)
      return { bytes, contentType: entry.contentType, fetchedAt: entry.fetchedAt }
    },
    put: (key, bytes, contentType) => {
      const ext = EXTENSIONS[contentType.split(";")[0]!.trim().toLowerCase()]
      // a tile bigger than the whole cache, or of a type not kept, is served and forgotten
      if (ext === undefined || bytes.length > limitBytes) return
      remove(key)
      const file = path.join(dir, `${key}.${ext}`)
      const temporary = `${file}.${process.pid}.part`
      fs.writeFileSync(temporary, bytes)
      fs.renameSync(temporary, file)
      entries.set(key, { file, size: bytes.length, contentType: TYPES[ext]!, fetchedAt: Date.now() })
      total += bytes.length
      evict()
    },
    stats: () => ({ tiles: entries.size, bytes: total, limitBytes })
  }
}
