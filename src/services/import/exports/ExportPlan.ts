import * as path from "node:path"
import type { FileImportSource } from "../../../schema/ApiModels.ts"
import type { FileFormat } from "../../../schema/ParsedActivity.ts"
import { formatOf } from "../files/ActivityFileName.ts"
import type { ExportedActivity, ExportedGear } from "../archives/ExportedActivity.ts"
import type { GarminSummary } from "./GarminExport.ts"

/** The peers whose exports are recognised; `unknown` is any other archive of activity files. */
export type ExportKind = "garmin" | "strava" | "fittrackee" | "endurain" | "unknown"

/** The import row's source of a file of each export (a plain zip's file is its own format's). */
export const EXPORT_SOURCES: Record<ExportKind, FileImportSource | null> = {
  garmin: "garminExport",
  strava: "stravaExport",
  fittrackee: "fitTrackeeExport",
  endurain: "endurainExport",
  unknown: null
}

/** The export's name in the daemon log. */
export const EXPORT_NAMES: Record<ExportKind, string> = {
  garmin: "a Garmin Connect export",
  strava: "a Strava bulk export",
  fittrackee: "a FitTrackee export",
  endurain: "an Endurain export",
  unknown: "a zip of activity files"
}

/** Archives and compressed files other than a gzipped activity file (`.fit.gz`). */
const ARCHIVE = /\.(zip|tar|tgz|tbz2?|txz|7z|rar|gz|bz2|xz|zst|lz|lzma|cab|jar)$/i

/** Whether an entry is an archive (a `.zip` inside the zip), an activity file gzipped excepted. */
export const isArchiveEntry = (entry: string): boolean => formatOf(entry) === null && ARCHIVE.test(entry)

/** An entry's path with `/` separators; folders end with `/`. */
export const normalEntry = (entry: string): string => entry.replaceAll("\\", "/")

/** Whether the entry is a folder, a dot-file, or in a dot-folder or the Finder's `__MACOSX/`: never looked at. */
export const isHiddenEntry = (entry: string): boolean => {
  const normal = normalEntry(entry)
  return normal.endsWith("/") || normal.split("/").some((part) => part.startsWith(".") || part === "__MACOSX")
}

/** Base name of an entry (`activities/123.fit.gz` → `123.fit.gz`). */
export const entryBase = (entry: string): string => path.posix.basename(normalEntry(entry))

/**
 * What the import does with an archive: each activity file imported with what the export says
 * about it, the nested archives that hold activity files (Garmin's parts) opened in turn, all
 * the gear the export lists created, and the rest left out, silently but counted by area for
 * the daemon log.
 */
export interface ExportPlan {
  readonly kind: ExportKind
  /** activity files of the archive, each with what the export says about it (null: nothing) */
  readonly activities: ReadonlyArray<{ readonly entry: string; readonly format: FileFormat; readonly metadata: ExportedActivity | null }>
  /** archives inside it whose activity files are imported in turn (planned with `planPart`) */
  readonly parts: ReadonlyArray<string>
  /** every gear the export lists, used by its activities or not */
  readonly gear: ReadonlyArray<ExportedGear>
  /**
   * Garmin: the summaries that give each activity its name, sport and description, matched by
   * its start time once parsed (`matchSummary`), since the files carry no activity id
   */
  readonly summaries: ReadonlyArray<GarminSummary>
  /** what holds no activity (wellness, sleep, settings, other data): left out without a failed row */
  readonly skipped: ReadonlyArray<{ readonly area: string; readonly entries: number }>
  /** archives inside an archive of an unknown layout: whether they hold activities is not known */
  readonly nested: ReadonlyArray<string>
}

/** Counts skipped entries by area, in the order the areas are first met. */
export class SkippedAreas {
  readonly #counts = new Map<string, number>()
  add(area: string): void {
    this.#counts.set(area, (this.#counts.get(area) ?? 0) + 1)
  }
  list(): Array<{ readonly area: string; readonly entries: number }> {
    return [...this.#counts].map(([area, entries]) => ({ area, entries }))
  }
}

/** The area of an entry for the log: its folder `depth` levels deep (`DI_CONNECT/DI-Connect-Wellness`), `.` for the root's files. */
export const areaOf = (entry: string, depth = 1): string => {
  const parts = normalEntry(entry).split("/")
  return parts.length === 1 ? "." : parts.slice(0, Math.min(depth, parts.length - 1)).join("/")
}

/**
 * The root of an export among `entries`: the folder holding its `marker` file, at the top or
 * one folder down (an export zipped again from the folder it was unpacked to): `""` or
 * `export_123/`; null when no entry is the marker.
 */
export const exportRoot = (entries: ReadonlyArray<string>, marker: string): string | null => {
  for (const entry of entries) {
    const normal = normalEntry(entry)
    if (normal === marker) return ""
    if (normal.endsWith(`/${marker}`) && normal.split("/").length === 2) return normal.slice(0, -marker.length)
  }
  return null
}

/**
 * The activity files of an export rooted at `root`, each with what its metadata says, and the
 * rest counted by area: the entries already `used` (metadata files read, the activities'
 * photos) are neither.
 */
export const sortEntries = (entries: ReadonlyArray<string>, options: {
  readonly root: string
  readonly used: ReadonlySet<string>
  /** whether an activity file is one of the export's activities (not a planned route, not a copy) */
  readonly isActivity: (normal: string) => boolean
  readonly metadataOf: (normal: string) => ExportedActivity | null
}): Pick<ExportPlan, "activities" | "skipped"> => {
  const activities: Array<ExportPlan["activities"][number]> = []
  const skipped = new SkippedAreas()
  for (const entry of entries) {
    const normal = normalEntry(entry)
    if (isHiddenEntry(entry) || options.used.has(normal)) continue
    const format = formatOf(normal)
    if (format !== null && options.isActivity(normal)) activities.push({ entry, format, metadata: options.metadataOf(normal) })
    else skipped.add(areaOf(normal.slice(options.root.length)))
  }
  return { activities, skipped: skipped.list() }
}
