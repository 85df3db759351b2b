import * as zlib from "node:zlib"
import type { ActivityStreams } from "../../schema/ActivityDraft.ts"
import type { LatLng } from "./segmentLine.ts"
import type { TrackStreams } from "./matchSegment.ts"

/**
 * The form of a track the segments read: positions, times, distances, heart rate, power,
 * cadence and the moving flag of every sample, in binary (positions in 1e-7 degrees, each as the
 * step from the sample before), raw-deflated. Reading one back takes a tenth of a millisecond
 * where the stored streams (JSON) take ten: matching a segment against a lifetime reads
 * thousands. Made by the parse worker with the stored streams (encodeDraft).
 *
 * The track's boxes: the bounding box of each run of BOX_SAMPLES samples, for the R*Tree that
 * finds the tracks passing near a segment's gates without reading any track.
 */

const BOX_SAMPLES = 120
const E7 = 1e7

export interface TrackBox {
  readonly minLat: number
  readonly maxLat: number
  readonly minLon: number
  readonly maxLon: number
}

const FLAGS = { time: 1, distance: 2, heartrate: 4, watts: 8, cadence: 16, moving: 32 } as const

/** null for a track without two positions */
export const encodeTrack = (streams: ActivityStreams): Uint8Array | null => {
  const latlng = streams.latlng
  if (latlng === undefined) return null
  const first = latlng.find((p) => p != null)
  if (first == null || latlng.filter((p) => p != null).length < 2) return null
  const n = latlng.length
  const has = (values: ReadonlyArray<unknown> | undefined) => values !== undefined && values.length === n
  let flags = 0
  if (has(streams.time)) flags |= FLAGS.time
  if (has(streams.distance)) flags |= FLAGS.distance
  if (has(streams.heartrate)) flags |= FLAGS.heartrate
  if (has(streams.watts)) flags |= FLAGS.watts
  if (has(streams.cadence)) flags |= FLAGS.cadence
  if (has(streams.moving)) flags |= FLAGS.moving
  const buffer = Buffer.alloc(5 + n * (8 + 4 + 4 + 1 + 2 + 1 + 1))
  buffer.writeUInt32LE(n, 0)
  buffer.writeUInt8(flags, 4)
  let o = 5
  let lat = Math.round(first[0] * E7), lon = Math.round(first[1] * E7)
  let prevLat = 0, prevLon = 0
  for (let i = 0; i < n; i++) {
    const p = latlng[i]
    if (p != null) {
      lat = Math.round(p[0] * E7)
      lon = Math.round(p[1] * E7)
    }
    buffer.writeInt32LE(lat - prevLat, o)
    buffer.writeInt32LE(lon - prevLon, o + 4)
    prevLat = lat
    prevLon = lon
    o += 8
  }
  const floats = (values: ReadonlyArray<number> | undefined, flag: number) => {
    if ((flags & flag) === 0) return
    for (let i = 0; i < n; i++, o += 4) buffer.writeFloatLE(values![i] ?? 0, o)
  }
  floats(streams.time, FLAGS.time)
  floats(streams.distance, FLAGS.distance)
  const clamp = (v: number | null | undefined, max: number) => (v == null || !Number.isFinite(v) ? 0 : Math.max(0, Math.min(max, Math.round(v))))
  if (flags & FLAGS.heartrate) for (let i = 0; i < n; i++, o += 1) buffer.writeUInt8(clamp(streams.heartrate![i], 255), o)
  if (flags & FLAGS.watts) for (let i = 0; i < n; i++, o += 2) buffer.writeUInt16LE(clamp(streams.watts![i], 65_535), o)
  if (flags & FLAGS.cadence) for (let i = 0; i < n; i++, o += 1) buffer.writeUInt8(clamp(streams.cadence![i], 255), o)
  if (flags & FLAGS.moving) for (let i = 0; i < n; i++, o += 1) buffer.writeUInt8(streams.moving![i] ? 1 : 0, o)
  const deflated = zlib.deflateRawSync(buffer.subarray(0, o), { level: 1 })
  // a buffer of its own, so that it can be transferred from the worker
  const data = new Uint8Array(deflated.length)
  data.set(deflated)
  return data
}

export interface DecodedTrack extends TrackStreams {
  readonly latlng: Array<LatLng>
}

export const decodeTrack = (data: Uint8Array): DecodedTrack => {
  const buffer = zlib.inflateRawSync(data)
  const n = buffer.readUInt32LE(0)
  const flags = buffer.readUInt8(4)
  let o = 5
  const latlng = new Array<LatLng>(n)
  let lat = 0, lon = 0
  for (let i = 0; i < n; i++, o += 8) {
    lat += buffer.readInt32LE(o)
    lon += buffer.readInt32LE(o + 4)
    latlng[i] = [lat / E7, lon / E7]
  }
  const floats = (flag: number) => {
    if ((flags & flag) === 0) return undefined
    const values = new Array<number>(n)
    for (let i = 0; i < n; i++, o += 4) values[i] = buffer.readFloatLE(o)
    return values
  }
  const time = floats(FLAGS.time)
  const distance = floats(FLAGS.distance)
  const ints = (flag: number, bytes: 1 | 2) => {
    if ((flags & flag) === 0) return undefined
    const values = new Array<number>(n)
    for (let i = 0; i < n; i++, o += bytes) values[i] = bytes === 1 ? buffer.readUInt8(o) : buffer.readUInt16LE(o)
    return values
  }
  const heartrate = ints(FLAGS.heartrate, 1)
  const watts = ints(FLAGS.watts, 2)
  const cadence = ints(FLAGS.cadence, 1)
  const moving = (flags & FLAGS.moving) === 0 ? undefined : Array.from({ length: n }, (_, i) => buffer.readUInt8(o + i) === 1)
  return { latlng, time, distance, heartrate, watts, cadence, moving }
}

/** The bounding boxes of the track's runs of BOX_SAMPLES samples (each run sharing its last sample with the next). */
export const trackBoxes = (latlng: ReadonlyArray<LatLng | null>): Array<TrackBox> => {
  const boxes: Array<TrackBox> = []
  for (let from = 0; from < latlng.length - 1; from += BOX_SAMPLES) {
    let minLat = Infinity, maxLat = -Infinity, minLon = Infinity, maxLon = -Infinity
    for (let i = from; i <= Math.min(latlng.length - 1, from + BOX_SAMPLES); i++) {
      const p = latlng[i]
      if (p == null) continue
      if (p[0] < minLat) minLat = p[0]
      if (p[0] > maxLat) maxLat = p[0]
      if (p[1] < minLon) minLon = p[1]
      if (p[1] > maxLon) maxLon = p[1]
    }
    if (minLat <= maxLat) boxes.push({ minLat, maxLat, minLon, maxLon })
  }
  return boxes
}
