import * as fs from "node:fs"
import * as path from "node:path"
import * as zlib from "node:zlib"
import type { SportType } from "../../src/schema/SportType.ts"
import { parsedCorpusFile, readCorpusFile } from "./corpus.ts"
import { kmlOf } from "./kmlOf.ts"
import { writeZipFile, zipBuffer, type ZipEntry } from "./zipWriter.ts"

/**
 * The exports of the peers whose archives the import opens, laid out as each peer writes them
 * (the layouts are stated where each is read, in src/services/import/exports), from activity
 * files of the shared corpus or bytes made from them. Each builder yields the archive's entries
 * as it goes, the activity files first and the metadata that lists them last, so that an export
 * of thousands of files is written without holding them all; `asZip`, `writeZip` and
 * `writeFolder` make of them the zip a person downloads or the folder it unpacks to.
 */

/** An activity file to put in an export, and the start of each activity the import reads from it. */
export interface SourceFile {
  /** its name, with its extension (`garmin-fenix5-run.fit`) */
  readonly name: string
  readonly bytes: Uint8Array
  /** UTC ms, one per activity of the file, as the import reads them */
  readonly starts: ReadonlyArray<number>
  /** UTC ms, when its last activity ends */
  readonly end: number
  /** the sport of its first activity as the import reads it */
  readonly sport: SportType
}

/**
 * A file of the corpus (`fit/garmin-fenix5-run.fit`), with its activities' starts read by the
 * import's own parser (once per process: parsedCorpusFile). Its bytes are read from the corpus
 * each time, so that a test may do with them what it likes.
 */
export const corpusSource = async (file: string): Promise<SourceFile> => {
  const bytes = readCorpusFile(file)
  const activities = await parsedCorpusFile(file)
  const ends = activities.map((a) => a.samples.time[a.samples.time.length - 1] ?? a.startTime)
  return { name: path.basename(file), bytes, starts: activities.map((a) => a.startTime), end: Math.max(...ends), sport: activities[0]!.sportType }
}

/** Several files of the corpus, in the order named. */
export const corpusSources = (...files: Array<string>): Promise<Array<SourceFile>> => Promise.all(files.map(corpusSource))

/**
 * The Garmin Connect export the export tests share: a described run, a commute ride, a triathlon
 * (one file, several legs, one summary) and a treadmill run recorded as TCX, in two parts.
 */
export const garminSample = async () => {
  const [run, ride, triathlon, tcx] = await corpusSources(
    "fit/garmin-fenix5-run.fit", "fit/garmin-edge820-commute-ride.fit", "fit/garmin-fr920xt-triathlon-chained-hr.fit", "tcx/garmin-fenix6-run.tcx"
  )
  const spec: ExportSpec = {
    activities: [
      { file: run!, name: "Lisbon Running", sport: "running", description: "tempo" },
      { file: ride!, name: "Commute", sport: "road_biking" },
      { file: triathlon!, name: "Sprint tri", sport: "triathlon" },
      { file: tcx!, name: "Treadmill", sport: "treadmill_running" }
    ]
  }
  return { triathlon: triathlon!, entries: () => garminExport(spec, { partSize: 3 }) }
}

/**
 * The FitTrackee export the export tests share: a commute ride with a description and a private
 * note, a trail run, a walk recorded as KML (named `walkName`), their equipment and a helmet no
 * workout uses, with the GPX twins older versions wrote.
 */
export const fitTrackeeSample = async (walkName: string) => {
  const [ride, gpx] = await corpusSources("fit/garmin-edge820-commute-ride.fit", "gpx/garmin-connect-run-hr.gpx")
  const [parsed] = await parsedCorpusFile("gpx/amazfit-run-hr.gpx")
  const kml: SourceFile = {
    name: "walk.kml",
    bytes: Buffer.from(kmlOf({ samples: parsed!.samples, writer: "openTracks", name: "Walk" })),
    starts: [parsed!.startTime],
    end: parsed!.samples.time.at(-1)!,
    sport: "Walk"
  }
  const spec: ExportSpec = {
    activities: [
      { file: ride!, name: "Ride to work", sport: "Cycling (Transport)", description: "rain", privateNote: "flat tyre", gear: "Gravel bike" },
      { file: gpx!, name: "Trail", sport: "Trail", gear: "Speedgoat" },
      { file: kml, name: walkName, sport: "Walking" }
    ],
    gear: [{ name: "Gravel bike", kind: "bike" }, { name: "Speedgoat", kind: "shoes" }, { name: "Helmet", kind: "other" }]
  }
  return () => fitTrackeeExport(spec, { legacyGpx: true })
}

