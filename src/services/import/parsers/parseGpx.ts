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
const STRAVA_CODES: ReadonlyMap<number, SportType> = new Map([[1, "Ride"], [4, "Hike"], [9, "Run"], [10, "Walk"], [16, "Swim"], [17, "VirtualRide"]])

/** trk/type: Strava numeric codes (1 Ride, 4 Hike, 9 Run, 10 Walk, 16 Swim, 17 VirtualRide, other numbers Workout) or a sport name. */
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
  const read = tracks.map((trk) => ({ trk, ...trackRows(doc, trk) }))
  const timed = read.filter((t) => t.timed).map((t) => ({ trk: t.trk, rows: t.rows.filter((r) => Number.isFinite(r.time)) }))
  const { route: untimed, leftOut } = untimedRoute(read.filter((t) => !t.timed && t.rows.length >= 2), timed.length > 0, fileTime(gpx))
  if (timed.length === 0 && untimed === null) fail(`"${name}" has no track points with a time`)
  const metadata: XmlNode | undefined = child(gpx, "metadata")
  const metadataName = text(metadata, "name")
  // A FitoTrack-style workout dump in <metadata><name> is a summary, not a name.
  const summary = workoutSummary(metadataName)
  const groups: Array<ReadonlyArray<TrackRows>> = recordings(timed)
  if (untimed !== null) groups.push(untimed.tracks)
  // in the order they were recorded
  const activities = groups.map((group, k): ParsedActivity => {
    const timesUnknown = untimed !== null && group === untimed.tracks
    const repairs: Array<string> = [...(timesUnknown ? untimed.notes : []), ...(k === 0 ? leftOut : [])]
    const rows: Array<SampleRow> = []
    for (const t of group) for (const row of timesUnknown ? t.rows : dropBackwardGlitches(t.rows, repairs)) rows.push(row) // not push(...): a long track would overflow the stack
    const samples = buildSamples(timesUnknown ? inOrder(rows, untimed.start) : rows, repairs)
    // the file's own name and totals describe it whole: they belong to an activity only when it is the only one
    const whole = groups.length === 1
    // one activity: every track names it, timed or not
    const own = groups.length === 1 ? tracks : group.map((t) => t.trk)
    const firstType = own.map((t) => text(t, "type")).find((t) => t !== null) ?? (whole ? summary?.sport : null) ?? null
    const firstTrkName = own.map((t) => text(t, "name")).find((t) => t !== null) ?? null
    const firstTrkDesc = own.map((t) => text(t, "desc")).find((t) => t !== null) ?? null
    // a track's statistics are its activity's when the activity is that one track
    const stats = (own.length === 1 ? trackStats(own[0]) : null) ?? (whole ? trackStats(metadata) : null)
    const named = gpxSport(firstType)
    return {
      format: "gpx",
      // a swim with a track was swum in open water: a watch records none in a pool
      sportType: named === "Swim" && hasTrack(samples) ? "OpenWaterSwim" : named,
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
      repairs,
      ...(timesUnknown ? { timesUnknown } : {}),
      ...(timesUnknown && untimed.dateUnknown ? { dateUnknown: true } : {}),
      ...(firstType === null ? { sportUnknown: true } : {})
    }
  })
  return activities.sort((a, b) => a.startTime - b.startTime)
}

const hasTrack = (samples: { readonly lat: ReadonlyArray<number | null> }): boolean => {
  let fixes = 0
  for (const lat of samples.lat) if (lat !== null && ++fixes >= 2) return true
  return false
}

/** The time the file says it was written (GPX 1.1 `<metadata><time>`, GPX 1.0 `<time>`), epoch ms, or null. */
const fileTime = (gpx: XmlNode): number | null => parseIsoTime(text(child(gpx, "metadata"), "time")) ?? parseIsoTime(text(gpx, "time"))

interface TrackRows {
  readonly trk: XmlNode
  readonly rows: ReadonlyArray<SampleRow>
}

