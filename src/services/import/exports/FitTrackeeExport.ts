import type { SportType } from "../../../schema/SportType.ts"
import { resolveSportName } from "../parsers/sportNames.ts"
import type { ExportedActivity, ExportedGear } from "../archives/ExportedActivity.ts"
import { allGear, describedWith, recordsOf, textOf } from "./ExportReading.ts"
import type { MetadataRecord, MetadataRecords } from "./MetadataRecords.ts"
import { entryBase, type ExportPlan, exportRoot, sortEntries } from "./ExportPlan.ts"

/**
 * FitTrackee's data export (account, "Export data": `archive_<token>.zip`), laid out at its
 * root as:
 *
 * - `user_workouts_data.json`: a list, an object per workout: `id`, `sport_id`, `sport_label`
 *   (`Cycling (Sport)`, `Cycling (Transport)`, `Cycling (Virtual)`, `Running`, `Trail`,
 *   `Skiing (Cross Country)`, ...), `title`, `description`, `notes` (private), `workout_date`,
 *   `equipments` (each with `label`, `description`, `is_active` and `equipment_type.label`:
 *   `Shoes`, `Bike`, `Bike Trainer`, `Kayak_Boat`, `Skis`, `Snowshoes`, `Racket`, ...),
 *   `original_file` (the file's name in `workout_files/`, null for a workout entered by hand)
 *   and the workout's totals.
 * - `user_equipments_data.json`: every equipment, with the same fields.
 * - `workout_files/<YYYY-MM-DD_HH-MM-SS>_<sport id>_<token>.<gpx|fit|tcx|kml|kmz>`: the files as
 *   uploaded. Exports of versions before 1.1 also hold, beside a file of another format, the
 *   GPX FitTrackee made of it (the same name, `.gpx`): a second copy of the same workout.
 * - `user_data.json`, `user_comments_data.json` and the profile picture: no workout.
 */

export const FITTRACKEE_WORKOUTS = "user_workouts_data.json"
const EQUIPMENTS = "user_equipments_data.json"

/** The root of a FitTrackee export among `entries` (`""`, or one folder down), null when it is none. */
export const fitTrackeeRoot = (entries: ReadonlyArray<string>): string | null => exportRoot(entries, FITTRACKEE_WORKOUTS)

export const fitTrackeeMetadataEntries = (root: string): ReadonlyArray<string> => [root + FITTRACKEE_WORKOUTS, root + EQUIPMENTS]

/** FitTrackee's sport labels, as our sports; the commute is the one of `Cycling (Transport)`. */
const SPORTS: ReadonlyMap<string, SportType> = new Map<string, SportType>([
  ["Cycling (Sport)", "Ride"], ["Cycling (Transport)", "Ride"], ["Cycling (Trekking)", "Ride"], ["Cycling (Virtual)", "VirtualRide"],
  ["Halfbike", "Ride"], ["Mountain Biking", "MountainBikeRide"], ["Mountain Biking (Electric)", "EMountainBikeRide"],
  ["Running", "Run"], ["Trail", "TrailRun"], ["Walking", "Walk"], ["Hiking", "Hike"], ["Mountaineering", "Hike"],
  ["Skiing (Alpine)", "AlpineSki"], ["Skiing (Cross Country)", "NordicSki"], ["Snowshoes", "Snowshoe"],
  ["Ice Skating", "IceSkate"], ["Inline Skating", "InlineSkate"], ["Open Water Swimming", "OpenWaterSwim"],
  ["Rowing", "Rowing"], ["Kayaking", "Kayaking"], ["Kayaking (Whitewater)", "Kayaking"], ["Canoeing", "Canoeing"],
  ["Canoeing (Whitewater)", "Canoeing"], ["Standup Paddleboarding", "StandUpPaddling"], ["Windsurfing", "Windsurf"],
  ["Tennis (Outdoor)", "Tennis"], ["Padel (Outdoor)", "Padel"]
])

export const fitTrackeeSport = (label: string | null): SportType | null =>
  label === null ? null : SPORTS.get(label) ?? resolveSportName(label)

/** An equipment as gear: its label is its name; FitTrackee keeps no brand or model. */
const gearOf = (equipment: MetadataRecord): ExportedGear | null => {
  const name = textOf(equipment.label)
  if (name === null) return null
  const type = textOf((equipment.equipment_type as Record<string, unknown> | null)?.label)?.toLowerCase()
  return { name, brand: null, model: null, kind: type === "bike" ? "bike" : type === "shoes" ? "shoes" : "other" }
}

/** One gear per activity: the first bike or shoes of the workout's equipment, else its first. */
const workoutGear = (equipments: unknown): ExportedGear | null => {
  const gear = recordsOf(equipments).flatMap((e) => gearOf(e) ?? [])
  return gear.find((g) => g.kind !== "other") ?? gear[0] ?? null
}

export const planFitTrackee = (root: string, entries: ReadonlyArray<string>, records: MetadataRecords): ExportPlan => {
  const workouts = records.get(root + FITTRACKEE_WORKOUTS) ?? []
  const described = new Map<string, ExportedActivity>()
  for (const w of workouts) {
    const file = textOf(w.original_file)
    if (file === null) continue
    const label = textOf(w.sport_label)
    described.set(`${root}workout_files/${entryBase(file)}`, {
      name: textOf(w.title),
      description: describedWith(textOf(w.description), textOf(w.notes)),
      sportType: fitTrackeeSport(label),
      isCommute: label === "Cycling (Transport)",
      gear: workoutGear(w.equipments),
      images: []
    })
  }
  const listed = (records.get(root + EQUIPMENTS) ?? []).flatMap((e) => gearOf(e) ?? [])
  const gear = allGear(listed, described.values())

  // the GPX made of a workout's FIT, TCX or KML by versions before 1.1: the same workout again
  const madeGpx = new Set([...described.keys()].filter((f) => !/\.gpx$/i.test(f)).map((f) => f.replace(/\.[^./]+$/, ".gpx")))
  const sorted = sortEntries(entries, {
    root,
    used: new Set(fitTrackeeMetadataEntries(root)),
    isActivity: (normal) => normal.startsWith(`${root}workout_files/`) && !madeGpx.has(normal),
    metadataOf: (normal) => described.get(normal) ?? null
  })
  return { kind: "fittrackee", ...sorted, parts: [], gear, summaries: [], nested: [] }
}
