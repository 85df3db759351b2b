/**
 * What a damaged FIT segment still holds. A device that writes one bad byte (a Lezyne head unit
 * writes a definition with a wrong architecture byte, or a record cut short in the middle of the
 * file) leaves every record after it unreadable to a decoder that stops at the first invalid
 * record. This walks the records as the FIT protocol frames them, checking each one (a definition's
 * reserved and architecture bytes, its base types and field sizes; a data message's header bits
 * and local type); a definition wrong only in its architecture byte is read as little-endian; where a record is invalid skips forward to the first place from which
 * RESYNC_RECORDS records in a row read as valid ones, of the local types used before the damage.
 * The records kept are written out as a segment of their own (a fresh header and checksum) for the
 * decoder, with the byte ranges skipped.
 */
import { FitEncoder } from "fit-file-parser"

/** Records in a row that must read as valid before the walk resumes after a damaged stretch. */
const RESYNC_RECORDS = 32
/**
 * Places tried for resuming, over the whole file: past them the rest of a file is given up as
 * damaged (a file of noise would otherwise be tried at each of its bytes, each a walk of records).
 */
const RESYNC_BUDGET = 262_144

/** The FIT base types (profile, fit_base_type) with the size of one value. */
const BASE_TYPE_SIZES: ReadonlyMap<number, number> = new Map([
  [0x00, 1], [0x01, 1], [0x02, 1], [0x83, 2], [0x84, 2], [0x85, 4], [0x86, 4], [0x07, 1], [0x88, 4],
  [0x89, 8], [0x0a, 1], [0x8b, 2], [0x8c, 4], [0x0d, 1], [0x8e, 8], [0x8f, 8], [0x90, 8]
])

export interface SkippedBytes {
  /** offset in the segment */
  readonly at: number
  readonly length: number
}

export interface RecoveredSegment {
  /** a whole FIT segment: 14-byte header, the records kept, checksum */
  readonly bytes: Uint8Array
  readonly skipped: ReadonlyArray<SkippedBytes>
  /** offsets of definitions whose architecture byte was neither 0 nor 1, read as little-endian */
  readonly architectureFixed: ReadonlyArray<number>
  /** data bytes of the original segment (for the repair note) */
  readonly dataBytes: number
}

interface Walk {
  /** data message size by local type, -1 when undefined */
  readonly sizes: Int32Array
  /** local types seen in a normal data header, and in a compressed-timestamp one */
  readonly usedNormal: Set<number>
  readonly usedCompressed: Set<number>
}

/**
 * The length of the record at `pos` when it is a valid one, else -1; a definition updates `walk`.
 * `strict`: only data messages of local types already used (resynchronising).
 */
const recordAt = (bytes: Uint8Array, pos: number, end: number, walk: Walk, strict: boolean, anyArchitecture = false): number => {
  const header = bytes[pos]!
  if ((header & 0x80) !== 0) {
    const local = (header >> 5) & 0x03
    const size = walk.sizes[local]!
    if (size < 0 || (strict && !walk.usedCompressed.has(local)) || pos + 1 + size > end) return -1
    return 1 + size
  }
  if ((header & 0x40) !== 0) {
    if ((header & 0x10) !== 0 || pos + 6 > end) return -1
    if (bytes[pos + 1] !== 0 || (bytes[pos + 2]! > 1 && !anyArchitecture)) return -1
    const fields = bytes[pos + 5]!
    let at = pos + 6
    if (fields === 0 || at + 3 * fields > end) return -1
    let size = 0
    for (let f = 0; f < fields; f++, at += 3) {
      const fieldSize = bytes[at + 1]!
      const unit = BASE_TYPE_SIZES.get(bytes[at + 2]!)
      if (unit === undefined || fieldSize === 0 || fieldSize % unit !== 0) return -1
      size += fieldSize
    }
    if ((header & 0x20) !== 0) {
      if (at >= end) return -1
      const developerFields = bytes[at++]!
      if (at + 3 * developerFields > end) return -1
      for (let f = 0; f < developerFields; f++, at += 3) size += bytes[at + 1]!
    }
    walk.sizes[header & 0x0f] = size
    return at - pos
  }
  if ((header & 0x30) !== 0) return -1
  const local = header & 0x0f
  const size = walk.sizes[local]!
  if (size < 0 || (strict && !walk.usedNormal.has(local)) || pos + 1 + size > end) return -1
  return 1 + size
}

