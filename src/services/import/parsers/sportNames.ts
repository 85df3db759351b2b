import { SPORT_TYPES, type SportType } from "../../../schema/SportType.ts"

/** Lower-case letters and digits only: "Trail Run", "trail_run" and "TrailRun" all become "trailrun". */
const normalize = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]/g, "")

const EXACT: ReadonlyMap<string, SportType> = new Map(SPORT_TYPES.map((s) => [normalize(s), s]))

/** Common sport words of TCX, GPX and FIT sport profile names (normalized). */
const ALIASES: ReadonlyMap<string, SportType> = new Map<string, SportType>([
  ["running", "Run"], ["run", "Run"], ["jogging", "Run"], ["streetrunning", "Run"], ["trackrunning", "Run"],
  ["trailrunning", "TrailRun"], ["treadmillrunning", "VirtualRun"], ["treadmill", "VirtualRun"], ["indoorrunning", "VirtualRun"],
  ["biking", "Ride"], ["cycling", "Ride"], ["bike", "Ride"], ["roadbiking", "Ride"], ["roadcycling", "Ride"], ["road", "Ride"],
  ["mountainbiking", "MountainBikeRide"], ["mtb", "MountainBikeRide"], ["mountainbike", "MountainBikeRide"],
  ["gravelcycling", "GravelRide"], ["gravelbiking", "GravelRide"], ["gravel", "GravelRide"],
  ["ebiking", "EBikeRide"], ["ebike", "EBikeRide"], ["virtualcycling", "VirtualRide"], ["indoorcycling", "VirtualRide"],
  ["walking", "Walk"], ["walk", "Walk"], ["hiking", "Hike"], ["hike", "Hike"],
  ["swimming", "Swim"], ["swim", "Swim"], ["lapswimming", "Swim"], ["poolswim", "Swim"], ["poolswimming", "Swim"],
  ["openwater", "OpenWaterSwim"], ["openwaterswimming", "OpenWaterSwim"],
  ["rowing", "Rowing"], ["indoorrowing", "VirtualRow"], ["kayak", "Kayaking"], ["canoe", "Canoeing"],
  ["paddling", "StandUpPaddling"], ["standuppaddleboarding", "StandUpPaddling"], ["sup", "StandUpPaddling"],
  ["crosscountryskiing", "NordicSki"], ["skiing", "AlpineSki"], ["downhillskiing", "AlpineSki"], ["snowboarding", "Snowboard"],
  ["strengthtraining", "WeightTraining"], ["strength", "WeightTraining"], ["hiit", "HighIntensityIntervalTraining"],
  ["other", "Workout"], ["generic", "Workout"], ["training", "Workout"], ["fitness", "Workout"],
  // the activity types of Garmin Connect's GPX and of other exporters, normalized
  ["ultrarun", "Run"], ["treadmillrun", "VirtualRun"],
  ["cyclocross", "Ride"], ["trackcycling", "Ride"],
  ["recumbentcycling", "Ride"], ["bmx", "Ride"], ["downhillbiking", "MountainBikeRide"], ["ebikefitness", "EBikeRide"],
  ["ebikemountain", "EMountainBikeRide"], ["handcycling", "Handcycle"], ["casualwalking", "Walk"], ["speedwalking", "Walk"],
  ["mountaineering", "Hike"], ["openwaterswim", "OpenWaterSwim"],
  ["row", "Rowing"], ["rowingv2", "Rowing"], ["indoorrower", "VirtualRow"], ["rowingmachine", "VirtualRow"], ["ergometer", "VirtualRow"],
  ["whitewaterraftingkayaking", "Kayaking"], ["paddleboarding", "StandUpPaddling"],
  ["kiteboarding", "Kitesurf"], ["kitesurfing", "Kitesurf"], ["windsurfing", "Windsurf"], ["sailing", "Sail"],
  ["snowshoeing", "Snowshoe"], ["inlineskating", "InlineSkate"], ["iceskating", "IceSkate"], ["skating", "IceSkate"],
  ["crosscountryskiingws", "NordicSki"], ["skateskiingws", "NordicSki"], ["resortskiingsnowboardingws", "AlpineSki"],
  ["backcountryskiingsnowboardingws", "BackcountrySki"], ["bouldering", "RockClimbing"],
  ["indoorclimbing", "RockClimbing"], ["stairclimbing", "StairStepper"], ["indoorcardio", "Workout"], ["cardio", "Workout"]
])

/** The sport type a free-text sport name denotes (exact vocabulary name or a common alias), or null. */
export const resolveSportName = (text: string | null | undefined): SportType | null => {
  if (text == null) return null
  const key = normalize(text)
  if (key === "") return null
  return EXACT.get(key) ?? ALIASES.get(key) ?? null
}

/** A sport as a person reads it: "Open Water Swim", "Virtual Ride". */
export const sportWords = (sport: SportType): string => sport.replace(/(?<!^)(?=[A-Z])/g, " ")
