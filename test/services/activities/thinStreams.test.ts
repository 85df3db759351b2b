import { describe, expect, it } from "@effect/vitest"
import { MAX_STORED_SAMPLES } from "../../../src/schema/ActivityLimits.ts"
import { thinStreams } from "../../../src/services/activities/thinStreams.ts"

describe("thinStreams", () => {
  const n = 250_000
  const streams = {
    time: Array.from({ length: n }, (_, i) => i),
    heartrate: Array.from({ length: n }, (_, i) => (i === 123_457 ? 201 : 120 + (i % 7))),
    watts: Array.from({ length: n }, (_, i) => (i === 77_777 ? 1_450 : 180)),
    altitude: Array.from({ length: n }, (_, i) => (i === 200_001 ? 2_962 : i === 5 ? -12 : 400)),
    moving: Array.from({ length: n }, () => true)
  }

  it("keeps streams at or under the stored size as they are", () => {
    const short = { time: [0, 1, 2], heartrate: [100, 101, 102] }
    expect(thinStreams(short)).toBe(short)
  })

  it("thins a longer recording to the stored size, every stream alike, keeping its first and last samples and every peak", () => {
    const thinned = thinStreams(streams)
    const m = thinned.time!.length
    expect(m).toBeLessThanOrEqual(MAX_STORED_SAMPLES)
    // one stretch per six samples kept (first, four peaks and the lowest altitude), fewer where they coincide
    expect(m).toBeGreaterThan(MAX_STORED_SAMPLES / 6)
    for (const values of Object.values(thinned)) expect(values).toHaveLength(m)
    expect([thinned.time![0], thinned.time![m - 1]]).toEqual([0, n - 1])
    expect(Math.max(...thinned.heartrate!)).toBe(201)
    expect(Math.max(...thinned.watts!)).toBe(1_450)
    expect([Math.min(...thinned.altitude!), Math.max(...thinned.altitude!)]).toEqual([-12, 2_962])
    // the samples kept are those of their times
    expect(thinned.time![thinned.heartrate!.indexOf(201)]).toBe(123_457)
  })
})
