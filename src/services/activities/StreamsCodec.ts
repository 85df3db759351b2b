import * as zlib from "node:zlib"
import type { ActivityDraft, ActivityStreams, EncodedActivityDraft } from "../../schema/ActivityDraft.ts"

/**
 * The stored form of an activity's streams: JSON, raw-deflated at level 1 (3x faster than the
 * default level for 15 % more bytes, about a third of the source FIT's size). Plain functions
 * without the Effect runtime, so that the parse worker encodes off the daemon's event loop.
 */
export const encodeStreams = (streams: ActivityStreams): Uint8Array => {
  const data = zlib.deflateRawSync(JSON.stringify(streams), { level: 1 })
  // a buffer of its own (not a view into a shared pool), so that it can be transferred
  return data.byteOffset === 0 && data.byteLength === data.buffer.byteLength ? data : new Uint8Array(data)
}

export const decodeStreams = (data: Uint8Array): ActivityStreams => JSON.parse(zlib.inflateRawSync(data).toString("utf8"))

export const encodeDraft = (draft: ActivityDraft): EncodedActivityDraft => {
  const { streams, ...rest } = draft
  return { ...rest, encodedStreams: encodeStreams(streams) }
}
