import type { FileFormat, ParsedActivity } from "../../../schema/ParsedActivity.ts"
import { ActivityFileError } from "./ActivityFileError.ts"
import { parseFit } from "./fit/parseFit.ts"
import { parseGpx } from "./parseGpx.ts"
import { parseTcx } from "./parseTcx.ts"
import { isUsable, repairActivity } from "./repairSamples.ts"
import { recogniseVirtual } from "./virtualPlatform.ts"

export { ActivityFileError } from "./ActivityFileError.ts"

/**
 * Parses one activity file into one ParsedActivity per activity it holds (normally one; one per
 * sport session of a multi-sport FIT; one per <Activity> of a TCX). Rejects only with
 * ActivityFileError, whose message says what is wrong with that file. Each activity comes
 * repaired (repairSamples): its impossible samples dropped and named; one recorded on an indoor
 * platform is virtual (virtualPlatform). Pure and synchronous at
 * heart (safe in a worker thread); every loop is bounded by the input size.
 */
export const parseActivityFile = (
  bytes: Uint8Array,
  format: FileFormat,
  filename: string
): Promise<ReadonlyArray<ParsedActivity>> => {
  try {
    const parse = format === "fit" ? parseFit : format === "tcx" ? parseTcx : format === "gpx" ? parseGpx : null
    if (parse === null) return Promise.reject(new ActivityFileError({ message: `"${filename}" has an unsupported format` }))
    // impossible samples are dropped: a file is refused only when nothing usable remains
    const repaired = parse(bytes, filename).map((activity) => repairActivity(recogniseVirtual(activity))).filter(isUsable)
    if (repaired.length === 0) {
      return Promise.reject(new ActivityFileError({ message: `"${filename}" holds nothing usable: every sample of it is impossible` }))
    }
    return Promise.resolve(repaired)
  } catch (e) {
    if (e instanceof ActivityFileError) return Promise.reject(e)
    const detail = e instanceof Error ? e.message : String(e)
    return Promise.reject(new ActivityFileError({ message: `"${filename}" could not be read as ${String(format).toUpperCase()}: ${detail}` }))
  }
}