/**
 * The tracks of the file without usable times (see trackRows) as one route whose times are
 * unknown, dated by the earliest time any of their points carries, else (when the file has no
 * timed track) by the file's own time, else its date is unknown (`dateUnknown`, its start 0);
 * null when there is none, or when nothing dates it in a file that has timed tracks. Its points
 * keep their order, one second apart (see inOrder); `notes` says so in the import's notes. A
 * track without any time of its own in a file that has timed tracks is left out (`leftOut`
 * names it): nothing tells when it was recorded.
 */
const untimedRoute = (tracks: ReadonlyArray<TrackRows>, othersTimed: boolean, written: number | null) => {
  const hasTime = (t: TrackRows) => t.rows.some((r) => Number.isFinite(r.time))
  const own = othersTimed ? tracks.filter(hasTime) : tracks
  const undated = othersTimed ? tracks.filter((t) => !hasTime(t)) : []
  const leftOut = undated.length === 0
    ? []
    : [`left out ${plural(undated.length, "track")} of ${plural(undated.reduce((n, t) => n + t.rows.length, 0), "point")} without any time`]
  let start = Infinity
  for (const t of own) for (const r of t.rows) if (r.time < start) start = r.time
  if (!Number.isFinite(start)) start = othersTimed ? NaN : written ?? NaN
  if (own.length === 0 || (othersTimed && Number.isNaN(start))) return { route: null, leftOut }
  // nothing tells when it was recorded: its date is unknown, its times count from 0 (a stand-in the import replaces)
  const dateUnknown = Number.isNaN(start)
  if (dateUnknown) start = 0
  const points = own.reduce((n, t) => n + t.rows.length, 0)
  const timedPoints = own.reduce((n, t) => n + t.rows.filter((r) => Number.isFinite(r.time)).length, 0)
  const why = timedPoints === 0
    ? "none has a time"
    : timedPoints === points
    ? "they share a few times"
    : `only ${plural(timedPoints, "point")} of them ${timedPoints === 1 ? "has" : "have"} a time`
  const tracksWord = own.length === 1 ? "its track" : `its ${own.length} tracks`
  return {
    route: {
      tracks: own,
      start,
      dateUnknown,
      notes: [
        `times unknown: the ${plural(points, "point")} of ${tracksWord} carry no usable time (${why}); its distance, elevation and route are kept`,
        ...(dateUnknown ? ["date unknown: nothing in the file tells when it was recorded; it is kept out of every total, chart, streak and record"] : [])
      ]
    },
    leftOut
  }
}

/** A route's points in their order, one second apart from `start`: their times are unknown, their order is not. */
const inOrder = (rows: ReadonlyArray<SampleRow>, start: number): Array<SampleRow> => rows.map((r, i) => ({ ...r, time: start + i * 1000 }))

const plural = (n: number, one: string) => `${n.toLocaleString("en-US")} ${n === 1 ? one : `${one}s`}`

/**
 * The points of a track (a point without a time has NaN), each trkseg with at least 2 of them
 * starting a recording segment, and whether the track's times are usable: at least half of its
 * points carry one, and they are distinct (a conversion that wrote one date for every point, or
 * a few seconds for thousands of points, tells nothing of when each was reached).
 */
const trackRows = (doc: XmlDocument, trk: XmlNode): { readonly rows: Array<SampleRow>; readonly timed: boolean } => {
  const rows: Array<SampleRow> = []
  const times = new Set<number>()
  let timedPoints = 0
  for (const seg of children(trk, "trkseg")) {
    const segRows: Array<SampleRow> = []
    for (const pt of doc.points(seg)) {
      const t = parseIsoTime(text(pt, "time")) ?? NaN
      if (!Number.isNaN(t)) {
        timedPoints++
        times.add(t)
      }
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
  const timed = timedPoints * 2 >= rows.length && times.size * 2 >= timedPoints && (times.size >= 2 || rows.length === 1)
  return { rows, timed }
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
