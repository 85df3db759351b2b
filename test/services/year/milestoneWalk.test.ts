import { describe, expect, it } from "@effect/vitest"
import { eddingtonOf } from "../../../src/services/stats/Stats.ts"
import { type MilestoneActivity, makeMilestoneWalk } from "../../../src/services/year/milestoneWalk.ts"

/**
 * The milestones' walk against the plain computation over each prefix of the history: the
 * Eddington number reached after each activity (as /stats/eddington sorts a day's totals) and
 * the cumulative marks, on random activities of random days.
 */

/** A deterministic generator (mulberry32), so that a failure can be replayed. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const activitiesOf = (seed: number, count: number): Array<MilestoneActivity> => {
  const next = random(seed)
  let day = Date.UTC(2020, 0, 1) / 86_400_000
  return Array.from({ length: count }, (_, i) => {
    day += Math.floor(next() * 3)
    const on = new Date(day * 86_400_000).toISOString().slice(0, 10)
    return {
      id: `activity-${i}`,
      sportType: next() < 0.6 ? "Ride" : "Run",
      startDateLocal: `${on}T0${Math.floor(next() * 10)}:00:00`,
      on,
      day,
      distance: Math.floor(next() * 120_000),
      countries: []
    }
  })
}

describe("the milestones' walk", () => {
  for (const seed of [1, 2, 3]) {
    it(`reaches each Eddington number at the activity after which the sorted day totals first give it (seed ${seed})`, () => {
      const activities = activitiesOf(seed, 400)
      const reached = new Map<number, string>()
      const totals = new Map<string, number>()
      for (const a of activities) {
        const day = a.startDateLocal.slice(0, 10)
        totals.set(day, (totals.get(day) ?? 0) + a.distance)
        const { number } = eddingtonOf([...totals.values()].map((m) => m / 1000))
        for (let n = 1; n <= number; n++) if (!reached.has(n)) reached.set(n, a.id)
      }
      const walk = makeMilestoneWalk({ name: "km", meters: 1000 })
      for (const a of activities) walk.add(a, [])
      const milestones = walk.milestones()
      const overall = milestones.filter((m) => m.kind === "eddington" && m.sportType === null).reverse()
      expect(overall.map((m) => [m.value, m.activityId])).toEqual([...reached])
      expect(overall.length).toBeGreaterThan(20)
      // the cumulative marks: where the running sum passed each one
      let sum = 0
      const marks: Array<[number, string]> = []
      for (const a of activities) {
        const before = sum
        sum += a.distance
        for (const km of [100, 250, 500, 1000, 2500, 5000, 10_000, 25_000, 50_000]) if (before < km * 1000 && sum >= km * 1000) marks.push([km * 1000, a.id])
      }
      expect(milestones.filter((m) => m.kind === "distanceMark" && m.sportType === null).reverse().map((m) => [m.value, m.activityId])).toEqual(marks)
    })
  }
})
