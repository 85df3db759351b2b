import type { ParsedActivity } from "../../../schema/ParsedActivity.ts"
import type { SportType } from "../../../schema/SportType.ts"
import { ActivityFileError } from "./ActivityFileError.ts"
import { trackCalories, trackStats, workoutSummary } from "./gpxSummary.ts"
import { buildSamples, checkSampleCount, dropBackwardGlitches, emptyRow, parseNumber, type SampleRow } from "./samples.ts"
import { resolveSportName } from "./sportNames.ts"
import { child, children, isNode, parseIsoTime, readXml, rootOf, text, type XmlDocument, type XmlNode } from "./xml.ts"

const fail = (message: string): never => {
  throw new ActivityFileError({ message })
}

const MAX_ELEVATION = 9999.99
const STRAVA_CODES: ReadonlyMap<number, SportType> = new Map([[1, "Ride"], [4, "Hike"], [9, "Run"], [10, "Walk"], [17, "VirtualRide"]])

/** trk/type: Strava numeric codes (1 Ride, 4 Hike, 9 Run, 10 Walk, 17 VirtualRide, other numbers Workout) or a sport name. */
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
  const doc = readXml(bytes, name, "trkpt")
  const root = rootOf(doc.root)
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
  checkSampleCount(segments.reduce((total, seg) => total + doc.countPoints(seg), 0), name, "track points")
  const timed = tracks.map((trk) => ({ trk, rows: trackRows(doc, trk) })).filter((t) => t.rows.length > 0)
  if (timed.length === 0) fail(`"${name}" has no track points with a time`)
  const metadata: XmlNode | undefined = child(gpx, "metadata")
  const metadataName = text(metadata, "name")
  // A FitoTrack-style workout dump in <metadata><name> is a summary, not a name.
  const summary = workoutSummary(metadataName)
  const groups = recordings(timed)
  return groups.map((group): ParsedActivity => {
    const repairs: Array<string> = []
    const rows: Array<SampleRow> = []
    for (const t of group) for (const row of dropBackwardGlitches(t.rows, repairs)) rows.push(row) // not push(...): a long track would overflow the stack
    const samples = buildSamples(rows, repairs)
    // one activity: every track names it, timed or not
    const own = groups.length === 1 ? tracks : group.map((t) => t.trk)
    const firstType = own.map((t) => text(t, "type")).find((t) => t !== null) ?? null
    const firstTrkName = own.map((t) => text(t, "name")).find((t) => t !== null) ?? null
    const firstTrkDesc = own.map((t) => text(t, "desc")).find((t) => t !== null) ?? null
    // the file's own name and totals describe it whole: they belong to an activity only when it is the only one
    const whole = groups.length === 1
    // a track's statistics are its activity's when the activity is that one track
    const stats = (own.length === 1 ? trackStats(own[0]) : null) ?? (whole ? trackStats(metadata) : null)
    return {
      format: "gpx",
      sportType: gpxSport(firstType),
      name: (whole && summary === null ? metadataName : null) ?? firstTrkName,
      description: (whole ? summary?.description ?? text(metadata, "desc") : null) ?? firstTrkDesc,
      deviceName: text(gpx, "@_creator"),
      startTime: samples.time[0]!,
      utcOffsetSeconds: null,
      totals: {
        distanceMeters: stats?.distanceMeters ?? (whole ? summary?.distanceMeters ?? null : null),
        elapsedSeconds: stats?.elapsedSeconds ?? (whole ? summary?.elapsedSeconds ?? null : null),
        timerSeconds: stats?.timerSeconds ?? (whole ? summary?.timerSeconds ?? null : null),
        ascentMeters: stats?.ascentMeters ?? null,
        calories: trackCalories(own) ?? (whole ? summary?.calories ?? null : null),
        workJoules: null,
        averageHeartRate: stats?.averageHeartRate ?? null,
        maxHeartRate: stats?.maxHeartRate ?? null,
        averagePower: null,
        maxPower: null,
        averageCadence: stats?.averageCadence ?? null,
        averageSpeed: null,
        maxSpeed: stats?.maxSpeed ?? null
      },
      startLatLng: null,
      samples,
      laps: [],
      repairs
    }
  })
}

/** The timed points of a track, each trkseg with at least 2 of them starting a recording segment. */
const trackRows = (doc: XmlDocument, trk: XmlNode): Array<SampleRow> => {
  const rows: Array<SampleRow> = []
  for (const seg of children(trk, "trkseg")) {
    const segRows: Array<SampleRow> = []
    for (const pt of doc.points(seg)) {
      const t = parseIsoTime(text(pt, "time"))
      if (t === null) continue
      const row = emptyRow(t)
      // positions are checked as the samples are built, which counts the impossible ones
      row.lat = parseNumber(text(pt, "@_lat"))
      row.lng = parseNumber(text(pt, "@_lon"))
      const ele = parseNumber(text(pt, "ele"))
      row.altitude = ele !== null && Math.abs(ele) <= MAX_ELEVATION ? ele : null
      row.speed = parseNumber(text(pt, "speed")) // GPX 1.0 <speed>, m/s
      readExtensions(child(pt, "extensions"), row, 0)
      segRows.push(row)
    }
    if (segRows.length >= 2) segRows[0]!.segmentStart = true
    for (const row of segRows) rows.push(row)
  }
  return rows
}

/** Tracks recorded more than this apart are separate activities (a file of several outings). */
export const SEPARATE_TRACKS_MS = 24 * 3600 * 1000

/**
 * The tracks grouped into recordings: ordered by their first time, a track starting more than
 * SEPARATE_TRACKS_MS after every track before it has ended begins a new activity.
 */
const recordings = <T extends { readonly rows: ReadonlyArray<SampleRow> }>(tracks: ReadonlyArray<T>): Array<Array<T>> => {
  const bounds = (rows: ReadonlyArray<SampleRow>) => {
    let from = Infinity
    let to = -Infinity
    for (const r of rows) {
      if (r.time < from) from = r.time
      if (r.time > to) to = r.time
    }
    return { from, to }
  }
  const ordered = tracks.map((t) => ({ t, ...bounds(t.rows) })).sort((a, b) => a.from - b.from)
  const groups: Array<Array<T>> = []
  let end = -Infinity
  for (const { t, from, to } of ordered) {
    if (groups.length === 0 || from - end > SEPARATE_TRACKS_MS) groups.push([])
    groups[groups.length - 1]!.push(t)
    end = Math.max(end, to)
  }
  return groups
}
