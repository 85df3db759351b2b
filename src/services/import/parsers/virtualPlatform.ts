import type { WorldType } from "../../../schema/ActivityDraft.ts"
import type { ParsedActivity } from "../../../schema/ParsedActivity.ts"
import type { SportType } from "../../../schema/SportType.ts"

/**
 * Indoor training platforms, recognised from the name of the device or app that wrote the file
 * (FIT manufacturer or product, TCX Creator or Author, GPX creator) or the activity's own name,
 * with the world their rides take place in. Their positions (when they write any) lie in a
 * virtual world drawn over a real map (Watopia over the Solomon Islands): such an activity is
 * virtual, located nowhere.
 */
const PLATFORMS: ReadonlyArray<readonly [RegExp, WorldType]> = [
  [/\bzwift\b/i, "zwift"],
  [/\brouvy\b/i, "rouvy"],
  [/\bmy\s?whoosh\b/i, "myWhoosh"],
  // platforms without a world of their own in the vocabulary
  [/\btrainer\s?road\b|\bfulgaz\b|\bbkool\b|\bkinomap\b|\brgt\s?cycling\b|\bwahoo\s?(systm|x)\b|\bsufferfest\b|\bindievelo\b|\bbiketerra\b|\btacx\s?(training|desktop)\b|\bwhoosh\b/i, "realWorld"]
]

/** The world of the platform that `names` name, or null when none names one. */
export const virtualPlatform = (names: ReadonlyArray<string | null>): WorldType | null => {
  for (const name of names) {
    if (name === null) continue
    for (const [pattern, world] of PLATFORMS) if (pattern.test(name)) return world
  }
  return null
}

const VIRTUAL: Partial<Record<SportType, SportType>> = {
  Ride: "VirtualRide", GravelRide: "VirtualRide", MountainBikeRide: "VirtualRide", EBikeRide: "VirtualRide",
  Run: "VirtualRun", TrailRun: "VirtualRun",
  Rowing: "VirtualRow"
}

/** The virtual counterpart of a sport (a ride on a platform is a VirtualRide); other sports as they are. */
export const virtualSport = (sport: SportType): SportType => VIRTUAL[sport] ?? sport

/** The activity as recorded on a platform, when its device or name says so: virtual, in the platform's world. */
export const recogniseVirtual = (activity: ParsedActivity): ParsedActivity => {
  const world = virtualPlatform([activity.deviceName, activity.name])
  if (world === null) return activity
  return { ...activity, sportType: virtualSport(activity.sportType), worldType: world, virtual: true }
}
