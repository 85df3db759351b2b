import type { SportType } from "../../../schema/SportType.ts"

/**
 * Per-sport speed thresholds (m/s) used when the file carries no device timer:
 * - `stop`: below this (smoothed) speed a sample counts as stopped (moving time, `moving` stream);
 * - `maxPlausible`: speeds above it are GPS spikes and ignored for the computed max speed.
 *
 * | sports                                                              | stop           | max plausible |
 * |---------------------------------------------------------------------|----------------|---------------|
 * | Ride, GravelRide, EBikeRide, VirtualRide, Velomobile                | 1.5 (5.4 km/h) | 35 (126 km/h) |
 * | MountainBikeRide, EMountainBikeRide, Handcycle                      | 1.0 (3.6 km/h) | 30            |
 * | Run, TrailRun, VirtualRun                                           | 1.0 (3.6 km/h) | 12            |
 * | Walk, Hike, Snowshoe, Wheelchair                                    | 0.5 (1.8 km/h) | 8             |
 * | AlpineSki, BackcountrySki, NordicSki, Snowboard, skates, RollerSki  | 0.5            | 45            |
 * | Canoeing, Kayaking, Rowing, StandUpPaddling, Surfing, Sail, kite/windsurf | 0.3      | 25            |
 * | Swim, OpenWaterSwim                                                 | 0.1            | 5             |
 * | everything else (gym, courts, Workout, …)                          | 0.2            | 40            |
 */
export interface SportProfile {
  readonly stop: number
  readonly maxPlausible: number
}

const profile = (stop: number, maxPlausible: number): SportProfile => ({ stop, maxPlausible })

const ROAD = profile(1.5, 35)
const OFFROAD = profile(1.0, 30)
const RUN = profile(1.0, 12)
const FOOT = profile(0.5, 8)
const SNOW = profile(0.5, 45)
const WATER = profile(0.3, 25)
const SWIM = profile(0.1, 5)
const OTHER = profile(0.2, 40)

const TABLE: Partial<Record<SportType, SportProfile>> = {
  Ride: ROAD, GravelRide: ROAD, EBikeRide: ROAD, VirtualRide: ROAD, Velomobile: ROAD,
  MountainBikeRide: OFFROAD, EMountainBikeRide: OFFROAD, Handcycle: OFFROAD,
  Run: RUN, TrailRun: RUN, VirtualRun: RUN,
  Walk: FOOT, Hike: FOOT, Snowshoe: FOOT, Wheelchair: FOOT,
  AlpineSki: SNOW, BackcountrySki: SNOW, NordicSki: SNOW, Snowboard: SNOW, IceSkate: SNOW, InlineSkate: SNOW,
  Skateboard: SNOW, RollerSki: SNOW,
  Canoeing: WATER, Kayaking: WATER, Rowing: WATER, StandUpPaddling: WATER, Surfing: WATER, Sail: WATER,
  Kitesurf: WATER, Windsurf: WATER,
  Swim: SWIM, OpenWaterSwim: SWIM
}

export const sportProfile = (sport: SportType): SportProfile => TABLE[sport] ?? OTHER
