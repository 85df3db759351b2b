import { endurainMetadataEntries, isEndurainExport, planEndurain } from "./EndurainExport.ts"
import { formatOf } from "../ActivityFileName.ts"
import { areaOf, type ExportKind, type ExportPlan, isArchiveEntry, isHiddenEntry, normalEntry, SkippedAreas } from "./ExportPlan.ts"
import { fitTrackeeMetadataEntries, fitTrackeeRoot, planFitTrackee } from "./FitTrackeeExport.ts"
import { garminMetadataEntries, isGarminExport, planGarmin } from "./GarminExport.ts"
import { planStrava, stravaMetadataEntries, stravaRoot } from "./StravaExport.ts"

/**
 * Which peer's export an archive is, told from its list of entries alone (read from the zip's
 * central directory, or a folder's files by their path in it), and which of its entries hold
 * the metadata to read before its activity files are imported. Pure: the archive module reads
 * the entries and hands their texts to planExport.
 */
export interface ExportLayout {
  readonly kind: ExportKind
  /** the folder of the archive the export lies in (`""`, or `export_123/` for one zipped again from its folder) */
  readonly root: string
  /** entries whose texts planExport reads: small JSON and CSV files (those present only) */
  readonly metadataEntries: ReadonlyArray<string>
}

export const recogniseExport = (entries: ReadonlyArray<string>): ExportLayout => {
  const present = new Set(entries.map(normalEntry))
  const existing = (wanted: ReadonlyArray<string>) => wanted.filter((entry) => present.has(entry))
  if (isGarminExport(entries)) return { kind: "garmin", root: "", metadataEntries: garminMetadataEntries(entries) }
  const strava = stravaRoot(entries)
  if (strava !== null) return { kind: "strava", root: strava, metadataEntries: existing(stravaMetadataEntries(strava)) }
  const fitTrackee = fitTrackeeRoot(entries)
  if (fitTrackee !== null) return { kind: "fittrackee", root: fitTrackee, metadataEntries: existing(fitTrackeeMetadataEntries(fitTrackee)) }
  if (isEndurainExport(entries)) return { kind: "endurain", root: "", metadataEntries: existing(endurainMetadataEntries) }
  return { kind: "unknown", root: "", metadataEntries: [] }
}

/**
 * What to do with each entry of an archive of `layout`, given the texts of its metadata
 * entries (a missing or damaged one says nothing: the activity files are imported without it).
 */
export const planExport = (layout: ExportLayout, entries: ReadonlyArray<string>, texts: ReadonlyMap<string, string>): ExportPlan => {
  switch (layout.kind) {
    case "garmin":
      return planGarmin(entries, texts)
    case "strava":
      return planStrava(layout.root, entries, texts)
    case "fittrackee":
      return planFitTrackee(layout.root, entries, texts)
    case "endurain":
      return planEndurain(entries, texts)
    case "unknown":
      return planUnknown(entries)
  }
}

/**
 * An archive of no known layout: its activity files are imported as they are; an archive
 * inside it is `nested` (it may hold activities nobody would see: the caller refuses the
 * whole, naming it); anything else is left out.
 */
const planUnknown = (entries: ReadonlyArray<string>): ExportPlan => {
  const activities: Array<ExportPlan["activities"][number]> = []
  const nested: Array<string> = []
  const skipped = new SkippedAreas()
  for (const entry of entries) {
    if (isHiddenEntry(entry)) continue
    const format = formatOf(normalEntry(entry))
    if (format !== null) activities.push({ entry, format, metadata: null })
    else if (isArchiveEntry(entry)) nested.push(entry)
    else skipped.add(areaOf(entry))
  }
  return { kind: "unknown", activities, parts: [], gear: [], summaries: [], skipped: skipped.list(), nested }
}
