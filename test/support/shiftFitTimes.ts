import { CrcCalculator, Profile } from "@garmin/fitsdk"

/**
 * A copy of a FIT file whose every absolute time is moved by `seconds`, its bytes otherwise
 * the same and its CRCs valid again: another recording of the same ride as far as the import
 * can tell, starting elsewhere in time (so never a duplicate of the original). The FIT SDK
 * re-encodes a file's messages only as it understands them (its encoder drops what it does
 * not know and takes minutes over long files), and gives no offsets: the records are walked
 * here, by their definitions, and the fields the SDK's profile types as date_time or
 * local_date_time (and every field 253, the timestamp of any message) are rewritten in place.
 *
 * `seconds` must be a multiple of 32: a compressed-timestamp record holds the low 5 bits of
 * its time relative to the last full timestamp, which such a shift leaves as they are. Times
 * below 0x10000000 count from the device's power-on, not from the FIT epoch: they stay.
 * Chained files (one FIT after another) are each shifted and given their own CRC.
 */

const DATE_TYPES = new Set(["dateTime", "localDateTime"])
const TIMESTAMP = 253
const INVALID = 0xffff_ffff
const SYSTEM_TIME_BELOW = 0x1000_0000

const profile = Profile.messages as unknown as Record<number, { readonly fields: Record<number, { readonly type: string }> }>
const isDateField = (global: number, field: number) => field === TIMESTAMP || DATE_TYPES.has(profile[global]?.fields[field]?.type ?? "")

interface Definition {
  readonly littleEndian: boolean
  /** offsets in the message's content and the little endianness of the 4-byte date fields */
  readonly dates: ReadonlyArray<number>
  /** bytes of content after the record header */
  readonly size: number
}

export const shiftFitTimes = (source: Uint8Array, seconds: number): Uint8Array => {
  if (seconds % 32 !== 0) throw new Error(`a shift of ${seconds} s would break compressed timestamps: use a multiple of 32`)
  const bytes = new Uint8Array(source)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let file = 0
  while (file + 12 <= bytes.length) {
    const headerSize = bytes[file]!
    const dataEnd = file + headerSize + view.getUint32(file + 4, true)
    if (String.fromCharCode(...bytes.subarray(file + 8, file + 12)) !== ".FIT" || dataEnd + 2 > bytes.length) throw new Error(`no FIT file at byte ${file}`)
    const definitions = new Map<number, Definition>()
    let at = file + headerSize
    while (at < dataEnd) {
      const header = bytes[at]!
      if ((header & 0xc0) === 0x40) {
        // a definition: reserved, architecture, global number, fields (number, size, base type), developer fields
        const littleEndian = bytes[at + 2] === 0
        const global = view.getUint16(at + 3, littleEndian)
        const count = bytes[at + 5]!
        const dates: Array<number> = []
        let size = 0
        for (let f = 0; f < count; f++) {
          const [number, fieldSize] = [bytes[at + 6 + 3 * f]!, bytes[at + 7 + 3 * f]!]
          if (fieldSize === 4 && isDateField(global, number)) dates.push(size)
          size += fieldSize
        }
        let end = at + 6 + 3 * count
        if (header & 0x20) {
          const developerCount = bytes[end]!
          for (let f = 0; f < developerCount; f++) size += bytes[end + 2 + 3 * f]!
          end += 1 + 3 * developerCount
        }
        definitions.set(header & 0x0f, { littleEndian, dates, size })
        at = end
        continue
      }
      // a data message, its local type in the low 4 bits, or 2 bits of a compressed-timestamp header
      const local = header & 0x80 ? (header >> 5) & 0x03 : header & 0x0f
      const definition = definitions.get(local)
      if (definition === undefined) throw new Error(`a message of undefined local type ${local} at byte ${at}`)
      for (const offset of definition.dates) {
        const position = at + 1 + offset
        const time = view.getUint32(position, definition.littleEndian)
        if (time !== INVALID && time >= SYSTEM_TIME_BELOW) view.setUint32(position, time + seconds, definition.littleEndian)
      }
      at += 1 + definition.size
    }
    if (at !== dataEnd) throw new Error(`the last message runs past the data at byte ${dataEnd}`)
    view.setUint16(dataEnd, CrcCalculator.calculateCRC(bytes, file, dataEnd), true)
    file = dataEnd + 2
  }
  return bytes
}
