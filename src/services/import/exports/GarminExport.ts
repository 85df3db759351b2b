import type { SportType } from "../../../schema/SportType.ts"
import { resolveSportName } from "../parsers/sportNames.ts"
import type { ExportedActivity, ExportedGear } from "../archives/ExportedActivity.ts"
import { textOf } from "./ExportReading.ts"
import type { JsonFound, MetadataFormat, MetadataRecord, MetadataRecords } from "./MetadataRecords.ts"
import { formatOf } from "../files/ActivityFileName.ts"
import { areaOf, type ExportPlan, isArchiveEntry, isHiddenEntry, normalEntry, SkippedAreas } from "./ExportPlan.ts"

/**
 * Garmin Connect's "Export Your Data" (Account, Data Management): one zip, or the folder it
 * unpacks to, laid out as:
 *
 * - `DI_CONNECT/DI-Connect-Uploaded-Files/UploadedFiles_0-_Part1.zip` (`_Part2.zip`, ...):
 *   zips inside the zip holding every file the devices uploaded, as recorded:
 *   `<account email>_<upload id>.fit` (a `.tcx` or `.gpx` for a file uploaded by hand). A part
 *   is known by its name wherever it lies (some exports had them under `DI-Connect-Fitness/`),
 *   and the files of a part unpacked by hand are imported where they lie.
 * - `DI_CONNECT/DI-Connect-Fitness/<account email>_0_summarizedActivities.json` (`_1_`, ... for
 *   long histories): `[{"summarizedActivitiesExport": [...]}]`, an object per activity with
 *   `activityId`, `name`, `description`, `activityType` (a type key: `running`,
 *   `road_biking`, `lap_swimming`, `treadmill_running`, `virtual_ride`, ..., some with a `_v2`
 *   or `_ws` suffix), `sportType` (`RUNNING`, `CYCLING`, ...), `startTimeGmt` and
 *   `beginTimestamp` (the start, UTC, epoch milliseconds), `startTimeLocal` (the local wall
 *   time as epoch milliseconds), `duration` (ms) and `distance` (cm). A multisport activity is
 *   a parent (`parent: true`, type `multi_sport`) and its legs, each with `parentId`.
 * - `DI_CONNECT/DI-Connect-Fitness/<account email>_gear.json`: `[{"gearDTOS": [...],
 *   "gearActivityDTOs": {"<gearPk>": [...]}, "gearActivityTypeDTOS": [...]}]`. A gear
 *   (`gearDTOS`) has its `gearPk`, `displayName` (the name the athlete gave it, often null),
 *   `customMakeModel` (the name Connect shows without one: the make and model, or what the
 *   athlete typed), `gearMakeName` and `gearModelName` (`Unknown` and `Unknown Shoes` when
 *   none was chosen), `gearTypeName` (`Shoes`, `Bike`, `Other`...) and `gearStatusName`;
 *   `gearActivityDTOs` maps each gear's `gearPk` to its activities, `{"gearPk", "activityId"}`
 *   each; `gearActivityTypeDTOS` (the sports a gear is the default of) is not read.
 * - everything else is no recorded activity: `DI-Connect-Wellness/` (sleep, health),
 *   `DI-Connect-Aggregator/` (daily summaries, hydration), `DI-Connect-User/` (profile,
 *   settings), `DI-Connect-Metrics/`, `DI-Connect-Device/`, the other files of
 *   `DI-Connect-Fitness/` (records, workouts).
 *
 * The uploaded files carry no activity id: an activity is matched to its summary by start
 * time, the nearest within GARMIN_MATCH_TOLERANCE_MS (the device and Connect may disagree by
 * seconds); each leg of a multisport file finds its own leg's summary, and with it the gear
 * the gear file links to the summary's activity id.
 */

export const GARMIN_MATCH_TOLERANCE_MS = 300_000

const SUMMARIES = /(^|\/)[^/]*summarizedActivities[^/]*\.json$/i
const GEAR = /(^|\/)[^/]*_gear\.json$/i
const PART = /(^|\/)UploadedFiles_[^/]*\.zip$/i

/** Whether the entry (or file) is a part of a Garmin export, which holds the files its devices uploaded. */
export const isGarminPart = (entry: string): boolean => PART.test(normalEntry(entry))

