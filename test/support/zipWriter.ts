import * as fs from "node:fs"
import * as zlib from "node:zlib"

/**
 * Zips as exporters write them: each entry stored or deflated, UTF-8 names, written as the
 * entries come so that an export of thousands of files never sits in memory whole. Without
 * ZIP64 (at most 65,535 entries and 4 GiB), which no export built by the tests reaches.
 */
export interface ZipEntry {
  readonly name: string
  readonly data: Uint8Array | string
  /** deflate the entry (the default for exporters); stored when false */
  readonly deflate?: boolean
}

const LIMIT = 0xffff_ffff

/** Writes the entries through `write`, in the order given; answers the bytes written. */
const writeEntries = (entries: Iterable<ZipEntry>, write: (chunk: Uint8Array) => void): number => {
  const directory: Array<Buffer> = []
  let offset = 0
  let count = 0
  const out = (chunk: Uint8Array) => {
    write(chunk)
    offset += chunk.length
  }
  for (const entry of entries) {
    const name = Buffer.from(entry.name, "utf8")
    const raw = typeof entry.data === "string" ? Buffer.from(entry.data, "utf8") : entry.data
    const deflate = entry.deflate ?? true
    const data = deflate ? zlib.deflateRawSync(raw) : raw
    const crc = zlib.crc32(raw)
    if (offset + 30 + name.length + data.length > LIMIT || ++count > 0xffff) throw new Error("this zip would need ZIP64")
    // the fields the local header and the central directory share, from "version needed" to the name's length
    const shared = Buffer.alloc(26)
    shared.writeUInt16LE(20, 0)
    shared.writeUInt16LE(0x0800, 2) // names in UTF-8
    shared.writeUInt16LE(deflate ? 8 : 0, 4)
    shared.writeUInt16LE(0x0021, 8) // 1980-01-01
    shared.writeUInt32LE(crc, 10)
    shared.writeUInt32LE(data.length, 14)
    shared.writeUInt32LE(raw.length, 18)
    shared.writeUInt16LE(name.length, 22)
    const local = Buffer.alloc(4)
    local.writeUInt32LE(0x04034b50, 0)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(20, 4) // made by
    shared.copy(central, 6)
    central.writeUInt32LE(offset, 42)
    directory.push(central, name)
    out(Buffer.concat([local, shared, name]))
    out(data)
  }
  const start = offset
  for (const chunk of directory) out(chunk)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(count, 8)
  end.writeUInt16LE(count, 10)
  end.writeUInt32LE(offset - start, 12)
  end.writeUInt32LE(start, 16)
  out(end)
  return offset
}

/** The zip of `entries`, in memory (a part inside an export, a small test archive). */
export const zipBuffer = (entries: Iterable<ZipEntry>): Buffer => {
  const chunks: Array<Uint8Array> = []
  writeEntries(entries, (chunk) => chunks.push(chunk))
  return Buffer.concat(chunks)
}

/** Writes the zip of `entries` to `file` as they come; answers its size in bytes. */
export const writeZipFile = (file: string, entries: Iterable<ZipEntry>): number => {
  const fd = fs.openSync(file, "w")
  try {
    return writeEntries(entries, (chunk) => {
      for (let at = 0; at < chunk.length;) at += fs.writeSync(fd, chunk, at)
    })
  } finally {
    fs.closeSync(fd)
  }
}
