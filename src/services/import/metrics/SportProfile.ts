import type { SportType } from "../../../schema/SportType.ts"

/**
 * Per-sport speed thresholds (m/s):
 * - `stop`: below this speed (read over ±5 s of the smoothed GPS track, see Motion.ts) a sample
 *   counts as stopped (moving time, `moving` stream). Low enough that a steep climb on a bike,
 *   a slow run (Strava's own rule for runs counts anything faster than a 30-minute mile,
 *   0.89 m/s, as moving) or a hike is not taken for a stop, high enough that a receiver
 *   standing still (its smoothed fixes wander well under 0.3 m/s) is;
 * - `maxPlausible`: speeds above it are GPS spikes and ignored for the computed max speed;
 * - `positionSmoothS`: half width (s) of the window over which GPS fixes are averaged before
 *   distances are measured (GpsTrack.ts): 5 s for swims, none elsewhere.
 *
 * - `fastest` (m/s) and `acceleration` (m/s²): what no athlete of the sport exceeds, the fastest
 *   sprinter on foot (Bolt's 12.4 m/s), a rider on a descent, a swimmer (a 50 m world record is
 *   2.4 m/s); a stretch of distance that implies more is a GPS jump, bridged and not counted in
 *   the best efforts (TrustedDistance.ts).
 *
 * | sports                                                              | stop           | max plausible | fastest | acceleration |
 * |---------------------------------------------------------------------|----------------|---------------|---------|--------------|
 * | Ride, GravelRide, EBikeRide, VirtualRide, Velomobile                | 1.0 (3.6 km/h) | 35 (126 km/h) | 35      | 4            |
 * | MountainBikeRide, EMountainBikeRide, Handcycle                      | 0.8 (2.9 km/h) | 30            | 30      | 4            |
 * | Run, TrailRun, VirtualRun                                           | 0.5 (1.8 km/h) | 12            | 12.5    | 4            |
 * | Walk, Hike, Snowshoe, Wheelchair                                    | 0.3 (1.1 km/h) | 8             | 8       | 4            |
 * | AlpineSki, BackcountrySki, NordicSki, Snowboard, skates, RollerSki  | 0.5            | 45            | 45      | 6            |
 * | Canoeing, Kayaking, Rowing, StandUpPaddling, Surfing, Sail, kite/windsurf | 0.3      | 25            | 25      | 3            |
 * | Swim, OpenWaterSwim                                                 | 0.1            | 5             | 2.5     | 0.5          |
 * | everything else (gym, courts, Workout, …)                          | 0.2            | 40            | 40      | 6            |
 */
export interface SportProfile {
  readonly stop: number
  readonly maxPlausible: number
  readonly positionSmoothS: number
  readonly fastest: number
  readonly acceleration: number
}

const profile = (stop: number, maxPlausible: number, fastest: number, acceleration: number, positionSmoothS = 0): SportProfile => ({
  stop,
  maxPlausible,
  positionSmoothS,
  fastest,
  acceleration
})

const ROAD = profile(1.0, 35, 35, 4)
const OFFROAD = profile(0.8, 30, 30, 4)
const RUN = profile(0.5, 12, 12.5, 4)
const FOOT = profile(0.3, 8, 8, 4)
const SNOW = profile(0.5, 45, 45, 6)
const WATER = profile(0.3, 25, 25, 3)
const SWIM = profile(0.1, 5, 2.5, 0.5, 5)
const OTHER = profile(0.2, 40, 40, 6)

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