/** Whether `entries` are a Garmin export's (its `DI_CONNECT/` folder, its summaries or its parts). */
export const isGarminExport = (entries: ReadonlyArray<string>): boolean =>
  entries.some((entry) => {
    const normal = normalEntry(entry)
    return /(^|\/)DI_CONNECT\//.test(normal) || SUMMARIES.test(normal) || PART.test(normal)
  })

/** The summaries and gear files of a Garmin export, to be read for `planGarmin`. */
export const garminMetadataEntries = (entries: ReadonlyArray<string>): ReadonlyArray<string> =>
  entries.filter((entry) => !isHiddenEntry(entry) && (SUMMARIES.test(normalEntry(entry)) || GEAR.test(normalEntry(entry))))

/** Whether the metadata file `entry` is a gear file (else a summaries file). */
const isGearFile = (entry: string): boolean => GEAR.test(normalEntry(entry))

/** How the summaries are read: `[{"summarizedActivitiesExport": [...]}]`, or the list itself. */
const SUMMARIES_FORMAT: MetadataFormat = { kind: "json", unwrap: "summarizedActivitiesExport" }
/** How the gear file is read: each gear, and each link of a gear to an activity, a record of its own. */
const GEAR_FORMAT: MetadataFormat = { kind: "jsonPaths", paths: ["$.*.gearDTOS.*", "$.*.gearActivityDTOs.*.*"] }

/** How the metadata file `entry` of a Garmin export is read. */
export const garminMetadataFormat = (entry: string): MetadataFormat => isGearFile(entry) ? GEAR_FORMAT : SUMMARIES_FORMAT

/** One activity as its summary describes it. */
export interface GarminSummary {
  readonly activityId: string | null
  /** UTC, epoch milliseconds */
  readonly startTime: number
  /** the whole of a multisport activity, whose legs have summaries of their own */
  readonly isParent: boolean
  readonly metadata: ExportedActivity
}

/** Garmin's activity type keys (their `_v2`/`_ws` suffix dropped) that our sport names do not already read. */
const TYPE_KEYS: ReadonlyMap<string, SportType | null> = new Map<string, SportType | null>([
  ["street_running", "Run"], ["track_running", "Run"], ["ultra_run", "Run"], ["obstacle_run", "Run"], ["virtual_run", "VirtualRun"],
  ["road_biking", "Ride"], ["bmx", "Ride"], ["recumbent_cycling", "Ride"], ["track_cycling", "Ride"], ["cyclocross", "GravelRide"],
  ["gravel_cycling", "GravelRide"], ["indoor_cycling", "VirtualRide"], ["virtual_ride", "VirtualRide"], ["e_bike_fitness", "EBikeRide"],
  ["e_bike_mountain", "EMountainBikeRide"], ["hand_cycling", "Handcycle"], ["indoor_hand_cycling", "Handcycle"],
  ["casual_walking", "Walk"], ["speed_walking", "Walk"], ["rucking", "Hike"], ["mountaineering", "Hike"],
  ["lap_swimming", "Swim"], ["open_water_swimming", "OpenWaterSwim"],
  ["resort_skiing_snowboarding", "AlpineSki"], ["resort_skiing", "AlpineSki"], ["resort_snowboarding", "Snowboard"],
  ["backcountry_skiing", "BackcountrySki"], ["backcountry_snowboarding", "BackcountrySki"], ["cross_country_skiing", "NordicSki"],
  ["skate_skiing", "NordicSki"], ["snow_shoe", "Snowshoe"], ["snowshoeing", "Snowshoe"], ["inline_skating", "InlineSkate"],
  ["ice_skating", "IceSkate"], ["indoor_rowing", "VirtualRow"], ["paddling", "Canoeing"], ["stand_up_paddleboarding", "StandUpPaddling"],
  ["whitewater_rafting_kayaking", "Kayaking"], ["kiteboarding", "Kitesurf"], ["windsurfing", "Windsurf"], ["sailing", "Sail"],
  ["indoor_cardio", "Workout"], ["stair_climbing", "StairStepper"], ["floor_climbing", "StairStepper"], ["indoor_climbing", "RockClimbing"],
  ["bouldering", "RockClimbing"], ["table_tennis", "TableTennis"],
  // the whole of a multisport activity and its transitions are no sport of their own: the file's stay
  ["multi_sport", null], ["transition", null], ["other", null], ["uncategorized", null]
])

