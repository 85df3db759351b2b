import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { garminMetadataEntries, garminMetadataFormat, isGarminPart } from "./GarminExport.ts"
import { type MetadataBudget, MetadataOverLimit, type MetadataRecord, readMetadataRecords } from "./MetadataRecords.ts"

/**
 * A Garmin Connect export unpacked into the watch folder (by hand, or by a tool that opens zips)
 * rather than dropped as its zip: its folder holds `DI_CONNECT/`, whose parts
 * (`DI_CONNECT/DI-Connect-Uploaded-Files/UploadedFiles_*.zip`) are unpacked in turn, each with
 * the summaries and gear of the folder it lies in; the rest of the folder (wellness, sleep, settings) is
 * not imported, and the watch folder names it once rather than file by file.
 */

const MARKER = "DI_CONNECT"

/** The summaries and gear files a folder export holds at most (an export has a summaries file per thousand activities or so). */
const MAX_METADATA_FILES = 200

/**
 * The folder of the Garmin export that the path `relative` (under the watch folder, `/`
 * separated) lies in: `""` for an export unpacked at the folder's top, `garmin-export/` for one
 * in a subfolder; null when the path is in no Garmin export.
 */
export const garminExportFolder = (relative: string): string | null => {
  const parts = relative.split("/")
  const at = parts.indexOf(MARKER)
  return at === -1 || at === parts.length - 1 ? null : parts.slice(0, at).map((p) => `${p}/`).join("")
}

/** What the daemon log says, once, of the files of the Garmin export unpacked in `folder` that hold no activity. */
export const garminFolderSkipped = (folder: string): string =>
  `"${folder === "" ? "." : folder.slice(0, -1)}" in the watch folder is a Garmin Connect export: the activity files of its ` +
  `DI_CONNECT/DI-Connect-Uploaded-Files parts are imported, named by its summaries; the rest of it (wellness, sleep, settings, ` +
  `the summaries themselves) is not imported and is left where it is.`

/** Whether the zip `relative` (under the watch folder) is a part of a Garmin export unpacked there. */
export const isFolderGarminPart = (relative: string): boolean => garminExportFolder(relative) !== null && isGarminPart(relative)

/**
 * The records of the summaries and gear files of the Garmin export unpacked in `folder` of the watch folder
 * `watchDir`, by their path in the export, read as a stream within the limits of `budget`
 * (MetadataOverLimit names a file past them, its size told by the file system or counted as it
 * is read), and the export's id (the hash of their bytes: the same for each of its parts,
 * wherever it was unpacked).
 */
export const folderMetadata = async (
  watchDir: string,
  folder: string,
  budget: MetadataBudget
): Promise<{ readonly archive: string; readonly records: ReadonlyMap<string, ReadonlyArray<MetadataRecord>> }> => {
  const root = path.join(watchDir, folder, MARKER)
  let listed: Array<string> = []
  try {
    listed = fs.readdirSync(root, { recursive: true, encoding: "utf8" }).map((p) => `${MARKER}/${p.split(path.sep).join("/")}`)
  } catch {
    // the folder went away meanwhile: its parts are imported without names
  }
  const records = new Map<string, ReadonlyArray<MetadataRecord>>()
  const hash = createHash("sha256").update(folder)
  for (const entry of garminMetadataEntries(listed).toSorted().slice(0, MAX_METADATA_FILES)) {
    let file: fs.promises.FileHandle | null = null
    try {
      // never through a link nor waiting on a pipe: what the folder holds itself
      file = await fs.promises.open(path.join(watchDir, folder, entry), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK)
      const stat = await file.stat()
      if (!stat.isFile()) continue
      // a file whose size is past the bound (a sparse one too) is refused before it is read
      budget.countBytes(entry, stat.size, 0)
      hash.update(entry)
      records.set(entry, await readMetadataRecords(entry, hashing(file.createReadStream({ autoClose: false }), hash), garminMetadataFormat(entry), budget))
    } catch (e) {
      if (e instanceof MetadataOverLimit) throw e
      // gone, or unreadable: says nothing
    } finally {
      await file?.close().catch(() => undefined)
    }
  }
  return { archive: `garmin-folder-${hash.digest("hex").slice(0, 32)}`, records }
}

/** The chunks of `source`, each added to `hash` as it passes. */
async function* hashing(source: AsyncIterable<Buffer>, hash: ReturnType<typeof createHash>): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    hash.update(chunk)
    yield chunk
  }
}
