/**
 * How many messages a FIT segment holds, read from the record headers and definitions alone
 * (no field is decoded), so that a file is judged before fit-file-parser decodes it: the
 * library has no limits and turns every data message into an object (a 60 MB file of
 * timestamp-only records becomes 12 million of them and exhausts any heap), and a definition
 * before every message costs it 2 µs each.
 *
 * FIT records: a normal header (bit 7 clear) is a definition (bit 6; bit 5 = developer fields)
 * or a data message of a local type (bits 0-3); a compressed-timestamp header (bit 7 set) is a
 * data message of local type bits 5-6. A definition gives the global message number and the
 * sizes of its fields. The scan stops where a data message has no definition or the data
 * ends: the counts then cover what the decoder can read.
 */
export interface FitMessageCounts {
  /** definition and data messages */
  readonly messages: number
  /** data messages by global message number */
  readonly byGlobal: ReadonlyMap<number, number>
  /** a definition with an architecture byte other than 0 or 1: the decoder would read it as big-endian, silently */
  readonly badArchitecture: boolean
}

export const FIT_MESG_RECORD = 20
/** strap heart rates stored apart from the records (swimming) */
export const FIT_MESG_HR = 132

export const countFitMessages = (bytes: Uint8Array, headerSize: number, dataSize: number): FitMessageCounts => {
  const end = Math.min(bytes.length, headerSize + dataSize)
  const sizes = new Int32Array(16).fill(-1)
  const globals = new Int32Array(16)
  const byGlobal = new Map<number, number>()
  let messages = 0
  let badArchitecture = false
  let pos = headerSize
  while (pos < end) {
    const header = bytes[pos++]!
    if ((header & 0x80) === 0 && (header & 0x40) !== 0) {
      if (pos + 5 > end) break
      const bigEndian = bytes[pos + 1] === 1
      if (bytes[pos + 1]! > 1) badArchitecture = true
      const global = bigEndian ? (bytes[pos + 2]! << 8) | bytes[pos + 3]! : bytes[pos + 2]! | (bytes[pos + 3]! << 8)
      const fields = bytes[pos + 4]!
      pos += 5
      let size = 0
      for (let f = 0; f < fields && pos + 3 * f + 1 < end; f++) size += bytes[pos + 3 * f + 1]!
      pos += 3 * fields
      if ((header & 0x20) !== 0 && pos < end) {
        const developerFields = bytes[pos++]!
        for (let f = 0; f < developerFields && pos + 3 * f + 1 < end; f++) size += bytes[pos + 3 * f + 1]!
        pos += 3 * developerFields
      }
      const local = header & 0x0f
      sizes[local] = size
      globals[local] = global
      messages++
      continue
    }
    const local = (header & 0x80) !== 0 ? (header >> 5) & 0x03 : header & 0x0f
    const size = sizes[local]!
    if (size < 0) break
    pos += size
    if (pos > end) break
    messages++
    byGlobal.set(globals[local]!, (byGlobal.get(globals[local]!) ?? 0) + 1)
  }
  return { messages, byGlobal, badArchitecture }
}
