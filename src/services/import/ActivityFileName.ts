import { Either } from "effect"
import type { FileFormat } from "../../schema/ParsedActivity.ts"

/**
 * The rules for the name of an uploaded activity file (422 `unsupported_file_type` with
 * these messages): valid UTF-8 without control characters, no path, at most 200 bytes, a
 * non-empty stem that does not start with a dot, and a fit, tcx or gpx extension (stored
 * lowercased).
 */
export const MAX_FILENAME_BYTES = 200
export const SUPPORTED_EXTENSIONS: ReadonlyArray<FileFormat> = ["fit", "tcx", "gpx"]

export const formatOf = (filename: string): FileFormat | null => {
  const ext = /\.([^.]+)$/.exec(filename)?.[1]?.toLowerCase()
  return ext === "fit" || ext === "tcx" || ext === "gpx" ? ext : null
}

export const checkActivityFileName = (raw: string): Either.Either<{ readonly name: string; readonly format: FileFormat }, string> => {
  // the multipart parser decodes names as UTF-8; U+FFFD marks bytes that were not
  if (raw.includes("\uFFFD") || !raw.isWellFormed()) return Either.left("The file name is not valid: it is not valid UTF-8.")
  if (/[\x00-\x1f\x7f]/.test(raw)) return Either.left("The file name is not valid: it contains control characters.")
  if (raw.includes("/") || raw.includes("\\")) return Either.left("The file name is not valid: it must not contain a path.")
  if (Buffer.byteLength(raw, "utf8") > MAX_FILENAME_BYTES) return Either.left("The file name cannot be longer than 200 bytes.")
  const dot = raw.lastIndexOf(".")
  const stem = dot === -1 ? raw : raw.slice(0, dot)
  if (stem.trim() === "" || raw.startsWith(".")) return Either.left("The file name is not valid.")
  const format = formatOf(raw)
  if (format === null) return Either.left("The file type is not supported: send a .fit, .tcx or .gpx file.")
  return Either.right({ name: `${stem}.${format}`, format })
}
