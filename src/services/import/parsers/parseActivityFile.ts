import type { FileFormat, ParsedActivity } from "../../../schema/ParsedActivity.ts"
import { ActivityFileError } from "./ActivityFileError.ts"
import { parseFit } from "./fit/parseFit.ts"
import { parseGpx } from "./parseGpx.ts"
import { parseTcx } from "./parseTcx.ts"

export { ActivityFileError } from "./ActivityFileError.ts"

/**
 * Parses one activity file into one ParsedActivity per activity it holds (normally one; one per
 * sport session of a multi-sport FIT; one per <Activity> of a TCX). Rejects only with
 * ActivityFileError, whose message says what is wrong with that file. Pure and synchronous at
 * heart (safe in a worker thread); every loop is bounded by the input size.
 */
export const parseActivityFile = (
  bytes: Uint8Array,
  format: FileFormat,
  filename: string
): Promise<ReadonlyArray<ParsedActivity>> => {
  try {
    switch (format) {
      case "fit":
        return Promise.resolve(parseFit(bytes, filename))
      case "tcx":
        return Promise.resolve(parseTcx(bytes, filename))
      case "gpx":
        return Promise.resolve(parseGpx(bytes, filename))
      default:
        return Promise.reject(new ActivityFileError({ message: `"${filename}" has an unsupported format` }))
    }
  } catch (e) {
    if (e instanceof ActivityFileError) return Promise.reject(e)
    const detail = e instanceof Error ? e.message : String(e)
    return Promise.reject(new ActivityFileError({ message: `"${filename}" could not be read as ${String(format).toUpperCase()}: ${detail}` }))
  }
}