/** Gear as the athlete entered it on the platform. */
export interface SourceGear {
  readonly name: string
  readonly brand?: string
  readonly model?: string
  readonly kind: "bike" | "shoes" | "other"
}

/** An activity of an export: its file and what the athlete gave it on the platform. */
export interface SourceActivity {
  readonly file: SourceFile
  readonly name?: string
  readonly description?: string
  readonly privateNote?: string
  /** the sport in the peer's own words: Strava's `Nordic Ski`, Garmin's `lap_swimming`, FitTrackee's `Trail`, Endurain's code `27` */
  readonly sport?: string
  /** the name of one of the export's gear */
  readonly gear?: string
  readonly commute?: boolean
  /** how many photos it has (Strava, Endurain) */
  readonly photos?: number
}

/** An export's activities (read once, in order: thousands may be made as they are written) and gear. */
export interface ExportSpec {
  readonly activities: Iterable<SourceActivity>
  readonly gear?: ReadonlyArray<SourceGear>
}

/** The smallest JPEG (1×1, grey): what the image store accepts as a photo. */
export const TINY_JPEG = Buffer.from(
  "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=",
  "base64"
)

const json = (value: unknown) => JSON.stringify(value, null, 1)
const csvCell = (value: string | number | boolean | undefined) => {
  const text = value === undefined ? "" : String(value)
  return /[",\n\r]/.test(text) ? `"${text.replaceAll("\"", "\"\"")}"` : text
}
const csv = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string | number | boolean | undefined>>) =>
  [header, ...rows].map((row) => row.map(csvCell).join(",")).join("\n") + "\n"
const extensionOf = (name: string) => name.slice(name.lastIndexOf(".") + 1)
/** An instant as Strava writes its dates, in UTC: `May 3, 2024, 8:00:00 AM`. */
const stravaDate = (ms: number) =>
  new Date(ms).toLocaleString("en-US", { timeZone: "UTC", month: "short", day: "numeric", year: "numeric", hour: "numeric", minute: "2-digit", second: "2-digit" })
/** Python's `str` of a UTC datetime: `2024-05-03 08:00:00` (`+00:00` when aware). */
const pythonDate = (ms: number, aware = false) => new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, aware ? "+00:00" : "")

// ---------------------------------------------------------------------------------------------
// Strava

/**
 * A Strava bulk export: `activities.csv` with the columns of a recent export (`Elapsed Time`,
 * `Distance` and `Commute` twice), `activities/<id>.fit.gz` (FIT and TCX gzipped, GPX not, as
 * Strava stores them), `media/<uuid>.jpg`, `bikes.csv`, `shoes.csv`, and some of the rest
 * (`profile.csv`, `routes/`, `clubs/`).
 */
