import { type ActivityStreams, sampleCount } from "../../schema/ActivityDraft.ts"

/**
 * GPX 1.1 export of an activity's streams: creator "Waymark", one
 * `<trk>` with a `<trkseg>` per stretch recorded without a gap (a new one after each recording
 * gap of over 5 minutes, as GPX marks a receiver stopped: no distance is counted across it),
 * one `<trkpt>` per time sample, with lat/lon only where a position
 * exists, `<ele>`, `<time>` and `<extensions>` holding `<power>` and a Garmin
 * TrackPointExtension v1 (atemp, hr, cad), each only when present. The activity's own totals
 * go in the track's Garmin TrackStatsExtension (as Garmin's devices write them), so that what a
 * device measured beyond the points (a wheel sensor's distance, a barometer's ascent, its timer,
 * a strap's average) travels with the file, and an import of it (this service's or another
 * reader's) agrees with the activity. Built as an array of parts joined once (40k points stay a
 * few tens of milliseconds).
 */
export interface GpxTrackStats {
  readonly distanceInMeter: number
  readonly movingTimeInSeconds: number
  readonly elapsedTimeInSeconds: number
  readonly elevationInMeter: number
  readonly maxSpeedInKmPerHour: number
  readonly calories?: number | null | undefined
  readonly averageHeartRate?: number | null | undefined
  readonly maxHeartRate?: number | null | undefined
  readonly averageCadence?: number | null | undefined
}

export interface GpxInput {
  readonly name: string
  readonly sportType: string
  readonly description: string
  /** epoch ms */
  readonly startTime: number
  readonly streams: ActivityStreams
  readonly stats?: GpxTrackStats
}

/** The TrackStatsExtension of the track: Garmin's element names, metres, seconds, m/s. */
const trackStats = (stats: GpxTrackStats): string => {
  const fields: Array<readonly [string, number | null | undefined]> = [
    ["Distance", stats.distanceInMeter],
    ["TimerTime", stats.movingTimeInSeconds],
    ["TotalElapsedTime", stats.elapsedTimeInSeconds],
    ["MovingTime", stats.movingTimeInSeconds],
    ["MaxSpeed", Math.round((stats.maxSpeedInKmPerHour / 3.6) * 100) / 100],
    ["Ascent", stats.elevationInMeter],
    ["Calories", stats.calories],
    ["AvgHeartRate", stats.averageHeartRate],
    ["MaxHeartRate", stats.maxHeartRate],
    ["AvgCadence", stats.averageCadence]
  ]
  const lines = fields.filter(([, v]) => num(v ?? undefined)).map(([key, v]) => `    <gpxtrkx:${key}>${v}</gpxtrkx:${key}>\n`)
  return `  <extensions>\n   <gpxtrkx:TrackStatsExtension>\n${lines.map((l) => ` ${l}`).join("")}   </gpxtrkx:TrackStatsExtension>\n  </extensions>\n`
}

/**
 * A gap between samples longer than this (s) ends a track segment: the recording stopped (a
 * pause), longer than any recording interval (a swim's watch writes a fix every minute).
 */
const RECORDING_GAP_S = 300

const XML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&apos;" }

/** Escapes XML special characters and drops characters XML 1.0 forbids. */
export const escapeXml = (text: string): string =>
  text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, "")
    .replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!)

/** `YYYY-MM-DDTHH:mm:ss.000Z` (whole seconds, UTC). */
const utc = (epochMs: number): string => new Date(Math.floor(epochMs / 1000) * 1000).toISOString()

const num = (v: number | undefined): v is number => typeof v === "number" && Number.isFinite(v)

export const writeGpx = (input: GpxInput): string => {
  const { streams } = input
  const out: Array<string> = [
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
    "<gpx creator=\"Waymark\" version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"",
    " xmlns:gpxtpx=\"http://www.garmin.com/xmlschemas/TrackPointExtension/v1\"",
    " xmlns:gpxx=\"http://www.garmin.com/xmlschemas/GpxExtensions/v3\"",
    " xmlns:gpxtrkx=\"http://www.garmin.com/xmlschemas/TrackStatsExtension/v1\"",
    " xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"",
    " xsi:schemaLocation=\"http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd",
    " http://www.garmin.com/xmlschemas/GpxExtensions/v3 http://www.garmin.com/xmlschemas/GpxExtensionsv3.xsd",
    " http://www.garmin.com/xmlschemas/TrackPointExtension/v1 http://www.garmin.com/xmlschemas/TrackPointExtensionv1.xsd\">\n",
    ` <metadata>\n  <time>${utc(input.startTime)}</time>\n </metadata>\n`,
    " <trk>\n",
    `  <name>${escapeXml(input.name)}</name>\n`
  ]
  // GPX 1.1 orders a track's children: name, cmt, desc, src, link, number, type, extensions, trkseg
  if (input.description.trim() !== "") out.push(`  <desc>${escapeXml(input.description)}</desc>\n`)
  out.push(`  <type>${escapeXml(input.sportType)}</type>\n`)
  if (input.stats !== undefined) out.push(trackStats(input.stats))
  out.push("  <trkseg>\n")
  const { time, latlng, altitude, heartrate, cadence, watts, temp } = streams
  // a route whose times are unknown is written without them
  for (let i = 0; i < sampleCount(streams); i++) {
    if (time !== undefined && i > 0 && time[i]! - time[i - 1]! > RECORDING_GAP_S) out.push("  </trkseg>\n  <trkseg>\n")
    const p = latlng?.[i]
    out.push(p ? `   <trkpt lat="${p[0]}" lon="${p[1]}">\n` : "   <trkpt>\n")
    const ele = altitude?.[i]
    if (num(ele)) out.push(`    <ele>${ele}</ele>\n`)
    if (time !== undefined) out.push(`    <time>${utc(input.startTime + time[i]! * 1000)}</time>\n`)
    const power = watts?.[i]
    const atemp = temp?.[i]
    const hr = heartrate?.[i]
    const cad = cadence?.[i]
    const tpx = num(atemp) || num(hr) || num(cad)
    if (num(power) || tpx) {
      out.push("    <extensions>\n")
      if (num(power)) out.push(`     <power>${power}</power>\n`)
      if (tpx) {
        out.push("     <gpxtpx:TrackPointExtension>\n")
        if (num(atemp)) out.push(`      <gpxtpx:atemp>${atemp}</gpxtpx:atemp>\n`)
        if (num(hr)) out.push(`      <gpxtpx:hr>${hr}</gpxtpx:hr>\n`)
        if (num(cad)) out.push(`      <gpxtpx:cad>${cad}</gpxtpx:cad>\n`)
        out.push("     </gpxtpx:TrackPointExtension>\n")
      }
      out.push("    </extensions>\n")
    }
    out.push("   </trkpt>\n")
  }
  out.push("  </trkseg>\n </trk>\n</gpx>\n")
  return out.join("")
}

/** `<YYYY-MM-DD>-<slug>.gpx`; the slug is the words `[\p{L}0-9]+`, lowercased, joined with `-`. */
export const gpxFilename = (startDateLocal: string, name: string): string => {
  const slug = (name.match(/[\p{L}0-9]+/gu) ?? []).map((w) => w.toLowerCase()).join("-")
  return `${startDateLocal.slice(0, 10)}-${slug === "" ? "activity" : slug}.gpx`
}

/** ASCII fallback for Content-Disposition `filename=` (chars outside `[A-Za-z0-9._-]` become `_`). */
export const asciiFallback = (filename: string): string => filename.replace(/[^A-Za-z0-9._-]/g, "_")
