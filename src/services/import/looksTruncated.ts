import * as fs from "node:fs"
import type { FileFormat } from "../../schema/ParsedActivity.ts"

/**
 * Whether a file that failed to import looks like the beginning of a longer one: a copy still
 * under way that paused longer than the settle time. Only such a file is worth holding in the
 * watch folder a while, in case it grows; any other failure is final. Empty files count (a
 * copy that has not written yet); so do a FIT file shorter than its header says, XML whose
 * root element is not closed, and a zip (a KMZ; `zipLooksTruncated` for a file) without its
 * end record.
 */
export const looksTruncated = (format: FileFormat, bytes: Uint8Array): boolean => {
  if (bytes.length === 0) return true
  return format === "fit" ? fitLooksTruncated(bytes) : format === "kmz" ? zipBytesLookTruncated(bytes) : xmlLooksTruncated(bytes)
}

const fitLooksTruncated = (bytes: Uint8Array): boolean => {
  const headerSize = bytes[0]!
  if (headerSize !== 12 && headerSize !== 14) return false
  if (bytes.length < 12) return true
  if (String.fromCharCode(bytes[8]!, bytes[9]!, bytes[10]!, bytes[11]!) !== ".FIT") return false
  const dataSize = new DataView(bytes.buffer, bytes.byteOffset, 12).getUint32(4, true)
  // header, data, then the two bytes of the CRC
  return bytes.length < headerSize + dataSize + 2
}

/** XML declarations, comments and processing instructions before the root element. */
const PROLOG = String.raw`^\uFEFF?(?:\s*(?:<\?[\s\S]*?\?>|<!--[\s\S]*?-->))*\s*`

const xmlLooksTruncated = (bytes: Uint8Array): boolean => {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8").trimEnd()
  if (!text.trimStart().replace(/^\uFEFF/, "").startsWith("<")) return false
  const root = new RegExp(`${PROLOG}<([A-Za-z_][\\w.:-]*)`).exec(text)?.[1]
  // not even the root element's name: cut before it
  if (root === undefined) return true
  const name = root.replace(/[.]/g, "\\.")
  if (new RegExp(`${PROLOG}<${name}\\b[^>]*/>$`).test(text)) return false
  return !new RegExp(`</${name}\\s*>$`).test(text)
}

/** The end record of a zip (its last 22 bytes, before a comment of up to 65,535). */
const END_RECORD = Buffer.from([0x50, 0x4b, 0x05, 0x06])
const LOCAL_HEADER = Buffer.from([0x50, 0x4b, 0x03, 0x04])

/** Whether `tail`, the last bytes of a zip whose first four are `head`, lacks the end record of a zip that began. */
const zipTailLacksEnd = (head: Uint8Array, tail: Uint8Array): boolean =>
  Buffer.from(head.buffer, head.byteOffset, head.length).equals(LOCAL_HEADER) &&
  !Buffer.from(tail.buffer, tail.byteOffset, tail.length).includes(END_RECORD)

const zipBytesLookTruncated = (bytes: Uint8Array): boolean =>
  bytes.length < 4 || zipTailLacksEnd(bytes.subarray(0, 4), bytes.subarray(Math.max(0, bytes.length - 22 - 65_535)))

/** Whether the zip `file` is empty, or starts as a zip and has no end record yet. */
export const zipLooksTruncated = (file: string): boolean => {
  let fd: number
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK)
  } catch {
    return false
  }
  try {
    const stat = fs.fstatSync(fd)
    if (!stat.isFile()) return false
    if (stat.size === 0) return true
    const head = Buffer.alloc(4)
    if (fs.readSync(fd, head, 0, 4, 0) < 4) return true
    if (!head.equals(LOCAL_HEADER)) return false
    const tailSize = Math.min(stat.size, 22 + 65_535)
    const tail = Buffer.alloc(tailSize)
    fs.readSync(fd, tail, 0, tailSize, stat.size - tailSize)
    return zipTailLacksEnd(head, tail)
  } catch {
    return false
  } finally {
    fs.closeSync(fd)
  }
}