export function* stravaExport(spec: ExportSpec): Generator<ZipEntry> {
  const rows: Array<ReadonlyArray<string | number | boolean | undefined>> = []
  let i = 0
  for (const a of spec.activities) {
    const id = 10_000_000_000 + i++
    const ext = extensionOf(a.file.name)
    const filename = `activities/${id}.${ext}${/^(fit|tcx)$/i.test(ext) ? ".gz" : ""}`
    yield { name: filename, data: filename.endsWith(".gz") ? zlib.gzipSync(a.file.bytes) : a.file.bytes, deflate: !filename.endsWith(".gz") }
    const media = Array.from({ length: a.photos ?? 0 }, (_, k) => `media/${id.toString(16)}-${k}-4c1e-9b2a-5d7f3e8a1c00.jpg`)
    for (const m of media) yield { name: m, data: TINY_JPEG, deflate: false }
    const seconds = Math.round((a.file.end - a.file.starts[0]!) / 1000)
    rows.push([id, stravaDate(a.file.starts[0]!), a.name, a.sport ?? "Ride", a.description, seconds, "12.34", "", "", a.commute ?? false, a.privateNote, a.gear,
      filename, "", "", seconds, seconds, 12345.6, a.commute ? 1 : 0, media.join("|")])
  }
  yield {
    name: "activities.csv",
    data: csv([
      "Activity ID", "Activity Date", "Activity Name", "Activity Type", "Activity Description", "Elapsed Time", "Distance", "Max Heart Rate",
      "Relative Effort", "Commute", "Activity Private Note", "Activity Gear", "Filename", "Athlete Weight", "Bike Weight", "Elapsed Time",
      "Moving Time", "Distance", "Commute", "Media"
    ], rows)
  }
  const gear = (kind: "bike" | "shoes", prefix: string) =>
    csv([`${prefix} Name`, `${prefix} Brand`, `${prefix} Model`, `${prefix} Default Sport Types`],
      (spec.gear ?? []).filter((g) => g.kind === kind).map((g) => [g.name, g.brand, g.model, kind === "bike" ? "Ride" : "Run"]))
  yield { name: "bikes.csv", data: gear("bike", "Bike") }
  yield { name: "shoes.csv", data: gear("shoes", "Shoe") }
  yield { name: "profile.csv", data: csv(["Athlete ID", "Email Address", "First Name"], [[1234, "athlete@example.org", "Ada"]]) }
  yield { name: "comments.csv", data: csv(["Activity ID", "Comment"], []) }
  yield { name: "routes/1.gpx", data: readCorpusFile("gpx/gpx10-route-only.gpx") }
  yield { name: "clubs/club.csv", data: csv(["Club"], [["Riders"]]) }
}

// ---------------------------------------------------------------------------------------------
// Garmin Connect

const GARMIN_USER = "athlete@example.org"
/** Garmin's type key of the file's own sport, for summaries the spec does not give one. */
const DEFAULT_TYPE = "running"

/**
 * A Garmin Connect "Export Your Data": the files as uploaded in
 * `DI_CONNECT/DI-Connect-Uploaded-Files/UploadedFiles_0-_Part<n>.zip` (`partSize` files each,
 * named `<email>_<upload id>.<ext>`), their summaries in
 * `DI_CONNECT/DI-Connect-Fitness/<email>_0_summarizedActivities.json` (a file of several
 * activities, a triathlon, as a `multi_sport` parent and a leg per activity), the gear and its
 * links to the activities in `DI_CONNECT/DI-Connect-Fitness/<email>_gear.json` (a gear without a
 * name has Connect's null `displayName`; one without a make or model Connect's `Unknown`
 * placeholders), and the wellness, daily summaries, settings and records that hold no activity.
 */
