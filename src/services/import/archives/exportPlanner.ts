import { DEFAULT_EXPORT_METADATA_LIMITS } from "../../platform/AppConfig.ts"
import { planExport, recogniseExport } from "../exports/ExportLayout.ts"
import { type ExportPlan, normalEntry } from "../exports/ExportPlan.ts"
import { garminMetadataOf, planPart } from "../exports/GarminExport.ts"
import { folderMetadata, garminExportFolder, isFolderGarminPart } from "../exports/GarminFolder.ts"
import { MetadataBudget, type MetadataLimits, MetadataOverLimit, type MetadataRecord, readMetadataRecords } from "../exports/MetadataRecords.ts"
import { type ZipPlanner, ZipProblem, type ZipReading } from "./ZipArchive.ts"

/**
 * What to unpack of a zip dropped into the watch folder, by its export's layout (ExportLayout):
 * the plan that `stageZip` follows. A zip is planned from its entries' names and the metadata
 * entries its layout names, read within `limits` (MetadataRecords; past them the zip is refused
 * naming the file); a part of a Garmin export unpacked in the folder (`relative`, its path under
 * the watch folder `watchDir`) by the part's plan with the summaries and gear of the folder it lies in.
 * An archive inside a zip of no known layout refuses the whole zip (its activities would be
 * lost unseen).
 */
export const exportPlanner = (watchDir: string, relative?: string, limits: MetadataLimits = DEFAULT_EXPORT_METADATA_LIMITS): ZipPlanner => {
  const planOf = async (zip: ZipReading) => {
    const folder = relative === undefined || !isFolderGarminPart(relative) ? null : garminExportFolder(relative)
    const budget = new MetadataBudget(limits)
    if (folder !== null) {
      const { archive, records } = await folderMetadata(watchDir, folder, budget)
      const part = planPart(zip.names)
      const plan: ExportPlan = { kind: "garmin", ...part, parts: [], ...garminMetadataOf(records), nested: [] }
      return { plan, archive }
    }
    const layout = recogniseExport(zip.names)
    const records = new Map<string, ReadonlyArray<MetadataRecord>>()
    for (const wanted of layout.metadataEntries) {
      // of two entries of the name, the first is the export's
      const name = zip.names.find((n) => normalEntry(n) === wanted)
      if (name === undefined) continue
      const read = await zip.read(
        name,
        (source) => readMetadataRecords(name, source, layout.metadataFormat(wanted), budget),
        (size) => budget.countBytes(name, size, 0)
      )
      if (read !== undefined) records.set(wanted, read)
    }
    return { plan: planExport(layout, zip.names, records), archive: null }
  }
  return {
    plan: async (zip) => {
      const planned = await planOf(zip).catch((e) => {
        throw e instanceof MetadataOverLimit ? new ZipProblem(e.message) : e
      })
      const nested = planned.plan.nested[0]
      if (nested !== undefined) {
        throw new ZipProblem(
          `it holds another archive, "${nested}", and archives inside an archive are not unpacked; nothing was unpacked. ` +
            `Unpack it and drop its activity files (or that archive on its own) into the watch folder, then drop this zip again without it`
        )
      }
      return planned
    },
    planPart
  }
}
