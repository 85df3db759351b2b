import { endurainMetadataEntries, isEndurainExport, planEndurain } from "./EndurainExport.ts"
import { formatOf } from "../files/ActivityFileName.ts"
import { areaOf, type ExportKind, type ExportPlan, isArchiveEntry, isHiddenEntry, normalEntry, SkippedAreas } from "./ExportPlan.ts"
import { fitTrackeeMetadataEntries, fitTrackeeRoot, planFitTrackee } from "./FitTrackeeExport.ts"
import { garminMetadataEntries, garminMetadataFormat, isGarminExport, planGarmin } from "./GarminExport.ts"
import type { MetadataFormat, MetadataRecords } from "./MetadataRecords.ts"
import { planStrava, stravaMetadataEntries, stravaMetadataFormat, stravaRoot } from "./StravaExport.ts"

/**
 * Which peer's export an archive is, told from its list of entries alone (read from the zip's
 * central directory, or a folder's files by their path in it), and which of its entries hold
 * the metadata to read before its activity files are imported, and how. Pure: the archive
 * module reads those entries (MetadataRecords) and hands their records to planExport.
 */
export interface ExportLayout {
  readonly kind: ExportKind
  /** the folder of the archive the export lies in (`""`, or `export_123/` for one zipped again from its folder) */
  readonly root: string
  /** entries whose records planExport reads: JSON and CSV files (those present only) */
  readonly metadataEntries: ReadonlyArray<string>
  /** how each is read */
  readonly metadataFormat: (entry: string) => MetadataFormat
}

const JSON_LIST = (): MetadataFormat => ({ kind: "json" })

export const recogniseExport = (entries: ReadonlyArray<string>): ExportLayout => {
  const present = new Set(entries.map(normalEntry))
  const existing = (wanted: ReadonlyArray<string>) => wanted.filter((entry) => present.has(entry))
  if (isGarminExport(entries)) return { kind: "garmin", root: "", metadataEntries: garminMetadataEntries(entries), metadataFormat: garminMetadataFormat }
  const strava = stravaRoot(entries)
  if (strava !== null) return { kind: "strava", root: strava, metadataEntries: existing(stravaMetadataEntries(strava)), metadataFormat: () => stravaMetadataFormat }
  const fitTrackee = fitTrackeeRoot(entries)
  if (fitTrackee !== null) {
    return { kind: "fittrackee", root: fitTrackee, metadataEntries: existing(fitTrackeeMetadataEntries(fitTrackee)), metadataFormat: JSON_LIST }
  }
  if (isEndurainExport(entries)) return { kind: "endurain", root: "", metadataEntries: existing(endurainMetadataEntries), metadataFormat: JSON_LIST }
  return { kind: "unknown", root: "", metadataEntries: [], metadataFormat: JSON_LIST }
}

/**
 * What to do with each entry of an archive of `layout`, given the records of its metadata
 * entries (a missing or damaged one says nothing: the activity files are imported without it).
 */
export const planExport = (layout: ExportLayout, entries: ReadonlyArray<string>, records: MetadataRecords): ExportPlan => {
  switch (layout.kind) {
    case "garmin":
      return planGarmin(entries, records)
    case "strava":
      return planStrava(layout.root, entries, records)
    case "fittrackee":
      return planFitTrackee(layout.root, entries, records)
    case "endurain":
      return planEndurain(entries, records)
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
