import type { ParsedActivity } from "../../../schema/ParsedActivity.ts"
import type { SportType } from "../../../schema/SportType.ts"
import { ActivityFileError } from "./ActivityFileError.ts"
import { trackCalories, workoutSummary } from "./gpxSummary.ts"
import { buildSamples, checkSampleCount, emptyRow, parseNumber, type SampleRow, validLatLng } from "./samples.ts"
import { resolveSportName } from "./sportNames.ts"
import { child, children, countChildren, isNode, parseIsoTime, readXml, rootOf, text, type XmlNode } from "./xml.ts"

const fail = (message: string): never => {
  throw new ActivityFileError({ message })
}

const MAX_ELEVATION = 9999.99
const STRAVA_CODES: ReadonlyMap<number, SportType> = new Map([[1, "Ride"], [4, "Hike"], [9, "Run"], [10, "Walk"]])

/** trk/type: Strava numeric codes (1 Ride, 4 Hike, 9 Run, 10 Walk, other numbers Workout) or a sport name. */
export const gpxSport = (type: string | null): SportType => {
  if (type === null) return "Workout"
  if (/^\d+$/.test(type)) return STRAVA_CODES.get(Number(type)) ?? "Workout"
  return resolveSportName(type) ?? "Workout"
}

type Field = "heartRate" | "cadence" | "power" | "temperature"
const EXTENSION_FIELDS: ReadonlyMap<string, Field> = new Map<string, Field>([
  ["hr", "heartRate"], ["heartrate", "heartRate"], ["heart_rate", "heartRate"],
  ["cad", "cadence"], ["cadence", "cadence"],
  ["power", "power"], ["powerinwatts", "power"],
  ["atemp", "temperature"], ["temp", "temperature"], ["temperature", "temperature"]
])
const MAX_EXTENSION_DEPTH = 8

/** Searches an extensions element recursively (bounded depth) for hr, cadence, power and temperature. */
const readExtensions = (node: unknown, row: SampleRow, depth: number): void => {
  if (!isNode(node) || depth > MAX_EXTENSION_DEPTH) return
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith("@_")) continue
    const field = EXTENSION_FIELDS.get(key.toLowerCase())
    const first = Array.isArray(value) ? value[0] : value
    if (field !== undefined && row[field] === null) {
      const n = parseNumber(isNode(first) ? first["#text"] : first)
      if (n !== null) {
        row[field] = n
        continue
      }
    }
    if (isNode(first)) readExtensions(first, row, depth + 1)
  }
}

export const parseGpx = (bytes: Uint8Array, name: string): ReadonlyArray<ParsedActivity> => {
  const root = rootOf(readXml(bytes, name))
  if (root === null || root.name !== "gpx") {
    return fail(`"${name}" is not a GPX file (root element ${root === null ? "missing" : `<${root.name}>`})`)
  }
  const gpx = root.node
  const tracks = children(gpx, "trk")
  if (tracks.length === 0) {
    if (children(gpx, "rte").length > 0) return fail(`"${name}" is a route (<rte> only), not a recorded activity`)
    return fail(`"${name}" contains no track (<trk>)`)
  }
  const segments = tracks.flatMap((trk) => children(trk, "trkseg"))
  checkSampleCount(segments.reduce((total, seg) => total + countChildren(seg, "trkpt"), 0), name, "track points")
  const rows: Array<SampleRow> = []
  for (const trk of tracks) {
    for (const seg of children(trk, "trkseg")) {
      const segRows: Array<SampleRow> = []
      for (const pt of children(seg, "trkpt")) {
        const t = parseIsoTime(text(pt, "time"))
        if (t === null) continue
        const row = emptyRow(t)
        const pos = validLatLng(parseNumber(text(pt, "@_lat")), parseNumber(text(pt, "@_lon")))
        if (pos !== null) {
          row.lat = pos[0]
          row.lng = pos[1]
        }
        const ele = parseNumber(text(pt, "ele"))
        row.altitude = ele !== null && Math.abs(ele) <= MAX_ELEVATION ? ele : null
        row.speed = parseNumber(text(pt, "speed")) // GPX 1.0 <speed>, m/s
        readExtensions(child(pt, "extensions"), row, 0)
        segRows.push(row)
      }
      // Each trkseg with at least 2 timed points starts a recording segment.
      if (segRows.length >= 2) segRows[0]!.segmentStart = true
      for (const row of segRows) rows.push(row) // not push(...): a long segment would overflow the stack
    }
  }
  if (rows.length === 0) fail(`"${name}" has no track points with a time`)
  const samples = buildSamples(rows)
  const metadata: XmlNode | undefined = child(gpx, "metadata")
  const firstType = tracks.map((t) => text(t, "type")).find((t) => t !== null) ?? null
  const firstTrkName = tracks.map((t) => text(t, "name")).find((t) => t !== null) ?? null
  const firstTrkDesc = tracks.map((t) => text(t, "desc")).find((t) => t !== null) ?? null
  const metadataName = text(metadata, "name")
  // A FitoTrack-style workout dump in <metadata><name> is a summary, not a name.
  const summary = workoutSummary(metadataName)
  return [{
    format: "gpx",
    sportType: gpxSport(firstType),
    name: (summary === null ? metadataName : null) ?? firstTrkName,
    description: summary?.description ?? text(metadata, "desc") ?? firstTrkDesc,
    deviceName: text(gpx, "@_creator"),
    startTime: samples.time[0]!,
    utcOffsetSeconds: null,
    totals: {
      distanceMeters: summary?.distanceMeters ?? null,
      elapsedSeconds: summary?.elapsedSeconds ?? null,
      timerSeconds: summary?.timerSeconds ?? null,
      ascentMeters: null,
      calories: trackCalories(tracks) ?? summary?.calories ?? null,
      workJoules: null, averageHeartRate: null, maxHeartRate: null, averagePower: null, maxPower: null,
      averageCadence: null, averageSpeed: null, maxSpeed: null
    },
    startLatLng: null,
    samples,
    laps: []
  }]
}
