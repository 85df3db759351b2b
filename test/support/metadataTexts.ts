import { DEFAULT_EXPORT_METADATA_LIMITS } from "../../src/services/platform/AppConfig.ts"
import { garminMetadataFormat, garminSummariesOf } from "../../src/services/import/exports/GarminExport.ts"
import { MetadataBudget, type MetadataFormat, type MetadataLimits, type MetadataRecords, readMetadataRecords } from "../../src/services/import/exports/MetadataRecords.ts"

/** The records of metadata files given as texts, by their entry, read as the archive module reads them (within `limits`). */
export const recordsOfTexts = async (
  texts: Iterable<readonly [string, string]>,
  format: MetadataFormat | ((entry: string) => MetadataFormat),
  limits: MetadataLimits = DEFAULT_EXPORT_METADATA_LIMITS
): Promise<MetadataRecords> => {
  const budget = new MetadataBudget(limits)
  const records = new Map<string, ReadonlyArray<Record<string, unknown>>>()
  for (const [entry, text] of texts) records.set(entry, await readMetadataRecords(entry, [text], typeof format === "function" ? format(entry) : format, budget))
  return records
}

/** The summaries that Garmin summaries files given as texts describe. */
export const summariesOfTexts = async (texts: ReadonlyArray<string>) =>
  garminSummariesOf((await recordsOfTexts(texts.map((t, i) => [`${i}_summarizedActivities.json`, t] as const), garminMetadataFormat)).values())
