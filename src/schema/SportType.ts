/** The external platform's sport-type vocabulary (the names Strava uses for sport_type). */
export const SPORT_TYPES = [
  "Ride", "MountainBikeRide", "GravelRide", "EBikeRide", "EMountainBikeRide", "VirtualRide", "Velomobile",
  "Run", "TrailRun", "VirtualRun", "Walk", "Hike",
  "Canoeing", "Kayaking", "Kitesurf", "Rowing", "StandUpPaddling", "Surfing", "Swim", "OpenWaterSwim", "Windsurf",
  "BackcountrySki", "AlpineSki", "NordicSki", "IceSkate", "Snowboard", "Snowshoe", "Skateboard", "InlineSkate", "RollerSki",
  "Badminton", "Pickleball", "Racquetball", "Squash", "TableTennis", "Tennis", "Padel",
  "Crossfit", "WeightTraining", "Workout", "StairStepper", "VirtualRow", "HighIntensityIntervalTraining", "Elliptical", "Dance",
  "Pilates", "Yoga", "PhysicalTherapy", "Golf", "RockClimbing", "Sail",
  "Basketball", "Soccer", "Volleyball", "Cricket", "Handcycle", "Wheelchair"
] as const

export type SportType = typeof SPORT_TYPES[number]

const sportTypeSet: ReadonlySet<string> = new Set(SPORT_TYPES)
export const isSportType = (value: string): value is SportType => sportTypeSet.has(value)

/** Sports whose best efforts are computed, with their distances in metres. */
export const MILE = 1609.344
export const RIDE_EFFORT_DISTANCES = [5 * MILE, 10_000, 10 * MILE, 20_000, 30_000, 40_000, 50_000, 80_000, 50 * MILE, 90_000, 100_000, 100 * MILE]
export const RUN_EFFORT_DISTANCES = [400, MILE / 2, 1000, MILE, 2 * MILE, 5000, 10_000, 15_000, 10 * MILE, 20_000, 21_097.5, 30_000, 42_195, 50_000, 100_000, 100 * MILE]

export const RIDES: ReadonlySet<SportType> = new Set(["Ride", "MountainBikeRide", "GravelRide", "VirtualRide", "EMountainBikeRide"])
export const RUNS: ReadonlySet<SportType> = new Set(["Run", "TrailRun", "VirtualRun"])
export const SWIMS: ReadonlySet<SportType> = new Set(["Swim", "OpenWaterSwim"])
/** The runs and rides on the ground (a treadmill run or a trainer ride is virtual). */
export const OUTDOOR_RUNS: ReadonlySet<SportType> = new Set([...RUNS].filter((s) => !s.startsWith("Virtual")))
export const OUTDOOR_RIDES: ReadonlySet<SportType> = new Set([...RIDES].filter((s) => !s.startsWith("Virtual")))

export const bestEffortDistances = (sport: SportType): ReadonlyArray<number> =>
  RIDES.has(sport) ? RIDE_EFFORT_DISTANCES : RUNS.has(sport) ? RUN_EFFORT_DISTANCES : []