export function* garminExport(spec: ExportSpec, options: { readonly partSize?: number } = {}): Generator<ZipEntry> {
  const partSize = options.partSize ?? 1000
  const gearDTOS = (spec.gear ?? []).map(garminGearOf)
  const gearActivityDTOs: Record<string, Array<{ readonly gearPk: number; readonly activityId: number }>> = {}
  const summaries: Array<Record<string, unknown>> = []
  let uploads: Array<ZipEntry> = []
  let parts = 0
  const part = (): ZipEntry => ({ name: `DI_CONNECT/DI-Connect-Uploaded-Files/UploadedFiles_0-_Part${++parts}.zip`, data: zipBuffer(uploads), deflate: false })
  let nextId = 9_000_000_000
  for (const a of spec.activities) {
    uploads.push({ name: `${GARMIN_USER}_${nextId + 1}.${extensionOf(a.file.name)}`, data: a.file.bytes })
    const summary = (start: number, extra: Record<string, unknown>) => ({
      activityId: ++nextId, uuidMsb: nextId, name: a.name, description: a.description, activityType: a.sport ?? DEFAULT_TYPE,
      sportType: String(a.sport ?? DEFAULT_TYPE).toUpperCase(), startTimeGmt: start, beginTimestamp: start, startTimeLocal: start + 7_200_000,
      duration: a.file.end - start, distance: 1_234_500, elevationGain: 12_300, avgHr: 140, ...extra
    })
    if (a.file.starts.length === 1) summaries.push(summary(a.file.starts[0]!, {}))
    else {
      const parent = summary(a.file.starts[0]!, { activityType: "multi_sport", sportType: "MULTISPORT", parent: true })
      summaries.push(parent, ...a.file.starts.map((start, leg) => summary(start, { name: `${a.name ?? "Leg"} ${leg + 1}`, parentId: parent.activityId })))
    }
    const gear = gearDTOS.find((g) => g.displayName === a.gear || g.customMakeModel === a.gear)
    if (gear !== undefined) (gearActivityDTOs[String(gear.gearPk)] ??= []).push({ gearPk: gear.gearPk, activityId: nextId })
    if (uploads.length === partSize) {
      yield part()
      uploads = []
    }
  }
  if (uploads.length > 0 || parts === 0) yield part()
  const fitness = `DI_CONNECT/DI-Connect-Fitness/${GARMIN_USER}`
  yield { name: `${fitness}_0_summarizedActivities.json`, data: json([{ summarizedActivitiesExport: summaries }]) }
  yield { name: `${fitness}_personalRecord.json`, data: json([{ personalRecords: [] }]) }
  yield { name: `${fitness}_gear.json`, data: json([{ gearDTOS, gearActivityDTOs, gearActivityTypeDTOS: gearDTOS.map((g) => ({ gearPk: g.gearPk, activityTypePk: 1 })) }]) }
  yield { name: `DI_CONNECT/DI-Connect-Wellness/${GARMIN_USER}_sleepData.json`, data: json([{ calendarDate: "2024-05-01", deepSleepSeconds: 3600 }]) }
  yield { name: `DI_CONNECT/DI-Connect-Wellness/${GARMIN_USER}_healthStatusData.json`, data: json([]) }
  yield { name: "DI_CONNECT/DI-Connect-Aggregator/UDSFile_2024-01-01_2024-04-10.json", data: json([{ calendarDate: "2024-05-01", totalSteps: 8000 }]) }
  yield { name: "DI_CONNECT/DI-Connect-User/user_settings.json", data: json({ measurementSystem: "metric" }) }
  yield { name: "DI_CONNECT/DI-Connect-User/user_profile.json", data: json({ userName: "athlete" }) }
  yield { name: "DI_CONNECT/DI-Connect-Metrics/MetricsMaxMetData_20240101_20240410.json", data: json([]) }
  yield { name: "DI_CONNECT/DI-Connect-Device/DeviceInfo.json", data: json([]) }
}

/** A gear as Connect exports it (`gearDTOS`). */
const garminGearOf = (g: SourceGear, i: number) => ({
  gearPk: 31_000_000 + i, uuid: `8d2c1f0e5b7a4c3e9f10${String(i).padStart(12, "0")}`, userProfilePk: 87_654_321,
  gearMakeName: g.brand ?? "Unknown", gearModelName: g.model ?? (g.kind === "shoes" ? "Unknown Shoes" : g.kind === "bike" ? "Unknown Bike" : "Unknown"),
  gearTypeName: { bike: "Bike", shoes: "Shoes", other: "Other" }[g.kind], gearStatusName: "active", displayName: g.name === "" ? null : g.name,
  customMakeModel: [g.brand, g.model].filter(Boolean).join(" ") || g.name, imageNameLarge: null, imageNameMedium: null, imageNameSmall: null,
  dateBegin: "2024-01-01T00:00:00.0", dateEnd: null, maximumMeters: 0, notified: false, createDate: "2024-01-01T08:00:00.0", updateDate: "2024-01-01T08:00:00.0"
})

// ---------------------------------------------------------------------------------------------
// FitTrackee

const FITTRACKEE_SPORT_IDS: Readonly<Record<string, number>> = {
  "Cycling (Sport)": 1, "Cycling (Transport)": 2, "Hiking": 3, "Mountain Biking": 4, "Running": 5, "Walking": 6, "Trail": 10, "Cycling (Virtual)": 14
}

