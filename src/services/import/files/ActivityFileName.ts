import * as Either from "effect/Either"
import type { FileFormat } from "../../../schema/ParsedActivity.ts"

/**
 * The rules for the name of an uploaded activity file (422 `unsupported_file_type` with
 * these messages): valid UTF-8 without control characters, no path, at most 200 bytes, a
 * non-empty stem that does not start with a dot, and a fit, tcx, gpx, kml or kmz extension,
 * gzipped or not (`ride.fit.gz`, as in a Strava bulk export), stored lowercased.
 */
export const MAX_FILENAME_BYTES = 200
export const SUPPORTED_EXTENSIONS: ReadonlyArray<FileFormat> = ["fit", "tcx", "gpx", "kml", "kmz"]

const EXTENSION = /\.(fit|tcx|gpx|kml|kmz)(\.gz)?$/i
const SPLIT = /\.(?:(?:fit|tcx|gpx|kml|kmz)(?:\.gz)?|zip)$/i

export const formatOf = (filename: string): FileFormat | null =>
  (EXTENSION.exec(filename)?.[1]?.toLowerCase() as FileFormat | undefined) ?? null

/** A zip of activity files (a Strava bulk export): unpacked into the watch folder, not imported itself. */
export const isZipName = (filename: string): boolean => /\.zip$/i.test(filename)

/** Whether an activity file name (one `formatOf` accepts) is of a gzipped file. */
export const isGzipped = (filename: string): boolean => /\.gz$/i.test(filename)

/** `ride.fit.gz` → `["ride", ".fit.gz"]`, `export.zip` → `["export", ".zip"]`; a name without a supported extension splits at its last dot. */
export const splitExtension = (filename: string): readonly [string, string] => {
  const match = SPLIT.exec(filename)
  const at = match !== null ? match.index : filename.lastIndexOf(".")
  return at === -1 ? [filename, ""] : [filename.slice(0, at), filename.slice(at)]
}

export const checkActivityFileName = (raw: string): Either.Either<{ readonly name: string; readonly format: FileFormat | "zip" }, string> => {
  // the multipart parser decodes names as UTF-8; U+FFFD marks bytes that were not
  if (raw.includes("\uFFFD") || !raw.isWellFormed()) return Either.left("The file name is not valid: it is not valid UTF-8.")
  if (/[\x00-\x1f\x7f]/.test(raw)) return Either.left("The file name is not valid: it contains control characters.")
  if (raw.includes("/") || raw.includes("\\")) return Either.left("The file name is not valid: it must not contain a path.")
  if (Buffer.byteLength(raw, "utf8") > MAX_FILENAME_BYTES) return Either.left("The file name cannot be longer than 200 bytes.")
  const [stem] = splitExtension(raw)
  if (stem.trim() === "" || raw.startsWith(".")) return Either.left("The file name is not valid.")
  if (isZipName(raw)) return Either.right({ name: `${stem}.zip`, format: "zip" })
  const format = formatOf(raw)
  if (format === null) return Either.left("The file type is not supported: send a .fit, .tcx, .gpx, .kml or .kmz file (gzipped or not), or a .zip of them.")
  return Either.right({ name: `${stem}.${format}${isGzipped(raw) ? ".gz" : ""}`, format })
}
