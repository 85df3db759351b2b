import { MILE } from "./SportType.ts"

/** The name a person gives a best-effort distance: "400 m", "5 km", "1 mile", "Half marathon". */
export const effortName = (distanceInMeter: number): string => {
  if (distanceInMeter === 21_097.5) return "Half marathon"
  if (distanceInMeter === 42_195) return "Marathon"
  const miles = distanceInMeter / MILE
  if (Math.abs(miles - Math.round(miles * 2) / 2) < 1e-9) {
    return miles === 0.5 ? "1/2 mile" : miles === 1 ? "1 mile" : `${miles} miles`
  }
  return distanceInMeter < 1000 ? `${distanceInMeter} m` : `${distanceInMeter / 1000} km`
}

/** The standard distances whose fastest efforts are the athlete's records, per kind of sport. */
export const RECORD_DISTANCES = {
  run: [400, 1000, MILE, 5000, 10_000, 21_097.5, 42_195],
  ride: [10_000, 20_000, 40_000, 50_000, 100_000]
} as const satisfies Record<string, ReadonlyArray<number>>