/** The sport of a Garmin activity type key (`lap_swimming`, `resort_skiing_snowboarding_ws`), null when none of ours. */
export const garminSport = (typeKey: string | null): SportType | null => {
  if (typeKey === null) return null
  const key = typeKey.toLowerCase().replace(/_(v\d+|ws)$/, "")
  return TYPE_KEYS.has(key) ? TYPE_KEYS.get(key)! : resolveSportName(key)
}

/** An instant as the summaries write it: epoch milliseconds, or an ISO text (UTC when it names no zone). */
const instant = (value: unknown): number | null => {
  if (typeof value === "number") return Number.isFinite(value) ? value : null
  if (typeof value !== "string" || value.trim() === "") return null
  const text = value.trim().replace(" ", "T")
  const ms = Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`)
  return Number.isFinite(ms) ? ms : null
}

/** The activities the records of the summaries files describe, in order of start; each with its gear in `gearOf` (by activity id), or its parent's. */
export const garminSummariesOf = (
  records: Iterable<ReadonlyArray<MetadataRecord>>,
  gearOf: ReadonlyMap<string, ExportedGear> = new Map()
): Array<GarminSummary> => {
  const summaries: Array<GarminSummary> = []
  for (const activities of records) {
    for (const a of activities) {
      const startTime = instant(a.startTimeGmt) ?? instant(a.beginTimestamp)
      if (startTime === null) continue
      const typeKey = textOf(a.activityType) ?? textOf((a.activityType as { typeKey?: unknown } | null)?.typeKey)
      const activityId = textOf(a.activityId)
      summaries.push({
        activityId,
        startTime,
        isParent: a.parent === true || /^multi_sport/i.test(typeKey ?? ""),
        metadata: {
          name: textOf(a.name),
          description: textOf(a.description),
          sportType: garminSport(typeKey) ?? resolveSportName(textOf(a.sportType)),
          isCommute: false,
          // a multisport leg without gear of its own has its whole activity's
          gear: gearOf.get(activityId ?? "") ?? gearOf.get(textOf(a.parentId) ?? "") ?? null,
          images: []
        }
      })
    }
  }
  return summaries.sort((x, y) => x.startTime - y.startTime)
}

/** What Connect writes for a make or model nobody chose (`Unknown`, `Unknown Shoes`, `Other`). */
const PLACEHOLDER = /^(unknown|other)\b/i
const known = (text: string | null): string | null => text !== null && !PLACEHOLDER.test(text) ? text : null

const gearKind = (typeName: string | null): ExportedGear["kind"] =>
  typeName === null ? null : /^shoes?$/i.test(typeName) ? "shoes" : /^(bike|bicycle)$/i.test(typeName) ? "bike" : "other"

/**
 * The gear the records of a gear file list (garminMetadataFormat), and the gear of each activity
 * by its id: the first of its gear that is a bike or shoes, else its first (an activity may
 * have several: a bike and its power meter).
 */
export const garminGearOf = (records: Iterable<ReadonlyArray<MetadataRecord>>): {
  readonly gear: Array<ExportedGear>
  readonly byActivity: Map<string, ExportedGear>
} => {
  const byPk = new Map<string, ExportedGear>()
  const links: Array<readonly [activityId: string, gearPk: string]> = []
  for (const found of records) {
    for (const { at, value } of found as unknown as ReadonlyArray<JsonFound>) {
      if (at[1] === "gearDTOS") {
        const pk = textOf(value.gearPk)
        const brand = textOf(value.gearMakeName)
        const model = textOf(value.gearModelName)
        const makeModel = textOf(value.customMakeModel)
        const name = textOf(value.displayName) ?? makeModel ?? ([known(brand), known(model)].filter((t) => t !== null).join(" ") || null)
        if (pk === null || name === null || byPk.has(pk)) continue
        byPk.set(pk, {
          name,
          brand: known(brand),
          // a make Connect does not list is typed by the athlete: their words are its make and model
          model: known(model) ?? (known(brand) === null && makeModel !== name ? makeModel : null),
          kind: gearKind(textOf(value.gearTypeName))
        })
      } else if (at[1] === "gearActivityDTOs") {
        const activityId = textOf(value.activityId)
        const pk = textOf(value.gearPk) ?? textOf(at[2])
        if (activityId !== null && pk !== null) links.push([activityId, pk])
      }
    }
  }
  const byActivity = new Map<string, ExportedGear>()
  for (const [activityId, pk] of links) {
    const gear = byPk.get(pk)
    const held = byActivity.get(activityId)
    if (gear !== undefined && (held === undefined || held.kind !== "bike" && held.kind !== "shoes" && (gear.kind === "bike" || gear.kind === "shoes"))) {
      byActivity.set(activityId, gear)
    }
  }
  return { gear: [...byPk.values()], byActivity }
}

/** The summaries and the gear the metadata files of a Garmin export (`records`, by entry) give. */
export const garminMetadataOf = (records: MetadataRecords): Pick<ExportPlan, "gear" | "summaries"> => {
  const files = [...records.keys()].toSorted()
  const { byActivity, gear } = garminGearOf(files.filter(isGearFile).map((f) => records.get(f)!))
  return { gear, summaries: garminSummariesOf(files.filter((f) => !isGearFile(f)).map((f) => records.get(f)!), byActivity) }
}

/**
 * What the summaries say about the activity starting at `startTime` (UTC ms): the summary
 * starting nearest it within `toleranceMs`, a leg's rather than its multisport parent's at the
 * same distance. `summaries` in order of start, as garminSummariesOf gives them.
 */
export const matchSummary = (
  summaries: ReadonlyArray<GarminSummary>,
  startTime: number,
  toleranceMs: number = GARMIN_MATCH_TOLERANCE_MS
): ExportedActivity | null => {
  // the first summary starting at or after startTime - toleranceMs
  let low = 0
  let high = summaries.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (summaries[mid]!.startTime < startTime - toleranceMs) low = mid + 1
    else high = mid
  }
  let best: GarminSummary | null = null
  for (let i = low; i < summaries.length && summaries[i]!.startTime <= startTime + toleranceMs; i++) {
    const candidate = summaries[i]!
    const distance = Math.abs(candidate.startTime - startTime)
    const bestDistance = best === null ? Infinity : Math.abs(best.startTime - startTime)
    if (distance < bestDistance || distance === bestDistance && best!.isParent && !candidate.isParent) best = candidate
  }
  return best?.metadata ?? null
}

export const planGarmin = (entries: ReadonlyArray<string>, records: MetadataRecords): ExportPlan => {
  const metadataFiles = new Set(garminMetadataEntries(entries).map(normalEntry))
  const activities: Array<ExportPlan["activities"][number]> = []
  const parts: Array<string> = []
  const skipped = new SkippedAreas()
  for (const entry of entries) {
    const normal = normalEntry(entry)
    if (isHiddenEntry(entry) || metadataFiles.has(normal)) continue
    const format = formatOf(normal)
    if (isGarminPart(normal)) parts.push(entry)
    // a loose activity file is imported wherever it lies (an unpacked part, a file put in by hand)
    else if (format !== null) activities.push({ entry, format, metadata: null })
    else skipped.add(areaOf(normal, normal.startsWith("DI_CONNECT/") ? 2 : 1))
  }
  return {
    kind: "garmin",
    activities,
    parts,
    ...garminMetadataOf(new Map([...metadataFiles].map((f) => [f, records.get(f) ?? []]))),
    skipped: skipped.list(),
    nested: []
  }
}

/**
 * What a part of a Garmin export (`UploadedFiles_0-_Part1.zip`) holds: its activity files, to
 * be matched by start time; anything else in it is skipped, and an archive in a part is not
 * opened (parts hold the uploads as they were, never archives).
 */
export const planPart = (entries: ReadonlyArray<string>): Pick<ExportPlan, "activities" | "skipped"> => {
  const activities: Array<ExportPlan["activities"][number]> = []
  const skipped = new SkippedAreas()
  for (const entry of entries) {
    if (isHiddenEntry(entry)) continue
    const format = formatOf(normalEntry(entry))
    if (format !== null) activities.push({ entry, format, metadata: null })
    else skipped.add(isArchiveEntry(entry) ? "archives inside a part" : areaOf(normalEntry(entry)))
  }
  return { activities, skipped: skipped.list() }
}
