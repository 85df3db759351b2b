import { describe, expect, it } from "@effect/vitest"
import { matchSegment, prepareSegment } from "../../../src/services/segments/matchSegment.ts"
import { lineOf } from "../../../src/services/segments/segmentLine.ts"
import { at, BLOCK, blocksOf, type Corner, corner, recordPath, type Recording, SIZE, streetPath } from "../../support/gridTown.ts"

/**
 * The matching on a grid town whose efforts are known: every stretch of every street in both
 * directions is a segment, and rides and runs cross the town recorded cleanly, with 10 m of GPS
 * scatter, and one sample every 5 s. Each pass of a stretch in its direction is one effort of
 * the stretch's length over the speed; nothing else matches.
 */

/** every straight stretch of one to SIZE blocks along a street, in both directions */
const stretches: Array<ReadonlyArray<Corner>> = []
for (let line = 0; line <= SIZE; line++) {
  for (let from = 0; from <= SIZE; from++) {
    for (let to = 0; to <= SIZE; to++) {
      if (from === to) continue
      stretches.push(blocksOf([[from, line], [to, line]]), blocksOf([[line, from], [line, to]]))
    }
  }
}
const segments = stretches.map((corners) => ({ corners, prepared: prepareSegment(lineOf(corners.map(corner))) }))

/** how many times the route passes these corners one after the other */
const passes = (route: ReadonlyArray<Corner>, corners: ReadonlyArray<Corner>) => {
  let count = 0
  for (let i = 0; i + corners.length <= route.length; i++) {
    if (corners.every((c, k) => route[i + k]![0] === c[0] && route[i + k]![1] === c[1])) count++
  }
  return count
}

const ROUTES: ReadonlyArray<ReadonlyArray<Corner>> = [
  [[0, 0], [4, 0], [4, 3], [1, 3], [1, 1], [5, 1]],
  [[5, 1], [1, 1], [1, 3], [4, 3], [4, 0], [0, 0]],
  // the same loop twice: two efforts on each of its stretches
  [[0, 2], [3, 2], [3, 4], [0, 4], [0, 2], [3, 2], [3, 4], [0, 4]],
  [[5, 5], [0, 5], [0, 0], [5, 0], [5, 5]]
]

const RECORDINGS: ReadonlyArray<readonly [string, Recording]> = [
  ["a ride at 1 s", { speed: 8 }],
  ["a ride at 1 s with 10 m of scatter", { speed: 8, noise: 10, seed: 7 }],
  ["a ride at one sample every 5 s", { speed: 8, every: 5 }],
  ["a ride every 5 s with 10 m of scatter", { speed: 8, every: 5, noise: 10, seed: 3 }],
  ["a run at 1 s", { speed: 3 }],
  ["a run at 1 s with 10 m of scatter", { speed: 3, noise: 10, seed: 11 }],
  ["a run every 5 s with 10 m of scatter", { speed: 3, every: 5, noise: 10, seed: 5 }]
]

describe("matchSegment on a grid town", () => {
  for (const [what, recording] of RECORDINGS) {
    // a second for the rounding, and the time to cover the scatter at each gate (a quarter more where the track turns there)
    const tolerance = 1 + (2.5 * (recording.noise ?? 0)) / recording.speed
    it(`finds every pass of every street stretch and nothing else: ${what}`, () => {
      for (const route of ROUTES) {
        const blocks = blocksOf(route)
        const track = recordPath(streetPath(route), recording)
        for (const { corners, prepared } of segments) {
          const efforts = matchSegment(prepared, track)
          const expected = passes(blocks, corners)
          expect({ corners, count: efforts.length }).toEqual({ corners, count: expected })
          const seconds = ((corners.length - 1) * BLOCK) / recording.speed
          for (const effort of efforts) {
            expect(Math.abs(effort.elapsedTimeInSeconds - seconds)).toBeLessThanOrEqual(tolerance)
            expect(effort.averageHeartRate).toBe(140)
            expect(effort.averagePower).toBe(200)
            expect(effort.averageCadence).toBe(85)
            expect(effort.movingTimeInSeconds).toBe(effort.elapsedTimeInSeconds)
          }
        }
      }
    })
  }

  it("times each pass of a loop from its own gate crossings", () => {
    const route: ReadonlyArray<Corner> = [[0, 2], [3, 2], [3, 4], [0, 4], [0, 2], [3, 2], [3, 4]]
    const track = recordPath(streetPath(route), { speed: 5, every: 5 })
    const segment = prepareSegment(lineOf(blocksOf([[0, 2], [3, 2]]).map(corner)))
    const efforts = matchSegment(segment, track)
    // the loop is 10 blocks: the second pass starts 2,000 m (400 s) after the first
    expect(efforts.map((e) => [e.startOffsetInSeconds, e.elapsedTimeInSeconds, Math.round(e.startDistanceInMeter)])).toEqual([
      [0, 120, 0],
      [400, 120, 2000]
    ])
  })

  const street = prepareSegment(lineOf([at(0, 0), at(1000, 0)]))

  it("matches nothing on a street 40 m beside the segment, even with 10 m of scatter", () => {
    const track = recordPath([[0, 40], [1000, 40]], { speed: 8, noise: 10, seed: 2 })
    expect(matchSegment(street, track)).toEqual([])
    expect(matchSegment(street, recordPath([[0, 0], [1000, 0]], { speed: 8, noise: 10, seed: 2 }))).toHaveLength(1)
  })

  it("matches nothing the other way", () => {
    expect(matchSegment(street, recordPath([[1000, 0], [0, 0]], { speed: 8 }))).toEqual([])
  })

  it("matches nothing that leaves the line midway, even coming back to it within the distance ratio", () => {
    // 60 m off the line around its middle: 3 % longer, within 90-110 %, but 60 m from its middle points
    const detour = recordPath([[0, 0], [400, 0], [500, 60], [600, 0], [1000, 0]], { speed: 8 })
    expect(matchSegment(street, detour)).toEqual([])
    const away = recordPath([[0, 0], [500, 0], [500, 400]], { speed: 8 })
    expect(matchSegment(street, away)).toEqual([])
  })

  it("matches nothing that stops short of the end", () => {
    expect(matchSegment(street, recordPath([[0, 0], [900, 0]], { speed: 8 }))).toEqual([])
  })

  it("matches nothing whose distance between the gates is off by more than 10 %", () => {
    // a zigzag within the corridor: 20 m each side every 50 m makes the track 28 % longer
    const zigzag: Array<[number, number]> = [[0, 0]]
    for (let x = 25; x < 1000; x += 50) zigzag.push([x, (x / 25) % 4 === 1 ? 20 : -20])
    zigzag.push([1000, 0])
    const track = recordPath(zigzag, { speed: 8 })
    expect(matchSegment(street, { ...track, distance: undefined })).toEqual([])
  })

  it("times a pass by the gate crossings between sparse samples", () => {
    // one sample every 7 s at 6 m/s: neither gate falls on a sample
    const track = recordPath([[-100, 0], [1100, 0]], { speed: 6, every: 7 })
    const [effort] = matchSegment(street, track)
    expect(effort?.startOffsetInSeconds).toBe(17)
    expect(effort?.elapsedTimeInSeconds).toBe(167)
    expect(effort?.averageSpeed).toBeCloseTo(6, 1)
  })
})
