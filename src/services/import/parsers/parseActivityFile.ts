import type { FileFormat, ParsedActivity } from "../../../schema/ParsedActivity.ts"
import type { SportType } from "../../../schema/SportType.ts"
import { ActivityFileError } from "./ActivityFileError.ts"
import { parseFit } from "./fit/parseFit.ts"
import { parseGpx } from "./parseGpx.ts"
import { parseKml } from "./parseKml.ts"
import { parseKmz } from "./parseKmz.ts"
import { parseTcx } from "./parseTcx.ts"
import { inferSport } from "./inferSport.ts"
import { isUsable, repairActivity } from "./repairSamples.ts"
import { recogniseVirtual } from "./virtualPlatform.ts"

export { ActivityFileError } from "./ActivityFileError.ts"

/**
 * Parses one activity file into one ParsedActivity per activity it holds (normally one; one per
 * sport session of a multi-sport FIT; one per <Activity> of a TCX; a KMZ's KML read as a KML). Rejects only with
 * ActivityFileError, whose message says what is wrong with that file. Each activity comes
 * repaired (repairSamples): its impossible samples dropped and named; one recorded on an indoor
 * platform is virtual (virtualPlatform); one whose file names no sport is given the sport its
 * samples tell (inferSport). `chosenSport`, the sport the athlete gave the file
 * elsewhere (a Strava export's activities.csv) or gave the activity by hand, is the sport of a
 * file of one activity from the start, so that everything is computed as that sport (a "Virtual
 * Ride" is virtual, located nowhere); a multisport file keeps its own sports, but for the
 * activity starting nearest `chosenAt` (epoch ms) when given. Pure at heart (safe in a worker
 * thread); every loop is bounded by the input size.
 */
export const parseActivityFile = async (
  bytes: Uint8Array,
  format: FileFormat,
  filename: string,
  chosenSport?: SportType,
  chosenAt?: number
): Promise<ReadonlyArray<ParsedActivity>> => {
  try {
    const parsed = format === "kmz" ? await parseKmz(bytes, filename) : PARSERS[format](bytes, filename)
    const activities = parsed.map(recogniseVirtual)
    const chosenIndex = chosenSport === undefined
      ? -1
      : activities.length === 1
      ? 0
      : chosenAt === undefined
      ? -1
      : activities.reduce((best, a, i) => (Math.abs(a.startTime - chosenAt) < Math.abs(activities[best]!.startTime - chosenAt) ? i : best), 0)
    const chosen = activities.map((a, i) => (i === chosenIndex ? withSport(a, chosenSport!) : a))
    // impossible samples are dropped: a file is refused only when nothing usable remains
    // a file that names no sport is given the one its repaired samples tell (a GPS jump would mislead it)
    const repaired = chosen.map((activity) => repairActivity(activity)).filter(isUsable).map(inferSport)
    if (repaired.length === 0) throw new ActivityFileError({ message: `"${filename}" holds nothing usable: every sample of it is impossible` })
    return repaired
  } catch (e) {
    if (e instanceof ActivityFileError) throw e
    const detail = e instanceof Error ? e.message : String(e)
    throw new ActivityFileError({ message: `"${filename}" could not be read as ${String(format).toUpperCase()}: ${detail}` })
  }
}

/** The synchronous parsers, by format (a KMZ is unzipped first, then read as a KML). */
const PARSERS: Record<Exclude<FileFormat, "kmz">, (bytes: Uint8Array, filename: string) => ReadonlyArray<ParsedActivity>> = {
  fit: parseFit,
  tcx: parseTcx,
  gpx: parseGpx,
  kml: parseKml
}

/** The activity as the sport the athlete chose; a virtual sport is virtual (its world as recognised, if any). */
const withSport = (activity: ParsedActivity, sportType: SportType): ParsedActivity =>
  sportType.startsWith("Virtual") ? { ...activity, sportType, virtual: true, sportUnknown: false } : { ...activity, sportType, sportUnknown: false }
