import { FitEncoder } from "fit-file-parser"

/**
 * A FIT ride of `records` records, one per second, written byte by byte: the FIT SDK's encoder
 * takes minutes over hundreds of thousands of records, this takes a fraction of a second. One
 * record message definition (time, position, altitude, heart rate, cadence, distance, speed,
 * power), then the session totals and the activity, as a device writes them.
 */
const FIT_EPOCH_S = 631_065_600
const fitTime = (ms: number) => Math.round(ms / 1000) - FIT_EPOCH_S
const semicircles = (degrees: number) => Math.round((degrees * 2 ** 31) / 180)

type Field = readonly [number: number, size: number, baseType: number]
const UINT8 = 0x02, UINT16 = 0x84, UINT32 = 0x86, SINT32 = 0x85, ENUM = 0x00

export interface LongRide {
  readonly start: Date
  readonly records: number
  /** metres per second, heading north from 45°N 6°E */
  readonly speed: number
  /** heart rate, power and cadence of the record at second `i` */
  readonly sample: (i: number) => { readonly heartRate: number; readonly power: number; readonly cadence: number; readonly altitude: number }
}

export const longFitRide = (ride: LongRide): Uint8Array => {
  const recordFields: ReadonlyArray<Field> = [[253, 4, UINT32], [0, 4, SINT32], [1, 4, SINT32], [2, 2, UINT16], [3, 1, UINT8], [4, 1, UINT8], [5, 4, UINT32], [6, 2, UINT16], [7, 2, UINT16]]
  const recordSize = 1 + recordFields.reduce((n, f) => n + f[1], 0)
  const chunks: Array<Uint8Array> = []
  const definition = (local: number, global: number, fields: ReadonlyArray<Field>) => {
    const b = new Uint8Array(6 + 3 * fields.length)
    b.set([0x40 | local, 0, 0, global & 0xff, global >> 8, fields.length])
    fields.forEach((f, i) => b.set(f, 6 + 3 * i))
    chunks.push(b)
  }
  const data = (local: number, fields: ReadonlyArray<Field>, values: ReadonlyArray<number>) => {
    const b = new Uint8Array(1 + fields.reduce((n, f) => n + f[1], 0))
    const view = new DataView(b.buffer)
    b[0] = local
    let at = 1
    fields.forEach(([, size, type], i) => {
      const v = values[i]!
      if (size === 1) view.setUint8(at, v)
      else if (size === 2) view.setUint16(at, v, true)
      else if (type === SINT32) view.setInt32(at, v, true)
      else view.setUint32(at, v, true)
      at += size
    })
    chunks.push(b)
  }
  const t0 = ride.start.getTime()
  const fileId: ReadonlyArray<Field> = [[0, 1, ENUM], [1, 2, UINT16], [2, 2, UINT16], [3, 4, UINT32], [4, 4, UINT32]]
  definition(0, 0, fileId)
  data(0, fileId, [4, 1, 3121, 1234, fitTime(t0)])
  definition(1, 20, recordFields)
  const records = new Uint8Array(recordSize * ride.records)
  const view = new DataView(records.buffer)
  for (let i = 0; i < ride.records; i++) {
    const s = ride.sample(i)
    const distance = i * ride.speed
    let at = i * recordSize
    records[at++] = 1
    view.setUint32(at, fitTime(t0 + i * 1000), true), at += 4
    view.setInt32(at, semicircles(45 + distance / 111_195), true), at += 4
    view.setInt32(at, semicircles(6), true), at += 4
    view.setUint16(at, Math.round((s.altitude + 500) * 5), true), at += 2
    records[at++] = s.heartRate
    records[at++] = s.cadence
    view.setUint32(at, Math.round(distance * 100), true), at += 4
    view.setUint16(at, Math.round(ride.speed * 1000), true), at += 2
    view.setUint16(at, s.power, true), at += 2
  }
  chunks.push(records)
  const seconds = ride.records - 1
  const end = fitTime(t0 + seconds * 1000)
  const session: ReadonlyArray<Field> = [[253, 4, UINT32], [2, 4, UINT32], [7, 4, UINT32], [8, 4, UINT32], [9, 4, UINT32], [5, 1, ENUM], [6, 1, ENUM]]
  definition(2, 18, session)
  data(2, session, [end, fitTime(t0), seconds * 1000, seconds * 1000, Math.round(seconds * ride.speed * 100), 2, 0])
  const activity: ReadonlyArray<Field> = [[253, 4, UINT32], [1, 2, UINT16], [2, 1, ENUM], [3, 1, ENUM], [4, 1, ENUM], [5, 4, UINT32]]
  definition(3, 34, activity)
  data(3, activity, [end, 1, 0, 26, 1, end + 3600])

  const dataSize = chunks.reduce((n, c) => n + c.length, 0)
  const file = new Uint8Array(14 + dataSize + 2)
  const header = new DataView(file.buffer)
  file.set([14, 0x20])
  header.setUint16(2, 2132, true)
  header.setUint32(4, dataSize, true)
  file.set([0x2e, 0x46, 0x49, 0x54], 8) // ".FIT"
  header.setUint16(12, FitEncoder.calculateCRC(file.subarray(0, 12)), true)
  let at = 14
  for (const c of chunks) (file.set(c, at), at += c.length)
  header.setUint16(at, FitEncoder.calculateCRC(file.subarray(0, at)), true)
  return file
}