const equipmentOf = (g: SourceGear, i: number) => ({
  label: g.name, is_active: true, id: `eq${i}`, user_id: 1, description: [g.brand, g.model].filter(Boolean).join(" ") || null,
  equipment_type: { id: g.kind === "shoes" ? 1 : g.kind === "bike" ? 2 : 8, label: g.kind === "shoes" ? "Shoes" : g.kind === "bike" ? "Bike" : "Misc", is_active: true },
  default_for_sport_ids: [], creation_date: "2024-01-01 00:00:00+00:00", total_distance: 0, total_duration_in_hours: 0, visibility: "private", workouts_count: 0
})

/**
 * A FitTrackee data export: `user_data.json`, `user_workouts_data.json` (the fields of a
 * workout as FitTrackee serialises them, `original_file` naming its file), the equipment and
 * comments files, the profile picture, and `workout_files/<date>_<sport id>_<token>.<ext>`;
 * with `legacyGpx`, the GPX versions before 1.1 kept beside each file of another format.
 */
export function* fitTrackeeExport(spec: ExportSpec, options: { readonly legacyGpx?: boolean } = {}): Generator<ZipEntry> {
  const equipments = (spec.gear ?? []).map(equipmentOf)
  const workouts: Array<Record<string, unknown>> = []
  let i = 0
  for (const a of spec.activities) {
    const sportId = FITTRACKEE_SPORT_IDS[a.sport ?? "Cycling (Sport)"] ?? 1
    const date = new Date(a.file.starts[0]!).toISOString().slice(0, 19).replace("T", "_").replaceAll(":", "-")
    const ext = extensionOf(a.file.name)
    const original = `${date}_${sportId}_tok${String(i).padStart(8, "0")}.${ext}`
    yield { name: `workout_files/${original}`, data: a.file.bytes }
    if (options.legacyGpx && ext !== "gpx") yield { name: `workout_files/${original.replace(/\.[^.]+$/, ".gpx")}`, data: "<gpx/>" }
    workouts.push({
      id: `w${i++}`, sport_id: sportId, workout_date: pythonDate(a.file.starts[0]!, true), workout_visibility: "private", source: null,
      title: a.name ?? null, moving: "1:00:00", distance: 12.345, duration: "1:00:00", ave_speed: 12.3, max_speed: 30.1, min_alt: null, max_alt: null,
      descent: null, ascent: null, records: [], analysis_visibility: "private", map_visibility: "private", ave_cadence: null, max_cadence: null,
      ave_hr: null, max_hr: null, ave_power: null, max_power: null, ave_pace: null, best_pace: null, calories: null,
      equipments: a.gear === undefined ? [] : equipments.filter((e) => e.label === a.gear), creation_date: "2024-06-01 10:00:00+00:00",
      modification_date: null, pauses: null, segments: [], with_geometry: true, weather_start: null, weather_end: null,
      notes: a.privateNote ?? null, description: a.description ?? null, likes_count: 0, liked: false, sport_label: a.sport ?? "Cycling (Sport)",
      original_file: original
    })
  }
  yield { name: "user_data.json", data: json({ username: "athlete", email: "athlete@example.org", nb_workouts: workouts.length }) }
  yield { name: "user_workouts_data.json", data: json(workouts) }
  yield { name: "user_equipments_data.json", data: json(equipments) }
  yield { name: "user_comments_data.json", data: json([]) }
  yield { name: "a1b2c3.png", data: TINY_JPEG }
}

// ---------------------------------------------------------------------------------------------
// Endurain

const ENDURAIN_GEAR_TYPES: Readonly<Record<SourceGear["kind"], number>> = { bike: 1, shoes: 2, other: 3 }

/**
 * An Endurain profile export: `data/activities.json` (every column, values as Python's `str`
 * writes them: dates `2024-05-03 08:00:00`, decimals as texts), `data/gears.json`,
 * `data/activity_media.json`, the laps and streams, health and settings files,
 * `activity_files/<activity id>.<ext>`, `activity_media/<activity id>_<n>.jpg`,
 * `user_images/` and `counts.json`.
 */
