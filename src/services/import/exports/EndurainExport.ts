import type { SportType } from "../../../schema/SportType.ts"
import type { ExportedActivity, ExportedGear } from "../archives/ExportedActivity.ts"
import { describedWith, textOf } from "./ExportReading.ts"
import type { MetadataRecords } from "./MetadataRecords.ts"
import { entryBase, type ExportPlan, normalEntry, sortEntries } from "./ExportPlan.ts"

/**
 * Endurain's profile export (Settings, "Export": `user_<user id>_export.zip`), laid out as:
 *
 * - `data/activities.json`: every column of every activity: `id`, `name`, `description`,
 *   `private_notes`, `activity_type` (an integer code, ENDURAIN_SPORTS below), `gear_id`,
 *   `start_time` (`"2024-05-01 08:00:00"`, the values written with Python's `str`: numbers of
 *   decimal columns are texts too), and the totals.
 * - `data/gears.json`: `id`, `nickname` (the gear's name), `brand`, `model`, `gear_type`
 *   (1 bike, 2 shoes, 3 wetsuit, 4 racquet, 5 skis, 6 snowboard, 7 windsurf, 8 water sports
 *   board), `active`.
 * - `data/activity_media.json`: `activity_id`, `media_path`, `media_type`; the photos are
 *   `activity_media/<activity id>_<anything>.<jpg|jpeg|png>`.
 * - `activity_files/<activity id>.<gpx|fit|tcx>`: the file each activity was made from (one
 *   file making several activities is named after all their ids and not exported).
 * - `data/activity_laps.json`, `data/activity_streams.json` (or `_000.json`, `_001.json`, ...
 *   when long), sets, workout steps, health, goals, settings, notifications, `user_images/`,
 *   `counts.json`: no recorded activity. A list with nothing in it is not written at all.
 */

const ACTIVITIES = "data/activities.json"
const GEARS = "data/gears.json"

/** Whether `entries` are an Endurain export's: its `data/` JSON files beside `activity_files/` or `counts.json`. */
export const isEndurainExport = (entries: ReadonlyArray<string>): boolean => {
  const normal = entries.map(normalEntry)
  return normal.some((e) => /^data\/[^/]+\.json$/.test(e)) && normal.some((e) => e.startsWith("activity_files/") || e === "counts.json")
}

export const endurainMetadataEntries: ReadonlyArray<string> = [ACTIVITIES, GEARS]

/** Endurain's `activity_type` codes, as our sports; 27 is a ride to work, a commute. */
export const ENDURAIN_SPORTS: ReadonlyMap<number, SportType> = new Map<number, SportType>([
  [1, "Run"], [2, "TrailRun"], [3, "VirtualRun"], [4, "Ride"], [5, "GravelRide"], [6, "MountainBikeRide"], [7, "VirtualRide"],
  [8, "Swim"], [9, "OpenWaterSwim"], [10, "Workout"], [11, "Walk"], [12, "Hike"], [13, "Rowing"], [14, "Yoga"], [15, "AlpineSki"],
  [16, "NordicSki"], [17, "Snowboard"], [18, "Workout"], [19, "WeightTraining"], [20, "Crossfit"], [21, "Tennis"], [22, "TableTennis"],
  [23, "Badminton"], [24, "Squash"], [25, "Racquetball"], [26, "Pickleball"], [27, "Ride"], [28, "VirtualRide"], [29, "GravelRide"],
  [30, "Windsurf"], [31, "Walk"], [32, "StandUpPaddling"], [33, "Surfing"], [34, "Run"], [35, "EBikeRide"], [36, "EMountainBikeRide"],
  [37, "IceSkate"], [38, "Soccer"], [39, "Padel"], [40, "VirtualRun"], [41, "Workout"], [42, "Kayaking"], [43, "Sail"],
  [44, "Snowshoe"], [45, "InlineSkate"]
])
const COMMUTE = 27

const GEAR_KINDS: ReadonlyMap<number, ExportedGear["kind"]> = new Map([[1, "bike"], [2, "shoes"]])

/** An integer written as a number or a text (`3`, `"3"`), null otherwise. */
const integer = (value: unknown): number | null => {
  const n = typeof value === "number" ? value : typeof value === "string" && /^\s*-?\d+\s*$/.test(value) ? Number(value) : NaN
  return Number.isSafeInteger(n) ? n : null
}

export const planEndurain = (entries: ReadonlyArray<string>, records: MetadataRecords): ExportPlan => {
  const gearById = new Map<number, ExportedGear>()
  for (const g of records.get(GEARS) ?? []) {
    const id = integer(g.id)
    const name = textOf(g.nickname)
    if (id === null || name === null) continue
    gearById.set(id, { name, brand: textOf(g.brand), model: textOf(g.model), kind: GEAR_KINDS.get(integer(g.gear_type) ?? 0) ?? "other" })
  }
  // photos are named after their activity: activity_media/<activity id>_<anything>.<jpg|jpeg|png>
  const photos = new Map<number, Array<string>>()
  for (const entry of entries) {
    const match = /^activity_media\/(?:.*\/)?(\d+)_[^/]*\.(jpe?g|png)$/i.exec(normalEntry(entry))
    if (match !== null) photos.set(Number(match[1]), [...photos.get(Number(match[1])) ?? [], entry])
  }
  const described = new Map<number, ExportedActivity>()
  for (const a of records.get(ACTIVITIES) ?? []) {
    const id = integer(a.id)
    if (id === null) continue
    const type = integer(a.activity_type)
    const gearId = integer(a.gear_id)
    described.set(id, {
      name: textOf(a.name),
      description: describedWith(textOf(a.description), textOf(a.private_notes)),
      sportType: type === null ? null : ENDURAIN_SPORTS.get(type) ?? null,
      isCommute: type === COMMUTE,
      gear: gearId === null ? null : gearById.get(gearId) ?? null,
      images: photos.get(id) ?? []
    })
  }

  const sorted = sortEntries(entries, {
    root: "",
    used: new Set([...endurainMetadataEntries, ...[...described.values()].flatMap((a) => a.images.map(normalEntry))]),
    isActivity: (normal) => normal.startsWith("activity_files/"),
    metadataOf: (normal) => described.get(integer(entryBase(normal).replace(/\..*$/, "")) ?? NaN) ?? null
  })
  return { kind: "endurain", ...sorted, parts: [], gear: [...gearById.values()], summaries: [], nested: [] }
}