const copyWalk = (walk: Walk): Walk => ({
  sizes: Int32Array.from(walk.sizes),
  usedNormal: new Set(walk.usedNormal),
  usedCompressed: new Set(walk.usedCompressed)
})

/** Whether RESYNC_RECORDS valid records (or valid records up to the end) follow from `pos`. */
const resumesAt = (bytes: Uint8Array, pos: number, end: number, walk: Walk): boolean => {
  // most places fail at their first byte or two: judged before the walk is copied
  const header = bytes[pos]!
  if ((header & 0xc0) === 0x40) {
    if (pos + 2 >= end || bytes[pos + 1] !== 0 || bytes[pos + 2]! > 1) return false
  } else if (recordAt(bytes, pos, end, walk, true) < 0) return false
  const trial = copyWalk(walk)
  let at = pos
  for (let n = 0; n < RESYNC_RECORDS; n++) {
    if (at === end) return n > 0
    const length = recordAt(bytes, at, end, trial, true)
    if (length < 0) return false
    at += length
  }
  return true
}

/**
 * The records of a segment that read as valid (none skipped when the walk sees no damage: the
 * decoder's failure then lies elsewhere). `dataEnd` is where its records end (header size
 * plus declared data size, or the file's end when the header's size cannot be trusted).
 */
export const recoverFitSegment = (bytes: Uint8Array, headerSize: number, dataEnd: number): RecoveredSegment => {
  const end = Math.min(dataEnd, bytes.length)
  const walk: Walk = { sizes: new Int32Array(16).fill(-1), usedNormal: new Set(), usedCompressed: new Set() }
  const kept: Array<[number, number]> = []
  const skipped: Array<SkippedBytes> = []
  const architectureFixed: Array<number> = []
  let pos = headerSize
  let lastData = -1
  let budget = RESYNC_BUDGET
  while (pos < end) {
    let length = recordAt(bytes, pos, end, walk, false)
    // a definition sound but for its architecture byte (one bad byte): read as little-endian, the
    // architecture of every device of this kind
    if (length < 0 && (bytes[pos]! & 0xc0) === 0x40 && pos + 2 < end && bytes[pos + 2]! > 1) {
      length = recordAt(bytes, pos, end, walk, false, true)
      if (length > 0) architectureFixed.push(pos)
    }
    if (length > 0) {
      const header = bytes[pos]!
      if ((header & 0x80) !== 0) walk.usedCompressed.add((header >> 5) & 0x03)
      else if ((header & 0x40) === 0) walk.usedNormal.add(header & 0x0f)
      lastData = (header & 0x40) === 0 || (header & 0x80) !== 0 ? kept.length : -1
      kept.push([pos, pos + length])
      pos += length
      continue
    }
    // The record before an invalid one is suspect too when it is a data message: a bad byte in
    // its header gives it a wrong length, which lands the walk in the middle of the records after.
    let from = pos
    if (lastData >= 0 && lastData === kept.length - 1) {
      from = kept.pop()![0]
      lastData = -1
    }
    let resume = from + 1
    while (resume < end && budget > 0 && !resumesAt(bytes, resume, end, walk)) {
      resume++
      budget--
    }
    if (budget <= 0) resume = end
    skipped.push({ at: from, length: resume - from })
    pos = resume
  }
  const dataBytes = kept.reduce((total, [a, b]) => total + b - a, 0)
  const out = new Uint8Array(14 + dataBytes + 2)
  out.set(bytes.subarray(0, 12), 0)
  out[0] = 14
  new DataView(out.buffer).setUint32(4, dataBytes, true)
  let at = 14
  for (const [a, b] of kept) {
    out.set(bytes.subarray(a, b), at)
    if (architectureFixed.includes(a)) out[at + 2] = 0
    at += b - a
  }
  const headerCrc = FitEncoder.calculateCRC(out.subarray(0, 12))
  out[12] = headerCrc & 0xff
  out[13] = headerCrc >> 8
  const crc = FitEncoder.calculateCRC(out.subarray(0, at))
  out[at] = crc & 0xff
  out[at + 1] = crc >> 8
  return { bytes: out, skipped, architectureFixed, dataBytes: end - headerSize }
}
