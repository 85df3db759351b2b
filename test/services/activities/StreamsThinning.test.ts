import { describe, expect, it } from "@effect/vitest"
import { MAX_STORED_SAMPLES } from "../../../src/schema/ActivityLimits.ts"
import { thinnedIndices, thinStreams } from "../../../src/services/activities/StreamsThinning.ts"

const range = (n: number) => Array.from({ length: n }, (_, i) => i)

describe("thinnedIndices", () => {
  it("keeps every sample when there are no more than asked for", () => {
    expect(thinnedIndices(5, 5, range(5), [], undefined)).toEqual([0, 1, 2, 3, 4])
  })

  it("keeps exactly the limit, ascending, the first and the last among them", () => {
    const kept = thinnedIndices(10_000, 300, range(10_000), [range(10_000).map((i) => Math.sin(i / 50))], undefined)
    expect(kept.length).toBe(300)
    expect(kept[0]).toBe(0)
    expect(kept.at(-1)).toBe(9_999)
    expect([...kept].sort((a, b) => a - b)).toEqual(kept)
    expect(new Set(kept).size).toBe(kept.length)
  })

  it("keeps a one-sample peak of any stream, and the corner of the route", () => {
    const n = 3600
    const flat = range(n).map(() => 140)
    const heartrate = flat.map((v, i) => (i === 1234 ? 190 : v))
    // north for the first half, then east: the corner is sample 1800
    const route = range(n).map((i): [number, number] => (i <= 1800 ? [47 + i * 1e-5, 8] : [47 + 1800 * 1e-5, 8 + (i - 1800) * 1e-5]))
    const kept = thinnedIndices(n, 50, range(n), [flat, heartrate], route)
    expect(kept).toContain(1234)
    expect(kept).toContain(1800)
  })

  it("keeps the highest and lowest sample of every stream, even two streams' peaks a sample apart", () => {
    const n = 3600
    const wave = (period: number) => range(n).map((i) => 150 + 10 * Math.sin(i / period))
    // heart rate peaks at 2001, power at 2002: one bucket of 72 samples holds both
    const heartrate = wave(40).map((v, i) => (i === 2001 ? 200 : v))
    const watts = wave(55).map((v, i) => (i === 2002 ? 900 : i === 17 ? 0 : v))
    const altitude = range(n).map((i) => 300 + Math.sin(i / 700) * 50)
    const kept = thinnedIndices(n, 50, range(n), [heartrate, watts, altitude], undefined)
    // the extremes do not crowd out the other samples: still exactly 50, none twice
    expect(kept.length).toBe(50)
    expect(new Set(kept).size).toBe(50)
    for (const stream of [heartrate, watts, altitude]) {
      const values = kept.map((i) => stream[i]!)
      expect(Math.max(...values)).toBe(Math.max(...stream))
      expect(Math.min(...values)).toBe(Math.min(...stream))
    }
    expect([...kept].sort((a, b) => a - b)).toEqual(kept)
  })

  it("keeps exactly the limit when every sample of a bucket is a kept extreme", () => {
    // 8 samples into 7: samples 1, 2 and 3 are the streams' extremes, and they make the first
    // of the two buckets left to choose from
    const kept = thinnedIndices(8, 7, range(8), [[0, 9, 5, 5, 5, 5, 5, 5], [5, 5, -9, 5, 5, 5, 5, 5], [5, 5, 5, 20, 5, 5, 5, 5]], undefined)
    expect(kept).toHaveLength(7)
    expect(new Set(kept).size).toBe(7)
    expect(kept).toEqual(expect.arrayContaining([0, 1, 2, 3, 7]))
    expect([...kept].sort((a, b) => a - b)).toEqual(kept)
  })

  it("gives the first and last samples for a limit of 2", () => {
    expect(thinnedIndices(100, 2, range(100), [], undefined)).toEqual([0, 99])
  })
})

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
