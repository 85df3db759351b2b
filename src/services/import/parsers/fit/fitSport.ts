import { getFitSportId, getFitSubSportId } from "fit-file-parser"
import type { SportType } from "../../../../schema/SportType.ts"
import { resolveSportName } from "../sportNames.ts"

/** A FIT enum as fit-file-parser gives it (a profile name, or the number when unknown) -> its number. */
const toId = (value: unknown, lookup: (name: string) => number | null | undefined): number | null => {
  if (typeof value === "number" && Number.isInteger(value)) return value
  if (typeof value === "string") {
    const id = lookup(value)
    return typeof id === "number" ? id : null
  }
  return null
}

export const fitSportId = (sport: unknown): number | null => toId(sport, getFitSportId)
export const fitSubSportId = (subSport: unknown): number | null => toId(subSport, getFitSubSportId)

export const FIT_SPORT_TRANSITION = 3
/** Garmin's cycling sub-sport "commuting": the ride was a commute. */
export const FIT_SUB_SPORT_COMMUTING = 48

const SINGLE: ReadonlyMap<number, SportType> = new Map<number, SportType>([
  [6, "Basketball"], [7, "Soccer"], [8, "Tennis"], [11, "Walk"], [12, "NordicSki"], [17, "Hike"], [19, "Canoeing"],
  [88, "Canoeing"], [21, "EBikeRide"], [25, "Golf"], [30, "InlineSkate"], [31, "RockClimbing"], [32, "Sail"],
  [33, "IceSkate"], [35, "Snowshoe"], [37, "StandUpPaddling"], [38, "Surfing"], [41, "Kayaking"], [43, "Windsurf"],
  [44, "Kitesurf"], [48, "StairStepper"], [62, "HighIntensityIntervalTraining"], [65, "Wheelchair"], [66, "Wheelchair"],
  [71, "Cricket"], [75, "Volleyball"], [83, "Dance"]
])

/**
 * FIT sport / sub_sport (numbers) -> sport type: the sport mapping, except that an unknown sport
 * becomes Workout instead of failing. A sport the mapping leaves a Workout (generic, fitness
 * equipment without a known sub-sport) takes the name the athlete gave the device's sport
 * profile when it names one ("Indoor Rowing", "Kayak").
 */
export const mapFitSport = (sportValue: unknown, subSportValue: unknown, profileName?: unknown): SportType => {
  const id = fitSportId(sportValue)
  const alias = typeof profileName === "string" ? resolveSportName(profileName) : null
  // a generic sport is what the profile's name says, before any sub-sport
  if (id === 0 && alias !== null) return alias
  const sport = mapSportIds(id, fitSubSportId(subSportValue))
  return sport === "Workout" ? alias ?? sport : sport
}

/**
 * The sport of a maker's files that say nothing more specific than generic: what its devices
 * are made for (a rowing monitor on the water, an indoor rower or ergometer).
 */
const MAKER_SPORTS: ReadonlyMap<string, SportType> = new Map<string, SportType>([
  ["nielsen_kellerman", "Rowing"], ["concept2", "VirtualRow"], ["waterrower", "VirtualRow"]
])

export const makerSport = (manufacturer: unknown): SportType | null =>
  typeof manufacturer === "string" ? MAKER_SPORTS.get(manufacturer) ?? null : null

const mapSportIds = (sport: number | null, sub: number | null): SportType => {
  switch (sport) {
    case 0: {
      switch (sub) {
        case 1: case 45: return "VirtualRun"
        case 5: case 6: return "VirtualRide"
        case 14: return "VirtualRow"
        case 15: return "Elliptical"
        case 16: return "StairStepper"
        case 20: return "WeightTraining"
        case 27: return "Walk"
        case 43: return "Yoga"
        case 44: return "Pilates"
        case 70: return "HighIntensityIntervalTraining"
        default: return "Workout"
      }
    }
    case 1:
      return sub === 3 ? "TrailRun" : sub === 1 || sub === 45 || sub === 58 ? "VirtualRun" : "Run"
    case 2:
      switch (sub) {
        case 8: case 9: case 11: case 123: return "MountainBikeRide"
        case 46: return "GravelRide"
        case 5: case 6: case 58: return "VirtualRide"
        case 28: case 47: case 127: return "EBikeRide"
        case 12: case 88: return "Handcycle"
        default: return "Ride"
      }
    case 4:
      switch (sub) {
        case 14: return "VirtualRow"
        case 15: return "Elliptical"
        case 16: return "StairStepper"
        case 5: case 6: return "VirtualRide"
        case 1: return "VirtualRun"
        case 27: return "Walk"
        case 44: return "Pilates"
        default: return "Workout"
      }
    case 5:
      return sub === 18 ? "OpenWaterSwim" : "Swim"
    case 10:
      switch (sub) {
        case 20: return "WeightTraining"
        case 43: return "Yoga"
        case 44: return "Pilates"
        case 70: return "HighIntensityIntervalTraining"
        default: return "Workout"
      }
    case 13:
      return sub === 37 ? "BackcountrySki" : "AlpineSki"
    case 14:
      return sub === 37 ? "BackcountrySki" : "Snowboard"
    case 15:
      return sub === 14 ? "VirtualRow" : "Rowing"
    case 64:
      switch (sub) {
        case 84: return "Pickleball"
        case 85: return "Padel"
        case 94: return "Squash"
        case 95: return "Badminton"
        case 96: return "Racquetball"
        case 97: return "TableTennis"
        default: return "Workout"
      }
    default:
      return (sport !== null ? SINGLE.get(sport) : undefined) ?? "Workout"
  }
}
