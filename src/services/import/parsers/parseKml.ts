import CheapRuler from "cheap-ruler"
import type { FileFormat, ParsedActivity } from "../../../schema/ParsedActivity.ts"
import { ActivityFileError } from "./ActivityFileError.ts"
import { buildSamples, checkSampleCount, dropBackwardGlitches, emptyRow, parseNumber, type SampleRow } from "./samples.ts"
import { resolveSportName } from "./sportNames.ts"
import { child, children, isNode, parseIsoTime, readXml, rootOf, text, type XmlDocument, type XmlNode } from "./xml.ts"

/**
 * Reads a KML recording (Google Earth, OpenTracks, FitTrackee's exports) as the GPX parser reads
 * a GPX: the same ParsedActivity, built from the same samples, within the same bounds (the XML
 * reader's size, element and nesting limits, MAX_SAMPLES).
 *
 * What is a recording in KML:
 * - a `gx:Track` (KML 2.3: `Track`) in a Placemark, alone, in a `gx:MultiTrack` or in a
 *   `MultiGeometry`: its `<when>` instants and `<gx:coord>` positions (`lon lat alt`, one per
 *   `when`, in the same order, whether the two lists follow each other or interleave), and the
 *   values of its `ExtendedData/SchemaData/gx:SimpleArrayData` arrays named `heartrate`
 *   (`heart_rate`, `hr`), `cadence`, `power`, `speed` and `temperature`, one per `when`;
 * - a `LineString` of a Placemark that has a `TimeSpan` (`begin` and `end`): its points are
 *   timed along the line at an even pace from begin to end, the only times the file gives.
 *
 * Each track is a recording segment; tracks more than a day apart are separate activities, as
 * in a GPX. The activity is named by its Placemark (by the Document when its tracks come from
 * several), its sport read from OpenTracks' activity type (`ExtendedData/Data[@name=type]`) or
 * icon, else a Workout. KML has no device totals: they are all computed.
 */

/** The formats a KML comes in: on its own, or zipped as a KMZ's `doc.kml`. */
export type KmlFormat = Extract<FileFormat, "kml" | "kmz">

const fail = (message: string): never => {
  throw new ActivityFileError({ message })
}

type Field = "heartRate" | "cadence" | "power" | "speed" | "temperature"
const ARRAY_FIELDS: ReadonlyMap<string, Field> = new Map<string, Field>([
  ["heartrate", "heartRate"], ["heart_rate", "heartRate"], ["hr", "heartRate"], ["cadence", "cadence"], ["power", "power"],
  ["speed", "speed"], ["temperature", "temperature"], ["temp", "temperature"]
])

/** A timed track of the file: its rows (one recording segment) and the Placemark it belongs to. */
interface TimedTrack {
  readonly placemark: XmlNode
  readonly rows: ReadonlyArray<SampleRow>
}

/** Every Placemark of the document, in file order, however deep in Documents and Folders. */
const placemarksOf = (node: XmlNode, found: Array<XmlNode> = []): Array<XmlNode> => {
  for (const [key, value] of Object.entries(node)) {
    if (key !== "Document" && key !== "Folder" && key !== "Placemark") continue
    for (const item of Array.isArray(value) ? value : [value]) {
      if (!isNode(item)) continue
      if (key === "Placemark") found.push(item)
      else placemarksOf(item, found)
    }
  }
  return found
}

/** The geometries of a Placemark of a kind (`Track`, `LineString`), alone or in a MultiTrack or MultiGeometry. */
const geometries = (placemark: XmlNode, kind: string): Array<XmlNode> => [
  ...children(placemark, kind),
  ...children(placemark, "MultiTrack").flatMap((m) => children(m, kind)),
  ...children(placemark, "MultiGeometry").flatMap((g) => [...children(g, kind), ...children(g, "MultiTrack").flatMap((m) => children(m, kind))])
]

/** The text of an element read as a string or as an element with text. */
const textValue = (value: unknown): string | null => {
  const t = isNode(value) ? value["#text"] : value
  return typeof t === "string" && t.trim() !== "" ? t.trim() : null
}

/** The rows of a gx:Track: a sample per `when`, its position and array values by the same index. */
const trackRows = (doc: XmlDocument, track: XmlNode): Array<SampleRow> => {
  const whens = children(track, "when").map((w) => textValue(w))
  const coords = [...doc.points(track)].map((c) => textValue(c))
  const arrays: Array<readonly [Field, Array<string | null>]> = []
  for (const schemaData of children(child(track, "ExtendedData"), "SchemaData")) {
    for (const array of children(schemaData, "SimpleArrayData")) {
      const field = ARRAY_FIELDS.get((text(array, "@_name") ?? "").toLowerCase())
      if (field !== undefined) arrays.push([field, children(array, "value").map((v) => textValue(v))])
    }
  }
  const rows: Array<SampleRow> = []
  for (let i = 0; i < whens.length; i++) {
    const time = parseIsoTime(whens[i] ?? null)
    if (time === null) continue
    const row = emptyRow(time)
    const [lng, lat, altitude] = (coords[i] ?? "").split(/[\s,]+/)
    row.lng = parseNumber(lng)
    row.lat = parseNumber(lat)
    row.altitude = parseNumber(altitude)
    for (const [field, values] of arrays) if (row[field] === null) row[field] = parseNumber(values[i])
    rows.push(row)
  }
  return rows
}

