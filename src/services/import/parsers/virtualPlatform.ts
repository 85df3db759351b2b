import type { WorldType } from "../../../schema/ActivityDraft.ts"
import type { ParsedActivity } from "../../../schema/ParsedActivity.ts"
import type { SportType } from "../../../schema/SportType.ts"

/**
 * Indoor training platforms, recognised from the name of the device or app that wrote the file
 * (FIT manufacturer or product, TCX Creator or Author, GPX creator) or the activity's own name,
 * or from a track in one of Zwift's worlds drawn over the sea, with the world their rides take
 * place in. Their positions (when they write any) lie in a
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

/**
 * Zwift's worlds that are drawn over open sea (Watopia near the Solomon Islands, Crit City and
 * the Makuri Islands near Santa Cruz, France off New Caledonia), as [south, west, north, east]:
 * a track there was ridden in Zwift whatever its file says. Zwift's other worlds (Richmond,
 * London, New York, Innsbruck, Yorkshire, Paris, Scotland) are drawn over the real places, so
 * their tracks tell nothing.
 */
const SEA_WORLDS: ReadonlyArray<readonly [number, number, number, number]> = [
  [-11.74087, 166.87747, -11.62597, 167.03255], // Watopia
  [-10.4038, 165.7824, -10.3657, 165.8207], // Crit City
  [-10.85234, 165.76591, -10.73746, 165.88222], // Makuri Islands
  [-21.7564, 166.1384, -21.64155, 166.26125] // France
]

/** Indexed, without destructuring: it runs for every position of every file. */
const inSeaWorld = (lat: number, lng: number): boolean => {
  for (let w = 0; w < SEA_WORLDS.length; w++) {
    const box = SEA_WORLDS[w]!
    if (lat >= box[0] && lat <= box[2] && lng >= box[1] && lng <= box[3]) return true
  }
  return false
}

/** Whether most of the activity's positions (at least half, and more than one) lie in a Zwift world drawn over the sea. */
export const ridesInZwiftWorld = (lat: ReadonlyArray<number | null>, lng: ReadonlyArray<number | null>): boolean => {
  let positions = 0
  let inside = 0
  for (let i = 0; i < lat.length; i++) {
    const a = lat[i]
    const b = lng[i]
    if (a === null || a === undefined || b === null || b === undefined) continue
    positions++
    if (inSeaWorld(a, b)) inside++
  }
  return inside > 1 && inside * 2 >= positions
}

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

/**
 * The activity as recorded on a platform, when its device or name says so, or its track lies in
 * a Zwift world drawn over the sea: virtual, in the platform's world.
 */
export const recogniseVirtual = (activity: ParsedActivity): ParsedActivity => {
  const world = virtualPlatform([activity.deviceName, activity.name]) ??
    (ridesInZwiftWorld(activity.samples.lat, activity.samples.lng) ? "zwift" : null)
  if (world === null) return activity
  return { ...activity, sportType: virtualSport(activity.sportType), worldType: world, virtual: true }
}
