import * as zlib from "node:zlib"
import { type ActivityDraft, type ActivityStreams, type EncodedActivityDraft, sampleCount } from "../../schema/ActivityDraft.ts"
import { encodeTrack } from "../segments/SegmentTrack.ts"
import { trainingBasisOf } from "../training/TrainingBasis.ts"

/**
 * The stored form of an activity's streams: each stream's JSON text one after the other, behind
 * a one-line header naming each stream with its sample count and byte length, raw-deflated at
 * level 1 (3x faster than the default level for 15 % more bytes, about a third of the source
 * FIT's size) behind two bytes of format (`W`, 2). A reader takes one stream's text without
 * parsing the others, and the API's full answer is those texts copied as they are: no parse,
 * no string the size of the whole activity (which V8 allocates among the old objects, each one
 * hastening a full collection).
 *
 * Streams stored before this form are one JSON object, raw-deflated; a raw deflate stream never
 * starts with `W` (0x57 would be a final block of the reserved type), so the two never mix up.
 *
 * Plain functions without the Effect runtime, so that the parse worker encodes off the daemon's
 * event loop.
 */
const FORMAT = [0x57, 2] as const

/**
 * Each stream's label in the stored form, in the stored order. The labels are those the
 * streams had when the form was made (Strava's stream types) and they stay, so that the
 * activities stored before need no rewrite: this table is where the stored form meets the
 * streams' names.
 */
const STORED_LABELS = {
  time: "time",
  latlng: "latlng",
  distance: "distance",
  altitude: "altitude",
  velocity: "velocity_smooth",
  heartrate: "heartrate",
  cadence: "cadence",
  watts: "watts",
  temperature: "temp",
  moving: "moving"
} as const satisfies { readonly [K in keyof ActivityStreams]-?: string }
export type StreamName = keyof typeof STORED_LABELS

/** the streams, in their stored order */
const STORED_ORDER = Object.keys(STORED_LABELS) as Array<StreamName>
const NAME_OF_LABEL: ReadonlyMap<string, StreamName> = new Map(STORED_ORDER.map((name) => [STORED_LABELS[name], name]))

export interface StoredStream {
  /** how many samples it has */
  readonly length: number
  /** its JSON text, ASCII */
  readonly text: Buffer
}

export interface StoredStreams {
  /** the number of samples (of `time`) */
  readonly samples: number
  readonly streams: ReadonlyMap<StreamName, StoredStream>
}

/** each stream's stored label, sample count and byte length */
type Header = ReadonlyArray<readonly [string, number, number]>

export const encodeStreams = (streams: ActivityStreams): Uint8Array => {
  const header: Array<readonly [string, number, number]> = []
  const texts: Array<Buffer> = []
  for (const name of STORED_ORDER) {
    const values = streams[name]
    if (values === undefined) continue
    const text = Buffer.from(JSON.stringify(values), "latin1")
    header.push([STORED_LABELS[name], values.length, text.length])
    texts.push(text)
  }
  const deflated = zlib.deflateRawSync(Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`, "latin1"), ...texts]), { level: 1 })
  // a buffer of its own (not a view into a shared pool), so that it can be transferred
  const data = new Uint8Array(FORMAT.length + deflated.length)
  data.set(FORMAT)
  data.set(deflated, FORMAT.length)
  return data
}

const isCurrent = (data: Uint8Array) => data[0] === FORMAT[0] && data[1] === FORMAT[1]

/** Streams stored in the former form: one JSON object, by stored label. */
const legacyStreams = (data: Uint8Array): ActivityStreams => {
  const old = JSON.parse(zlib.inflateRawSync(data).toString("utf8")) as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const name of STORED_ORDER) if (old[STORED_LABELS[name]] !== undefined) out[name] = old[STORED_LABELS[name]]
  return out as unknown as ActivityStreams
}

/** Each stored stream's text, sliced out of the inflated data (an older form is parsed and written again). */
export const storedStreams = (data: Uint8Array): StoredStreams => {
  const streams = new Map<StreamName, StoredStream>()
  if (!isCurrent(data)) {
    const old = legacyStreams(data)
    for (const name of STORED_ORDER) {
      const values = old[name]
      if (values !== undefined) streams.set(name, { length: values.length, text: Buffer.from(JSON.stringify(values), "latin1") })
    }
    return { samples: sampleCount(old), streams }
  }
  const inflated = zlib.inflateRawSync(data.subarray(FORMAT.length))
  const newline = inflated.indexOf(0x0a)
  const header = JSON.parse(inflated.toString("latin1", 0, newline)) as Header
  let offset = newline + 1
  for (const [label, length, bytes] of header) {
    const name = NAME_OF_LABEL.get(label)
    if (name !== undefined) streams.set(name, { length, text: inflated.subarray(offset, offset + bytes) })
    offset += bytes
  }
  // the texts are answered without being parsed: a header that does not account for every byte is damage
  if (offset !== inflated.length) throw new Error(`stored streams damaged: the header names ${offset} bytes of ${inflated.length}`)
  // the samples' count: of the times, or of any stream where the times are unknown
  return { samples: streams.get("time")?.length ?? header[0]?.[1] ?? 0, streams }
}

/** The values of one stored stream. */
export const parseStream = (stream: StoredStream): Array<any> => JSON.parse(stream.text.toString("latin1"))

export const decodeStreams = (data: Uint8Array): ActivityStreams => {
  if (!isCurrent(data)) return legacyStreams(data)
  const out: Record<string, unknown> = {}
  for (const [name, stream] of storedStreams(data).streams) out[name] = parseStream(stream)
  return out as unknown as ActivityStreams
}

/** The draft in its stored form: its streams encoded, with its training basis (computed from them when it has none). */
export const encodeDraft = (draft: ActivityDraft): EncodedActivityDraft => {
  const { streams, training, ...rest } = draft
  return { ...rest, encodedStreams: encodeStreams(streams), segmentTrack: encodeTrack(streams), training: training ?? trainingBasisOf(streams) }
}
