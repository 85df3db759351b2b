import type { ActivityStreams } from "../../schema/ActivityDraft.ts"
import type { TrainingBasis } from "../../schema/TrainingBasis.ts"
import { parseStream, type StoredKey, storedStreams } from "../activities/StreamsCodec.ts"
import { trainingBasisOf } from "./TrainingBasis.ts"

/** The streams the basis reads. */
const BASIS_STREAMS: ReadonlyArray<StoredKey> = ["time", "watts", "heartrate", "distance", "altitude"]

/**
 * The streams of a stored blob that the basis reads, parsed (the others are left as text); none
 * when there are none, or when the blob is damaged (its streams answer an error of their own).
 */
const basisStreams = (data: Uint8Array | null): ActivityStreams => {
  if (data === null) return { time: [] }
  try {
    const stored = storedStreams(data)
    const out: Record<string, unknown> = {}
    for (const key of BASIS_STREAMS) {
      const stream = stored.streams.get(key)
      if (stream !== undefined && stream.length === stored.samples) out[key] = parseStream(stream)
    }
    return { time: [], ...out } as ActivityStreams
  } catch {
    return { time: [] }
  }
}

/** The training basis of an activity from its stored streams (plain code: it runs in a worker thread too). */
export const storedTrainingBasis = (data: Uint8Array | null): TrainingBasis => trainingBasisOf(basisStreams(data))
