import { describe, expect, it } from "@effect/vitest"
import { categoryOf, findClimbs } from "../../../src/services/segments/findClimbs.ts"
import { seeded } from "../../support/gridTown.ts"

/** A profile made of pieces: [length in metres, grade in %], sampled every `step` metres at `speed` m/s. */
const profile = (pieces: ReadonlyArray<readonly [number, number]>, options: { step?: number; speed?: number; noise?: number } = {}) => {
  const step = options.step ?? 5
  const random = seeded(3)
  const distance: Array<number> = [], altitude: Array<number> = [], time: Array<number> = []
  let d = 0, a = 100
  for (const [length, grade] of pieces) {
    for (let s = 0; s < length; s += step) {
      distance.push(d)
      altitude.push(a + (options.noise ?? 0) * (random() - 0.5) * 2)
      time.push(d / (options.speed ?? 5))
      d += step
      a += (step * grade) / 100
    }
  }
  distance.push(d)
  altitude.push(a)
  time.push(d / (options.speed ?? 5))
  return { distance, altitude, time }
}

describe("findClimbs", () => {
  it("categorises by length × average grade as Strava does", () => {
    expect([7_999, 8_001, 16_001, 32_001, 64_001, 80_001].map(categoryOf)).toEqual([null, "4", "3", "2", "1", "HC"])
  })

  it("finds one climb of 2 km at 5 % (score 10,000: category 4), with its gain, grades, time and VAM", () => {
    const climbs = findClimbs(profile([[1000, 0], [2000, 5], [1000, 0]]))
    expect(climbs).toHaveLength(1)
    const [climb] = climbs
    // the smoothing rounds the foot and the top over 50 m each side
    expect(Math.abs(climb!.startDistanceInMeter - 1000)).toBeLessThanOrEqual(60)
    expect(Math.abs(climb!.endDistanceInMeter - 3000)).toBeLessThanOrEqual(60)
    expect(climb!.elevationGainInMeter).toBeCloseTo(100, -1)
    expect(climb!.averageGrade).toBeCloseTo(5, 0)
    expect(climb!.maxGrade).toBeCloseTo(5, 0)
    expect(climb!.category).toBe("4")
    // at 5 m/s: 400 s for 2 km, 100 m up: 900 m/h
    expect(Math.abs(climb!.elapsedTimeInSeconds! - 400)).toBeLessThanOrEqual(25)
    expect(Math.abs(climb!.vam! - 900)).toBeLessThanOrEqual(60)
  })

  it("keeps a climb whole across a dip of under 10 m, and splits it at a deeper one", () => {
    const dip = findClimbs(profile([[500, 0], [1500, 6], [200, -3], [1500, 6], [500, 0]]))
    expect(dip).toHaveLength(1)
    expect(dip[0]!.lengthInMeter).toBeGreaterThan(3000)
    const deep = findClimbs(profile([[500, 0], [1500, 6], [500, -5], [1500, 6], [500, 0]]))
    expect(deep).toHaveLength(2)
  })

  it("holds on noisy altitude (a GPS altitude's 3 m of scatter at every sample)", () => {
    const climbs = findClimbs(profile([[1000, 0], [3000, 7], [1000, -7], [1000, 0]], { noise: 3 }))
    expect(climbs).toHaveLength(1)
    // 3 km at 7 %: 21,000
    expect(climbs[0]!.category).toBe("3")
  })

  it("finds nothing under 300 m, under 3 % or scoring 8,000 or less, nor on the flat", () => {
    expect(findClimbs(profile([[500, 0], [250, 12], [500, 0]]))).toEqual([])
    expect(findClimbs(profile([[500, 0], [5000, 2.5], [500, 0]]))).toEqual([])
    expect(findClimbs(profile([[500, 0], [600, 4], [500, 0]]))).toEqual([])
    expect(findClimbs(profile([[10_000, 0]]))).toEqual([])
  })

  it("ends a climb at a long flat after its top: what follows is another climb", () => {
    const climbs = findClimbs(profile([[500, 0], [1500, 8], [3000, 0], [1500, 8], [500, 0]]))
    expect(climbs).toHaveLength(2)
  })
})
