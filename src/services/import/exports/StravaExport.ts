import { resolveSportName } from "../parsers/sportNames.ts"
import type { ExportedActivity, ExportedGear } from "../archives/ExportedActivity.ts"
import { allGear, byName, describedWith, textOf } from "./ExportReading.ts"
import type { MetadataFormat, MetadataRecord, MetadataRecords } from "./MetadataRecords.ts"
import { type ExportPlan, exportRoot, normalEntry, sortEntries } from "./ExportPlan.ts"

/**
 * Strava's bulk export ("Download or Delete Your Account", `export_<athlete id>.zip`), laid
 * out at its root as:
 *
 * - `activities.csv`: a row per activity. Read here: `Activity Name`, `Activity Type` (Strava's
 *   sport words: `Ride`, `Virtual Ride`, `Nordic Ski`, `E-Bike Ride`), `Activity Description`,
 *   `Activity Private Note`, `Commute` (`true`/`false`; later exports repeat a numeric `Commute`
 *   further on, the first one counts), `Activity Gear` (the name of a bike or shoe of the two
 *   files below), `Filename` (`activities/<activity id>.fit.gz`, `.gpx`, `.tcx.gz` ...; empty
 *   for an activity entered by hand) and `Media` (the activity's photos, `media/<uuid>.jpg`
 *   paths joined by `|`).
 * - `activities/`: the files as they were uploaded, gzipped or not.
 * - `media/`: the photos (and videos) of the activities.
 * - `bikes.csv` (`Bike Name`, `Bike Brand`, `Bike Model`, `Bike Default Sport Types`) and
 *   `shoes.csv` (`Shoe Name`, `Shoe Brand`, `Shoe Model`, `Shoe Default Sport Types`; a shoe's
 *   name may be empty, its activities then name it by brand and model).
 * - everything else (`profile.csv`, `comments.csv`, `clubs/`, `routes/` of planned routes,
 *   ...) holds no recorded activity.
 *
 * An export re-zipped from its unpacked folder has all of it one folder down: the folder
 * holding `activities.csv` is the export's root.
 */

const CSV = "activities.csv"

/** The root of a Strava export among `entries` (`""`, or `export_123/`), null when it is none. */
export const stravaRoot = (entries: ReadonlyArray<string>): string | null => exportRoot(entries, CSV)

/** The metadata files of a Strava export rooted at `root`, to be read for `planStrava`. */
export const stravaMetadataEntries = (root: string): ReadonlyArray<string> => ["activities.csv", "bikes.csv", "shoes.csv"].map((f) => root + f)

/** The columns read of the three files: no other is kept while they are read. */
const COLUMNS = [
  "Activity Name", "Activity Type", "Activity Description", "Activity Private Note", "Commute", "Activity Gear", "Filename", "Media",
  ...["Bike", "Shoe"].flatMap((prefix) => [`${prefix} Name`, `${prefix} Brand`, `${prefix} Model`])
]

/** How the metadata files of a Strava export are read (the first column of a name counts, see `Commute`). */
export const stravaMetadataFormat: MetadataFormat = { kind: "csv", columns: COLUMNS }

/** The rows of a CSV, each read by column name, blank cells null. */
const csvRecords = (rows: ReadonlyArray<MetadataRecord> | undefined): Array<(column: string) => string | null> =>
  (rows ?? []).map((row) => (column: string) => textOf(row[column]))

/** The gear of one of the two gear files, `Bike ...` or `Shoe ...` columns. */
const gearOf = (rows: ReadonlyArray<MetadataRecord> | undefined, prefix: "Bike" | "Shoe", kind: ExportedGear["kind"]): Array<ExportedGear> =>
  csvRecords(rows).flatMap((cell) => {
    const brand = cell(`${prefix} Brand`)
    const model = cell(`${prefix} Model`)
    const name = cell(`${prefix} Name`) ?? ([brand, model].filter((t) => t !== null).join(" ") || null)
    return name === null ? [] : [{ name, brand, model, kind }]
  })

export const planStrava = (root: string, entries: ReadonlyArray<string>, records: MetadataRecords): ExportPlan => {
  const listed = [...gearOf(records.get(`${root}bikes.csv`), "Bike", "bike"), ...gearOf(records.get(`${root}shoes.csv`), "Shoe", "shoes")]
  const gearNamed = byName(listed, (g) => g.name)
  const gearByMake = byName(listed.filter((g) => g.brand !== null || g.model !== null), (g) => [g.brand, g.model].filter((t) => t !== null).join(" "))
  const present = new Set(entries.map(normalEntry))

  const described = new Map<string, ExportedActivity>()
  for (const cell of csvRecords(records.get(`${root}${CSV}`))) {
    const filename = cell("Filename")
    if (filename === null) continue
    const gearName = cell("Activity Gear")
    const flag = cell("Commute")?.toLowerCase()
    described.set(root + normalEntry(filename), {
      name: cell("Activity Name"),
      description: describedWith(cell("Activity Description"), cell("Activity Private Note")),
      sportType: resolveSportName(cell("Activity Type")),
      isCommute: flag === "true" || flag === "1" || flag === "1.0",
      gear: gearName === null ? null : gearNamed(gearName) ?? gearByMake(gearName) ?? { name: gearName, brand: null, model: null, kind: null },
      images: (cell("Media") ?? "").split("|").map((m) => m.trim()).filter((m) => m !== "" && present.has(root + m)).map((m) => root + m)
    })
  }

  // the gear of the two files, and what activities name that they do not list
  const gear = allGear(listed, described.values())
  const used = new Set([...stravaMetadataEntries(root), ...[...described.values()].flatMap((a) => a.images)])
  // an activity file is a recorded activity, described or not, wherever it lies (activities/, or put in by hand), but
  // in routes/, which holds planned routes
  const sorted = sortEntries(entries, { root, used, isActivity: (normal) => !normal.startsWith(`${root}routes/`), metadataOf: (normal) => described.get(normal) ?? null })
  return { kind: "strava", ...sorted, parts: [], gear, summaries: [], nested: [] }
}