export function* endurainExport(spec: ExportSpec): Generator<ZipEntry> {
  const gears = (spec.gear ?? []).map((g, i) => ({
    id: i + 1, brand: g.brand ?? null, model: g.model ?? null, nickname: g.name, gear_type: ENDURAIN_GEAR_TYPES[g.kind], user_id: 1,
    created_at: "2024-01-01 00:00:00", active: true, initial_kms: "0.00", purchase_value: null, strava_gear_id: null, garminconnect_gear_id: null
  }))
  const media: Array<Record<string, unknown>> = []
  const activities: Array<Record<string, unknown> & { readonly id: number; readonly start_time: string }> = []
  for (const a of spec.activities) {
    const id = 100 + activities.length
    yield { name: `activity_files/${id}.${extensionOf(a.file.name)}`, data: a.file.bytes }
    for (let k = 0; k < (a.photos ?? 0); k++) {
      yield { name: `activity_media/${id}_photo${k}.jpg`, data: TINY_JPEG, deflate: false }
      media.push({ id: media.length + 1, activity_id: id, media_path: `/app/backend/data/activity_media/${id}_photo${k}.jpg`, media_type: 1 })
    }
    const start = a.file.starts[0]!
    activities.push({
      id, user_id: 1, name: a.name ?? null, description: a.description ?? null, private_notes: a.privateNote ?? null, distance: 12345,
      activity_type: Number(a.sport ?? 4), start_time: pythonDate(start), end_time: pythonDate(a.file.end), timezone: "Europe/Lisbon",
      total_elapsed_time: "3600.0000000000", total_timer_time: "3500.0000000000", city: null, town: null, country: null,
      created_at: pythonDate(start + 3_600_000), elevation_gain: 120, elevation_loss: 118, pace: "0.2900000000", average_speed: "3.4400000000",
      max_speed: "9.1000000000", average_power: null, max_power: null, normalized_power: null, average_hr: 141, max_hr: 170, average_cad: null,
      max_cad: null, workout_feeling: null, workout_rpe: null, calories: 700, visibility: 0, gear_id: gears.find((g) => g.nickname === a.gear)?.id ?? null,
      strava_gear_id: null, strava_activity_id: null, garminconnect_activity_id: null, garminconnect_gear_id: null, import_info: null, is_hidden: false,
      hide_start_time: false, hide_location: false, hide_map: false, hide_hr: false, hide_power: false, hide_cadence: false, hide_elevation: false,
      hide_speed: false, hide_pace: false, hide_laps: false, hide_workout_sets_steps: false, hide_gear: false, tracker_manufacturer: "garmin", tracker_model: null
    })
  }
  // Endurain writes no file for an empty list
  const data = (name: string, rows: ReadonlyArray<unknown>): Array<ZipEntry> => (rows.length === 0 ? [] : [{ name: `data/${name}.json`, data: JSON.stringify(rows) }])
  yield* data("activities", activities)
  yield* data("activity_laps", activities.map((a) => ({ id: a.id, activity_id: a.id, start_time: a.start_time, total_elapsed_time: "60.0" })))
  yield* data("activity_streams", activities.map((a) => ({ id: a.id, activity_id: a.id, stream_type: 1, stream_waypoints: [] })))
  yield* data("activity_media", media)
  yield* data("gears", gears)
  yield* data("health_weight", [{ id: 1, user_id: 1, date: "2024-05-01", weight: "70.00" }])
  yield* data("user_default_gear", [{ id: 1, user_id: 1, run_gear_id: null }])
  yield* data("user", [{ id: 1, name: "Ada", username: "ada" }])
  yield { name: "user_images/1.png", data: TINY_JPEG }
  yield { name: "counts.json", data: JSON.stringify([{ activities: activities.length, gears: gears.length, activity_files: activities.length }]) }
}

// ---------------------------------------------------------------------------------------------

/** The export as the zip a person downloads. */
export const asZip = (entries: Iterable<ZipEntry>): Buffer => zipBuffer(entries)

/** The export as a zip file at `file`, written as its entries come; answers its size. */
export const writeZip = (file: string, entries: Iterable<ZipEntry>): number => writeZipFile(file, entries)

/** The export as the folder it unpacks to, under `dir` (Garmin's parts stay zips, as they unpack). */
export const writeFolder = (dir: string, entries: Iterable<ZipEntry>): void => {
  for (const entry of entries) {
    const target = path.join(dir, entry.name)
    fs.mkdirSync(path.dirname(target), { recursive: true })
    fs.writeFileSync(target, entry.data)
  }
}
