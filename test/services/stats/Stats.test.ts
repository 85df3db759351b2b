import { describe, expect, it } from "@effect/vitest"
import polyline from "@mapbox/polyline"
import { eddingtonOf, heatmapPolyline } from "../../../src/services/stats/Stats.ts"

describe("eddingtonOf", () => {
  it("is the largest n with n days of at least n, with the days n + 1 still needs", () => {
    expect(eddingtonOf([])).toEqual({ number: 0, daysNeededForNext: 1 })
    expect(eddingtonOf([0.5])).toEqual({ number: 0, daysNeededForNext: 1 })
    expect(eddingtonOf([1])).toEqual({ number: 1, daysNeededForNext: 2 })
    expect(eddingtonOf([10, 10, 10, 2])).toEqual({ number: 3, daysNeededForNext: 1 })
    expect(eddingtonOf([3, 3, 3, 3])).toEqual({ number: 3, daysNeededForNext: 4 })
    expect(eddingtonOf([5, 5, 5, 5, 5, 4.99])).toEqual({ number: 5, daysNeededForNext: 6 })
  })
})

describe("heatmapPolyline", () => {
  it("drops the points of straight lines and keeps the ends and the corner", () => {
    const points: Array<[number, number]> = []
    for (let i = 0; i <= 100; i++) points.push([47 + i * 0.0001, 8])
    for (let i = 1; i <= 100; i++) points.push([47.01, 8 + i * 0.0001])
    const simplified = polyline.decode(heatmapPolyline(polyline.encode(points)))
    expect(simplified).toHaveLength(3)
    expect(simplified[0]).toEqual([47, 8])
    expect(simplified[2]).toEqual([47.01, 8.01])
    // the corner, or a point within the tolerance of it
    expect(Math.abs(simplified[1]![0] - 47.01) + Math.abs(simplified[1]![1] - 8)).toBeLessThanOrEqual(0.0002)
  })
})
