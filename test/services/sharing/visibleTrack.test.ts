import { describe, expect, it } from "@effect/vitest"
import { type Circle, haversine, type LatLng, visibleTrack } from "../../../src/services/sharing/visibleTrack.ts"

/** A straight track due east from (51, 3), a sample every `step` metres over `length` metres, one a second. */
const eastward = (length: number, step = 10) => {
  const metresPerDegree = haversine([51, 3], [51, 4])
  const latlng: Array<LatLng> = []
  const time: Array<number> = []
  const altitude: Array<number> = []
  for (let d = 0, i = 0; d <= length; d += step, i++) {
    latlng.push([51, 3 + d / metresPerDegree])
    time.push(i)
    altitude.push(i % 20 < 10 ? i % 20 : 20 - (i % 20))
  }
  return { latlng, time, altitude }
}

const visiblePoints = (track: ReturnType<typeof visibleTrack>) => track.segments.flat().map((s) => s.latlng)

describe("visibleTrack", () => {
  it("hides the first and last metres along the track: no visible point is nearer the start or the finish", () => {
    const samples = eastward(5_000)
    const track = visibleTrack(samples, [], 200)
    const start = samples.latlng[0]!
    const finish = samples.latlng[samples.latlng.length - 1]!
    expect(track.segments).toHaveLength(1)
    for (const p of visiblePoints(track)) {
      expect(haversine(p, start)).toBeGreaterThanOrEqual(200 - 1e-6)
      expect(haversine(p, finish)).toBeGreaterThanOrEqual(200 - 1e-6)
    }
    expect(track.distanceInMeter).toBeCloseTo(4_600, -1)
    // one sample a second every 10 m: 460 seconds visible
    expect(track.timeInSeconds).toBe(460)
    expect(track.bounds!.west).toBeGreaterThan(start[1])
    expect(track.bounds!.east).toBeLessThan(finish[1])
  })

  it("takes out every point inside a zone and never joins the line across it", () => {
    const samples = eastward(5_000)
    const zone: Circle = { latitude: 51, longitude: samples.latlng[250]![1], radiusInMeter: 500 }
    const track = visibleTrack(samples, [zone], 0)
    expect(track.segments).toHaveLength(2)
    for (const p of visiblePoints(track)) expect(haversine(p, [zone.latitude, zone.longitude])).toBeGreaterThan(500)
    // the distance and time shown are those of the two visible parts only
    expect(track.distanceInMeter).toBeCloseTo(4_000, -1)
    expect(track.timeInSeconds).toBeCloseTo(400, -1)
    // the visible distance goes on from the first part's end, not from where the second starts on the whole track
    const second = track.segments[1]!
    expect(second[0]!.distance).toBeCloseTo(track.segments[0]![track.segments[0]!.length - 1]!.distance, 6)
  })

  it("cuts the line between two sparse samples that would pass through a zone", () => {
    const latlng: Array<LatLng> = [[51, 2.98], [51, 3.02]]
    const zone: Circle = { latitude: 51.0005, longitude: 3, radiusInMeter: 200 }
    const track = visibleTrack({ latlng }, [zone], 0)
    expect(track.segments).toHaveLength(2)
    expect(track.distanceInMeter).toBe(0)
  })

  it("a zone covering the start hides it as far as the zone reaches, besides the hidden ends", () => {
    const samples = eastward(5_000)
    const zone: Circle = { latitude: 51, longitude: 3, radiusInMeter: 1_000 }
    const track = visibleTrack(samples, [zone], 200)
    for (const p of visiblePoints(track)) expect(haversine(p, [51, 3])).toBeGreaterThan(1_000)
    expect(track.distanceInMeter).toBeCloseTo(3_800, -1)
  })

  it("a track shorter than both hidden ends shows nothing", () => {
    const track = visibleTrack(eastward(300), [], 200)
    expect(track.hasPositions).toBe(true)
    expect(track.segments).toEqual([])
    expect(track.bounds).toBeNull()
    expect(track.distanceInMeter).toBe(0)
  })

  it("samples without a position are not visible, and an activity without any has no track", () => {
    const samples = eastward(2_000)
    const withGap = { ...samples, latlng: samples.latlng.map((p, i) => (i === 100 ? null : p)) }
    expect(visibleTrack(withGap, [], 0).segments).toHaveLength(2)
    const none = visibleTrack({ time: [0, 1, 2] }, [], 200)
    expect(none).toMatchObject({ hasPositions: false, segments: [], bounds: null, timeInSeconds: null })
  })

  it("counts the elevation gain of the visible samples only, past a 2 m hysteresis", () => {
    const latlng: Array<LatLng> = [[51, 3], [51, 3.001], [51, 3.002], [51, 3.003], [51, 3.004]]
    const track = visibleTrack({ latlng, altitude: [10, 11, 10, 13, 20] }, [], 0)
    expect(track.elevationGainInMeter).toBe(10)
  })

  it("measures the shared part by the activity's own distance where it has one: a noisy track's zigzag does not lengthen it", () => {
    const samples = eastward(2_000)
    // each point thrown 30 m north or south: the straight-line sum is about three times the way
    const latlng = samples.latlng.map(([lat, lng], i): LatLng => [lat + (i % 2 === 0 ? 1 : -1) * (30 / 111_195), lng])
    const distance = samples.latlng.map((_, i) => i * 10)
    expect(visibleTrack({ ...samples, latlng }, [], 0).distanceInMeter).toBeGreaterThan(5_000)
    const own = visibleTrack({ ...samples, latlng, distance }, [], 200)
    // 2,000 m less the hidden 200 m at each end, as the activity measured them
    expect(own.distanceInMeter).toBeCloseTo(1_600, -1)
    expect(own.segments.flat().at(-1)!.distance).toBeCloseTo(1_600, -1)
  })
})
