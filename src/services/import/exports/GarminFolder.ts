import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { garminMetadataEntries, isGarminPart } from "./GarminExport.ts"

/**
 * A Garmin Connect export unpacked into the watch folder (by hand, or by a tool that opens zips)
 * rather than dropped as its zip: its folder holds `DI_CONNECT/`, whose parts
 * (`DI_CONNECT/DI-Connect-Uploaded-Files/UploadedFiles_*.zip`) are unpacked in turn, each with
 * the summaries of the folder it lies in; the rest of the folder (wellness, sleep, settings) is
 * not imported, and the watch folder names it once rather than file by file.
 */

const MARKER = "DI_CONNECT"

/** The summaries files a folder export holds at most (an export has one per thousand activities or so). */
const MAX_SUMMARY_FILES = 200

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
 * The summaries of the Garmin export unpacked in `folder` of the watch folder `watchDir`, by
 * their path in the export, and the export's id (the hash of those texts: the same for each
 * of its parts, wherever it was unpacked).
 */
export const folderSummaries = (watchDir: string, folder: string): { readonly archive: string; readonly texts: ReadonlyMap<string, string> } => {
  const root = path.join(watchDir, folder, MARKER)
  let listed: Array<string> = []
  try {
    listed = fs.readdirSync(root, { recursive: true, encoding: "utf8" }).map((p) => `${MARKER}/${p.split(path.sep).join("/")}`)
  } catch {
    // the folder went away meanwhile: its parts are imported without names
  }
  const texts = new Map<string, string>()
  const hash = createHash("sha256").update(folder)
  for (const entry of garminMetadataEntries(listed).toSorted().slice(0, MAX_SUMMARY_FILES)) {
    try {
      const text = fs.readFileSync(path.join(watchDir, folder, entry), "utf8")
      texts.set(entry, text)
      hash.update(entry).update(text)
    } catch {
      // gone, or not a file: says nothing
    }
  }
  return { archive: `garmin-folder-${hash.digest("hex").slice(0, 32)}`, texts }
}
