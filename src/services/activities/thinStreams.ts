import { type ActivityStreams, sampleCount } from "../../schema/ActivityDraft.ts"
import { MAX_STORED_SAMPLES } from "../../schema/ActivityLimits.ts"

/** Index of the largest (or, `lowest`, smallest) value in [from, to). */
const extreme = (values: ReadonlyArray<number>, from: number, to: number, lowest: boolean): number => {
  let at = from
  for (let i = from + 1; i < to; i++) if (lowest ? values[i]! < values[at]! : values[i]! > values[at]!) at = i
  return at
}

/**
 * Streams of at most `max` samples for storage: a longer recording is cut into equal stretches,
 * each keeping its first sample and its peaks (highest heart rate, power, speed and cadence,
 * highest and lowest altitude), so that a chart of the stored streams shows every effort and
 * summit. The last sample is kept. Totals and best efforts are computed before, from every sample.
 */
export const thinStreams = (streams: ActivityStreams, max: number = MAX_STORED_SAMPLES): ActivityStreams => {
  const n = sampleCount(streams)
  if (n <= max) return streams
  const highs: Array<ReadonlyArray<number>> = []
  for (const s of [streams.heartrate, streams.watts, streams.velocity_smooth, streams.cadence, streams.altitude]) if (s !== undefined) highs.push(s)
  const lows: Array<ReadonlyArray<number>> = streams.altitude !== undefined ? [streams.altitude] : []
  const perStretch = 1 + highs.length + lows.length
  const stretches = Math.max(1, Math.floor((max - 1) / perStretch))
  const keep = new Uint8Array(n)
  for (let k = 0; k < stretches; k++) {
    const from = Math.floor((k * n) / stretches)
    const to = Math.floor(((k + 1) * n) / stretches)
    if (to <= from) continue
    keep[from] = 1
    for (const s of highs) keep[extreme(s, from, to, false)] = 1
    for (const s of lows) keep[extreme(s, from, to, true)] = 1
  }
  keep[n - 1] = 1
  const pick = <A>(values: ReadonlyArray<A>): Array<A> => {
    const out: Array<A> = []
    for (let i = 0; i < n; i++) if (keep[i]) out.push(values[i]!)
    return out
  }
  const thinned: Record<string, unknown> = {}
  for (const [key, values] of Object.entries(streams)) thinned[key] = Array.isArray(values) ? pick(values) : values
  return thinned as unknown as ActivityStreams
}
