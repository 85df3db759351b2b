import { config } from "./config.ts"

/**
 * The sport types grouped as an athlete thinks of them: the sport filter lists them by group,
 * and the charts colour a group in one hue (each sport of it a shade of its own). Sports
 * named in no group (a newer vocabulary) fall into the last one.
 */

export interface SportFamily {
  readonly id: string
  readonly label: string
  /** the most common first: it gets the family's own colour, the next ones its shades */
  readonly sports: ReadonlyArray<string>
}

const DECLARED: ReadonlyArray<SportFamily> = [
  { id: "cycling", label: "Cycling", sports: ["Ride", "GravelRide", "MountainBikeRide", "VirtualRide", "EBikeRide", "EMountainBikeRide", "Velomobile", "Handcycle"] },
  { id: "running", label: "Running", sports: ["Run", "TrailRun", "VirtualRun"] },
  { id: "walking", label: "Walking and hiking", sports: ["Walk", "Hike", "Wheelchair"] },
  { id: "swimming", label: "Swimming", sports: ["Swim", "OpenWaterSwim"] },
  { id: "water", label: "Rowing, paddling and sailing", sports: ["Rowing", "VirtualRow", "Kayaking", "Canoeing", "StandUpPaddling", "Surfing", "Kitesurf", "Windsurf", "Sail"] },
  { id: "snow", label: "Snow, ice and wheels", sports: ["NordicSki", "AlpineSki", "BackcountrySki", "Snowboard", "Snowshoe", "IceSkate", "RollerSki", "InlineSkate", "Skateboard"] },
  { id: "fitness", label: "Fitness", sports: ["Workout", "WeightTraining", "HighIntensityIntervalTraining", "Crossfit", "Elliptical", "StairStepper", "Yoga", "Pilates", "Dance", "PhysicalTherapy"] },
  { id: "other", label: "Ball, racket and other sports", sports: ["Tennis", "Padel", "Badminton", "Pickleball", "Squash", "Racquetball", "TableTennis", "Golf", "Soccer", "Basketball", "Volleyball", "Cricket", "RockClimbing"] }
]

const known = new Set(config.sportTypes)
const declared = new Set(DECLARED.flatMap((f) => f.sports))
const rest = config.sportTypes.filter((s) => !declared.has(s))

/** The families of the sport types the service knows, each with only those. */
export const SPORT_FAMILIES: ReadonlyArray<SportFamily> = DECLARED.map((f) => ({
  ...f,
  sports: [...f.sports.filter((s) => known.has(s)), ...(f.id === "other" ? rest : [])]
})).filter((f) => f.sports.length > 0)

/** A sport's family and its rank in it. */
export const familyOf = (sportType: string): { readonly family: string; readonly rank: number } => {
  for (const f of DECLARED) {
    const rank = f.sports.indexOf(sportType)
    if (rank >= 0) return { family: f.id, rank }
  }
  return { family: "other", rank: DECLARED.at(-1)!.sports.length + Math.max(0, rest.indexOf(sportType)) }
}