/** The span a Placemark's TimeSpan (or gx:TimeSpan) gives, when it has both ends in order. */
const timeSpanOf = (placemark: XmlNode): { readonly begin: number; readonly end: number } | null => {
  const span = child(placemark, "TimeSpan")
  const begin = parseIsoTime(text(span, "begin"))
  const end = parseIsoTime(text(span, "end"))
  return begin !== null && end !== null && end >= begin ? { begin, end } : null
}

/** The rows of a LineString timed by its Placemark's span: each point at an even pace along the line. */
const lineRows = (line: XmlNode, span: { readonly begin: number; readonly end: number }): Array<SampleRow> => {
  const points = (text(line, "coordinates") ?? "").split(/\s+/).flatMap((tuple) => {
    const [lng, lat, altitude] = tuple.split(",").map(parseNumber)
    return lng == null || lat == null ? [] : [{ lat, lng, altitude: altitude ?? null }]
  })
  if (points.length === 0) return []
  const ruler = new CheapRuler(points[0]!.lat, "meters")
  const along = [0]
  for (let i = 1; i < points.length; i++) along.push(along[i - 1]! + ruler.distance([points[i - 1]!.lng, points[i - 1]!.lat], [points[i]!.lng, points[i]!.lat]))
  const length = along[along.length - 1]!
  return points.map((p, i) => {
    // a line that goes nowhere is timed by its points' order
    const share = length > 0 ? along[i]! / length : points.length === 1 ? 0 : i / (points.length - 1)
    const row = emptyRow(Math.round(span.begin + share * (span.end - span.begin)))
    row.lat = p.lat
    row.lng = p.lng
    row.altitude = p.altitude
    return row
  })
}

/** Tracks more than this apart are separate activities (a file of several outings), as in a GPX. */
const SEPARATE_MS = 24 * 3600 * 1000

/** Tracks in order of start, cut where one starts more than SEPARATE_MS after all before it have ended. */
const outings = (tracks: ReadonlyArray<TimedTrack>): Array<Array<TimedTrack>> => {
  const spans = tracks.map((t) => {
    let from = Infinity
    let to = -Infinity
    for (const row of t.rows) (from = Math.min(from, row.time), to = Math.max(to, row.time))
    return { t, from, to }
  }).sort((a, b) => a.from - b.from)
  const groups: Array<Array<TimedTrack>> = []
  let end = -Infinity
  for (const { from, t, to } of spans) {
    if (from - end > SEPARATE_MS) groups.push([])
    groups[groups.length - 1]!.push(t)
    end = Math.max(end, to)
  }
  return groups
}

/** OpenTracks' activity type (a word the athlete chose, `ExtendedData/Data[@name=type]`) or icon, as a sport. */
const sportOf = (placemark: XmlNode) => {
  const typed = children(child(placemark, "ExtendedData"), "Data").find((d) => text(d, "@_name") === "type")
  return resolveSportName(text(typed, "value")) ?? resolveSportName(text(placemark, "icon"))
}

export const parseKml = (bytes: Uint8Array, name: string, format: KmlFormat = "kml"): ReadonlyArray<ParsedActivity> => {
  // the positions are read one by one as the tracks are walked, like the points of a GPX
  const doc = readXml(bytes, name, "coord")
  const root = rootOf(doc.root)
  if (root === null || root.name !== "kml") fail(`"${name}" is not a KML file (root element ${root === null ? "missing" : `<${root!.name}>`})`)
  const kml = root!.node
  const placemarks = placemarksOf(kml)
  checkSampleCount(placemarks.reduce((n, p) => n + geometries(p, "Track").reduce((m, t) => m + children(t, "when").length, 0), 0), name, "track points")
  const tracks: Array<TimedTrack> = []
  for (const placemark of placemarks) {
    for (const track of geometries(placemark, "Track")) tracks.push({ placemark, rows: trackRows(doc, track) })
    const span = timeSpanOf(placemark)
    if (span !== null) for (const line of geometries(placemark, "LineString")) tracks.push({ placemark, rows: lineRows(line, span) })
  }
  const timed = tracks.filter((t) => t.rows.length > 0)
  if (timed.length === 0) fail(`"${name}" holds no timed track (a gx:Track with <when> times, or a LineString with a TimeSpan)`)
  const document = child(kml, "Document")
  const groups = outings(timed)
  return groups.map((group): ParsedActivity => {
    const repairs: Array<string> = []
    const rows: Array<SampleRow> = []
    for (const track of group) {
      const kept = dropBackwardGlitches(track.rows, repairs)
      if (kept.length >= 2) kept[0]!.segmentStart = true
      for (const row of kept) rows.push(row)
    }
    const samples = buildSamples(rows, repairs)
    const own = [...new Set(group.map((t) => t.placemark))]
    // a Placemark names its tracks; tracks of several are named by the Document, when it is the file's only activity
    const named = own.length === 1 ? own[0]! : groups.length === 1 ? document : undefined
    return {
      format,
      sportType: own.map(sportOf).find((s) => s !== null) ?? "Workout",
      name: text(named, "name"),
      description: text(named, "description"),
      deviceName: text(document, "generator"),
      startTime: samples.time[0]!,
      utcOffsetSeconds: null,
      totals: {
        distanceMeters: null, elapsedSeconds: null, timerSeconds: null, ascentMeters: null, calories: null, workJoules: null,
        averageHeartRate: null, maxHeartRate: null, averagePower: null, maxPower: null, averageCadence: null, averageSpeed: null, maxSpeed: null
      },
      startLatLng: null,
      samples,
      laps: [],
      repairs
    }
  })
}
