import { MAX_SAMPLES } from "../../../schema/ActivityLimits.ts"
import type { ParsedSamples } from "../../../schema/ParsedActivity.ts"
import { ActivityFileError } from "./ActivityFileError.ts"

/** One sample as read from a file, before sorting and merging. */
export interface SampleRow {
  time: number
  lat: number | null
  lng: number | null
  altitude: number | null
  distance: number | null
  speed: number | null
  heartRate: number | null
  cadence: number | null
  power: number | null
  temperature: number | null
  /** first sample of a new recording segment (GPX trkseg, TCX Track) */
  segmentStart: boolean
}

export const emptyRow = (time: number): SampleRow => ({
  time,
  lat: null,
  lng: null,
  altitude: null,
  distance: null,
  speed: null,
  heartRate: null,
  cadence: null,
  power: null,
  temperature: null,
  segmentStart: false
})

/**
 * Refuses a file with more samples than an activity may have (MAX_SAMPLES) before they are
 * read: the samples and every stream computed from them grow with their count.
 */
export const checkSampleCount = (count: number, name: string, what = "samples"): void => {
  if (count > MAX_SAMPLES) {
    throw new ActivityFileError({
      message: `"${name}" has ${count.toLocaleString("en-US")} ${what} (at most ${MAX_SAMPLES.toLocaleString("en-US")})`
    })
  }
}

const FIELDS = ["lat", "lng", "altitude", "distance", "speed", "heartRate", "cadence", "power", "temperature"] as const

/** Whether a fix is a position: not 0/0, within range and finite. */
const isLatLng = (lat: number | null | undefined, lng: number | null | undefined): lat is number =>
  lat != null && lng != null && Number.isFinite(lat) && Number.isFinite(lng) && Math.abs(lat) <= 90 && Math.abs(lng) <= 180 &&
  !(lat === 0 && lng === 0)

/** A position, or null for no fix: 0/0, out of range or not finite. */
export const validLatLng = (lat: number | null | undefined, lng: number | null | undefined): readonly [number, number] | null =>
  isLatLng(lat, lng) ? [lat, lng!] : null

/**
 * Rows, in file order, without those whose time runs backwards for one sample only (the
 * rows before and after it agree): a clock glitch, not a later part of the recording. A
 * recording whose clock was set back and runs on from there keeps its rows (they are sorted).
 * Notes how many were dropped in `repairs`.
 */
export const dropBackwardGlitches = <R extends { readonly time: number }>(rows: ReadonlyArray<R>, repairs: Array<string>): ReadonlyArray<R> => {
  const glitch = (i: number) =>
    i > 0 && i + 1 < rows.length && rows[i]!.time < rows[i - 1]!.time && rows[i + 1]!.time >= rows[i - 1]!.time
  let dropped = 0
  for (let i = 1; i + 1 < rows.length; i++) if (glitch(i)) dropped++
  if (dropped === 0) return rows
  repairs.push(`dropped ${dropped.toLocaleString("en-US")} ${dropped === 1 ? "sample whose time runs" : "samples whose time runs"} backwards`)
  return rows.filter((_, i) => !glitch(i))
}

/**
 * Sorts rows by time (stable), merges rows with the same time (the first non-null value of each
 * field wins; a merged row starts a segment when any of its parts did) and returns the columns.
 * `segmentStarts` never contains index 0. Rows are merged in place: they are the parser's own,
 * and a copy of each would double the memory of a long activity. Positions at 0°, 0° or out of
 * range are left out, and counted in `repairs`.
 */
export const buildSamples = (input: ReadonlyArray<SampleRow>, repairs: Array<string> = []): ParsedSamples => {
  const rows = input.every((r) => Number.isFinite(r.time)) ? input : input.filter((r) => Number.isFinite(r.time))
  // Array.prototype.sort is stable, so rows with the same time keep their file order.
  const ordered = isSorted(rows) ? rows : [...rows].sort((a, b) => a.time - b.time)
  const { samples, badPositions } = columnsOf(mergeSameTimes(ordered))
  if (badPositions > 0) {
    repairs.push(`ignored ${badPositions.toLocaleString("en-US")} ${badPositions === 1 ? "position" : "positions"} at 0°, 0° or out of range`)
  }
  return samples
}

// The loops of buildSamples, each a function of its own: the optimizing compiler takes them one
// by one, and a file unlike the ones before sends only the loop it changes back to be compiled.

const isSorted = (rows: ReadonlyArray<SampleRow>): boolean => {
  for (let i = 1; i < rows.length; i++) {
    if (rows[i]!.time < rows[i - 1]!.time) return false
  }
  return true
}

/** One row per time, in order: a later row of the same time fills what the first lacks. */
const mergeSameTimes = (ordered: ReadonlyArray<SampleRow>): Array<SampleRow> => {
  const merged: Array<SampleRow> = []
  for (const row of ordered) {
    const last = merged[merged.length - 1]
    if (last !== undefined && last.time === row.time) {
      for (const f of FIELDS) if (last[f] === null && row[f] !== null) last[f] = row[f]
      // positions are read as written: a fix at 0°, 0° gives way to a real one of the same time
      if (!isLatLng(last.lat, last.lng) && isLatLng(row.lat, row.lng)) {
        last.lat = row.lat
        last.lng = row.lng
      }
      last.segmentStart = last.segmentStart || row.segmentStart
    } else {
      merged.push(row)
    }
  }
  return merged
}

/**
 * The rows as columns, positions at 0°, 0° or out of range left out (and counted). Columns of
 * their final size, filled by index, and no array per position: this runs for every sample of
 * every file.
 */
const columnsOf = (merged: ReadonlyArray<SampleRow>): { readonly samples: ParsedSamples; readonly badPositions: number } => {
  const n = merged.length
  const samples: ParsedSamples = {
    time: new Array(n),
    lat: new Array(n),
    lng: new Array(n),
    altitude: new Array(n),
    distance: new Array(n),
    speed: new Array(n),
    heartRate: new Array(n),
    cadence: new Array(n),
    power: new Array(n),
    temperature: new Array(n),
    segmentStarts: []
  }
  let badPositions = 0
  for (let i = 0; i < n; i++) {
    const r = merged[i]!
    samples.time[i] = r.time
    const valid = isLatLng(r.lat, r.lng)
    if (!valid && r.lat !== null && r.lng !== null) badPositions++
    samples.lat[i] = valid ? r.lat : null
    samples.lng[i] = valid ? r.lng : null
    samples.altitude[i] = r.altitude
    samples.distance[i] = r.distance
    samples.speed[i] = r.speed
    samples.heartRate[i] = r.heartRate
    samples.cadence[i] = r.cadence
    samples.power[i] = r.power
    samples.temperature[i] = r.temperature
    if (r.segmentStart && i > 0) samples.segmentStarts.push(i)
  }
  return { samples, badPositions }
}

/** A finite number, or null. */
export const finite = (value: unknown): number | null =>
  typeof value === "number" && Number.isFinite(value) ? value : null

/** Parses a decimal number from XML text, or null. */
export const parseNumber = (value: unknown): number | null => {
  if (typeof value === "number") return Number.isFinite(value) ? value : null
  if (typeof value !== "string") return null
  const text = value.trim()
  if (text === "") return null
  const n = Number(text)
  return Number.isFinite(n) ? n : null
}
