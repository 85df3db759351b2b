import { describe, expect, it } from "@effect/vitest"
import * as zlib from "node:zlib"
import type { ActivityStreams } from "../../../src/schema/ActivityDraft.ts"
import { streamsBody } from "../../../src/services/activities/ActivityDetail.ts"
import { decodeStreams, encodeStreams, storedStreams } from "../../../src/services/activities/StreamsCodec.ts"

describe("stored streams", () => {
  const n = 3_601
  const streams: ActivityStreams = {
    time: Array.from({ length: n }, (_, i) => i),
    latlng: Array.from({ length: n }, (_, i) => (i === 7 ? null : [47.37 + i * 0.0000719, 8.54 - i / 3e5] as [number, number])),
    distance: Array.from({ length: n }, (_, i) => i * 8.01),
    altitude: Array.from({ length: n }, (_, i) => 400 + Math.sin(i / 100) * 30.25),
    velocity: Array.from({ length: n }, (_, i) => 8 + (i % 11) / 10),
    heartrate: Array.from({ length: n }, (_, i) => (i === 2_000 ? 191 : 130 + (i % 5))),
    temperature: [21, 22],
    moving: Array.from({ length: n }, (_, i) => i % 100 !== 0)
  }
  /** the answer as the schema's values serialise it: recorded streams of full length, under the API's names */
  const expected = (s: ActivityStreams) =>
    JSON.stringify({
      streams: { time: s.time, distance: s.distance, latlng: s.latlng, altitude: s.altitude, velocity: s.velocity, heartrate: s.heartrate }
    })

  it("decodes to exactly the streams encoded, every number to the bit", () => {
    expect(decodeStreams(encodeStreams(streams))).toStrictEqual(streams)
  })

  it("answers the unthinned streams as JSON equal to the values' own, without a stream of another length or `moving`", () => {
    const body = streamsBody(storedStreams(encodeStreams(streams)), undefined).toString("utf8")
    expect(body).toBe(expected(streams))
    expect(streamsBody(null, undefined).toString("utf8")).toBe(`{"streams":{}}`)
  })

  it("reads streams stored in the former form (one deflated JSON object) as before", () => {
    // under Strava's stream types, as the streams were named then
    const { velocity, temperature, ...same } = streams
    const former = zlib.deflateRawSync(JSON.stringify({ ...same, velocity_smooth: velocity, temp: temperature }), { level: 1 })
    expect(former[0]).not.toBe(0x57)
    expect(decodeStreams(former)).toStrictEqual(streams)
    expect(streamsBody(storedStreams(former), undefined).toString("utf8")).toBe(expected(streams))
    expect(streamsBody(storedStreams(former), 500).toString("utf8")).toBe(streamsBody(storedStreams(encodeStreams(streams)), 500).toString("utf8"))
  })

  it("refuses stored streams whose header does not account for every byte, rather than answer broken JSON", () => {
    const inflated = zlib.inflateRawSync(encodeStreams(streams).subarray(2))
    const damaged = Buffer.concat([Buffer.from([0x57, 2]), zlib.deflateRawSync(inflated.subarray(0, inflated.length - 10))])
    expect(() => storedStreams(damaged)).toThrow(/damaged/)
  })

  it("thins every answered stream alike to the points asked for, keeping the peak", () => {
    const thinned = JSON.parse(streamsBody(storedStreams(encodeStreams(streams)), 500).toString("utf8")).streams
    expect(Object.keys(thinned)).toEqual(["time", "distance", "latlng", "altitude", "velocity", "heartrate"])
    for (const values of Object.values(thinned)) expect(values).toHaveLength(500)
    expect(Math.max(...thinned.heartrate)).toBe(191)
  })
})
