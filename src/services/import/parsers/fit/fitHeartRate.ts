import type { SampleRow } from "../samples.ts"

/**
 * Heart rates stored by an HRM-Swim / HRM-Tri strap in FIT `hr` messages (global 132), merged
 * into the records by timestamp.
 *
 * FIT profile semantics: an anchor `hr` message carries `timestamp` (+ `fractional_timestamp`) and
 * one `event_timestamp` (seconds, 1/1024 resolution, counted by the strap); the messages after it
 * carry up to 8 `filtered_bpm` values with `event_timestamp_12`, eight 12-bit little-endian packed
 * values that accumulate onto the previous event timestamp. The instant of a beat value is the
 * anchor's timestamp plus its event-timestamp distance to the anchor's event timestamp.
 */
export interface StrapHeartRate {
  /** epoch ms */
  readonly time: number
  readonly bpm: number
}

type Msg = Record<string, unknown>

const EVENT_TIMESTAMP_ROLLOVER = 2 ** 32 / 1024 // seconds
/** A record takes the last strap value at most this long before it when no value falls in its interval. */
const CARRY_FORWARD_MS = 5_000

const asArray = (value: unknown): ReadonlyArray<unknown> =>
  Array.isArray(value) ? value : value === undefined || value === null ? [] : [value]

/** Unpacks eight 12-bit little-endian values from the 12 bytes of `event_timestamp_12`. */
const unpack12 = (bytes: ReadonlyArray<unknown>): Array<number> => {
  const b = bytes.map((x) => (typeof x === "number" ? x & 0xff : 0))
  const out: Array<number> = []
  const count = Math.floor((b.length * 8) / 12)
  for (let k = 0; k < count; k++) {
    const j = (3 * k) >> 1
    const lo = b[j] ?? 0
    const hi = b[j + 1] ?? 0
    out.push(k % 2 === 0 ? lo | ((hi & 0x0f) << 8) : (lo >> 4) | (hi << 4))
  }
  return out
}

export const expandStrapHeartRates = (messages: ReadonlyArray<Msg>): Array<StrapHeartRate> => {
  const out: Array<StrapHeartRate> = []
  let anchorTime: number | null = null
  let anchorEvent = 0 // seconds
  let lastEventRaw = 0 // 1/1024 s units
  for (const m of messages) {
    const bpms = asArray(m["filtered_bpm"])
    const events = asArray(m["event_timestamp"])
    const timestamp = m["timestamp"]
    if (timestamp instanceof Date && events.length >= 1 && typeof events[0] === "number") {
      const fraction = typeof m["fractional_timestamp"] === "number" ? m["fractional_timestamp"] : 0
      anchorTime = timestamp.getTime() + fraction * 1000
      anchorEvent = events[0]
      lastEventRaw = Math.round(anchorEvent * 1024)
    }
    if (anchorTime === null) continue // values before any anchor cannot be placed in time
    let eventSeconds: Array<number>
    const packed = m["event_timestamp12"] ?? m["event_timestamp_12"]
    if (Array.isArray(packed)) {
      eventSeconds = unpack12(packed).map((v) => {
        lastEventRaw = lastEventRaw + ((v - (lastEventRaw & 0xfff)) & 0xfff)
        return lastEventRaw / 1024
      })
    } else {
      eventSeconds = events.map((e) => (typeof e === "number" ? e : NaN))
      const lastEvent = eventSeconds[eventSeconds.length - 1]
      if (lastEvent !== undefined && Number.isFinite(lastEvent)) lastEventRaw = Math.round(lastEvent * 1024)
    }
    const n = Math.min(eventSeconds.length, bpms.length)
    for (let i = 0; i < n; i++) {
      const bpm = bpms[i]
      let event = eventSeconds[i]!
      if (typeof bpm !== "number" || bpm <= 0 || bpm >= 255 || !Number.isFinite(event)) continue
      if (event < anchorEvent && anchorEvent - event > EVENT_TIMESTAMP_ROLLOVER / 2) event += EVENT_TIMESTAMP_ROLLOVER
      out.push({ time: anchorTime + (event - anchorEvent) * 1000, bpm })
    }
  }
  return out.sort((a, b) => a.time - b.time)
}

/**
 * Fills the heart rate of rows (sorted by time) that have none: the rounded mean of the strap
 * values in (previous row time, row time], else the last strap value of the 5 s before the row.
 */
export const mergeStrapHeartRates = (rows: Array<SampleRow>, strap: ReadonlyArray<StrapHeartRate>): void => {
  if (strap.length === 0) return
  let j = 0
  let previous = -Infinity
  for (const row of rows) {
    const start = Number.isFinite(previous) ? previous : row.time - 1000
    while (j < strap.length && strap[j]!.time <= start) j++
    let sum = 0
    let count = 0
    let k = j
    while (k < strap.length && strap[k]!.time <= row.time) {
      sum += strap[k]!.bpm
      count++
      k++
    }
    if (row.heartRate === null) {
      if (count > 0) row.heartRate = Math.round(sum / count)
      else if (j > 0 && row.time - strap[j - 1]!.time <= CARRY_FORWARD_MS) row.heartRate = strap[j - 1]!.bpm
    }
    j = k
    previous = row.time
  }
}
