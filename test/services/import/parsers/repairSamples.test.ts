import { describe, expect, it } from "@effect/vitest"
import type { ParsedActivity } from "../../../../src/schema/ParsedActivity.ts"
import { computeActivity } from "../../../../src/services/import/ActivityMetrics.ts"
import { parseActivityFile } from "../../../../src/services/import/parsers/parseActivityFile.ts"
import { CLOCK_LEAP_MS, repairActivity, repairNote } from "../../../../src/services/import/parsers/repairSamples.ts"
import { context, syntheticActivity } from "../metrics/synthetic.ts"

/** `activity` with sample `i` of `column` set to `value`. */
const withSample = (activity: ParsedActivity, column: "lat" | "lng" | "altitude" | "heartRate" | "distance" | "power" | "speed", i: number, value: number | null): ParsedActivity => {
  const values = [...activity.samples[column]]
  values[i] = value
  return { ...activity, samples: { ...activity.samples, [column]: values } }
}

const NOW = Date.parse("2026-01-01T00:00:00Z")

describe("repairActivity", () => {
  const ride = syntheticActivity({
    sportType: "Ride", samples: 600, speed: () => 8, altitude: (i) => 200 + i / 10, heartRate: (i) => 130 + (i % 5), withDeviceDistance: true
  })

  it("leaves a clean recording as it is, naming no repair", () => {
    const repaired = repairActivity(ride, NOW)
    expect(repaired.repairs).toEqual([])
    expect(repaired.samples).toEqual(ride.samples)
    expect(repairNote(repaired.repairs!)).toBeNull()
  })

  /** `ride` with samples from `from` on moved `days` later, and the device's elapsed time. */
  const resumed = (from: number, days: number, elapsedSeconds: number | null, base: ParsedActivity = ride): ParsedActivity => ({
    ...base,
    samples: { ...base.samples, time: base.samples.time.map((t, i) => (i >= from ? t + days * 86_400_000 : t)) },
    totals: { ...base.totals, elapsedSeconds }
  })

  it("drops the samples beyond the device's session across a clock leap (the smaller side) and moves the start to the samples kept", () => {
    // the device's session lasts the 597 samples kept: the first 3 are dated 40 days before it
    const leapt = { ...ride, samples: { ...ride.samples, time: ride.samples.time.map((t, i) => (i < 3 ? t - 40 * 86_400_000 : t)) } }
    const repaired = repairActivity({ ...leapt, startTime: leapt.samples.time[0]!, totals: { ...leapt.totals, elapsedSeconds: 596 } }, NOW)
    expect(repaired.samples.time).toHaveLength(597)
    expect(repaired.startTime).toBe(ride.samples.time[3])
    expect(repaired.totals.elapsedSeconds).toBe(596)
    expect(repaired.repairs).toEqual(["dropped 3 samples recorded across a clock leap of 40 days"])
    expect(CLOCK_LEAP_MS).toBe(86_400_000)
  })

  it("keeps a recording paused overnight whole", () => {
    const night = { ...ride, samples: { ...ride.samples, time: ride.samples.time.map((t, i) => (i >= 300 ? t + 14 * 3600_000 : t)) } }
    expect(repairActivity(night, NOW).samples.time).toHaveLength(600)
  })

  it("keeps a multi-day recording with a rest day whole when the device's session spans it", () => {
    // 300 samples on day 1, a rest day, 300 on day 3: the session's elapsed time spans the pause
    const tour = resumed(300, 2, 2 * 86_400 + 600)
    const repaired = repairActivity(tour, NOW)
    expect(repaired.samples.time).toHaveLength(600)
    expect(repaired.repairs).toEqual([])
    expect(repaired.totals.elapsedSeconds).toBe(2 * 86_400 + 600)
  })

  it("without a device session, keeps a rest that resumes where it stopped and drops the far side of one whose positions do not continue", () => {
    expect(repairActivity(resumed(300, 2, null), NOW).samples.time).toHaveLength(600)
    // the last 200 samples lie 300 km north of where the first 400 ended
    const elsewhere = resumed(400, 2, null, { ...ride, samples: { ...ride.samples, lat: ride.samples.lat.map((v, i) => (i >= 400 ? v! + 2.7 : v)) } })
    const repaired = repairActivity(elsewhere, NOW)
    expect(repaired.samples.time).toHaveLength(400)
    expect(repaired.repairs).toEqual(["dropped 200 samples recorded across a clock leap of 2 days"])
  })

  it("takes a gap longer than any activity (two years) for a clock leap, whatever the device's elapsed time says", () => {
    const repaired = repairActivity(resumed(550, 730, 730 * 86_400 + 600), NOW + 800 * 86_400_000)
    expect(repaired.samples.time).toHaveLength(550)
    expect(repaired.repairs).toContain("dropped 50 samples recorded across a clock leap of 2 years")
  })

  it("drops altitude, heart-rate and distance spikes and a position off the track, naming each", () => {
    let spiky = withSample(ride, "altitude", 100, 2_900)
    spiky = withSample(spiky, "heartRate", 200, 228)
    spiky = withSample(spiky, "distance", 300, 9e9)
    spiky = withSample(spiky, "distance", 301, 1e6)
    spiky = withSample(withSample(spiky, "lat", 400, 48.5), "lng", 400, 2.3)
    const repaired = repairActivity(spiky, NOW)
    expect([repaired.samples.altitude[100], repaired.samples.heartRate[200], repaired.samples.distance[300], repaired.samples.distance[301]])
      .toEqual([null, null, null, null])
    expect([repaired.samples.lat[400], repaired.samples.lng[400]]).toEqual([null, null])
    expect(repaired.repairs).toEqual([
      "ignored 1 impossible distance value",
      "ignored 1 altitude spike",
      "ignored 1 heart-rate spike",
      "ignored 1 distance spike",
      "ignored 1 position off the track"
    ])
    // the activity computed from the rest is the clean one's
    const clean = computeActivity(repairActivity(ride, NOW), context)
    const fixed = computeActivity(repaired, context)
    expect([fixed.distanceInMeter, fixed.elevationInMeter, fixed.maxHeartRate]).toEqual([clean.distanceInMeter, clean.elevationInMeter, clean.maxHeartRate])
    expect(spiky.samples.altitude[100]).toBe(2_900) // the parser's columns are left as they were
  })

  it("drops a speed spike (a GPS glitch) so that it is not the maximum speed, and keeps a real sprint", () => {
    const steady = { ...ride, samples: { ...ride.samples, speed: ride.samples.time.map(() => 8) } }
    const glitch = withSample(steady, "speed", 250, 30)
    const repaired = repairActivity(glitch, NOW)
    expect(repaired.samples.speed[250]).toBeNull()
    expect(repaired.repairs).toEqual(["ignored 1 speed spike"])
    expect(computeActivity(repaired, context).maxSpeedInKmPerHour).toBe(28.8)
    // a sprint builds up and lasts: 8 → 14 m/s over 6 s, held for 20 s
    const sprint = steady.samples.speed.map((v, i) => (i >= 300 && i < 326 ? Math.min(14, 8 + (i - 300)) : v))
    const kept = repairActivity({ ...steady, samples: { ...steady.samples, speed: sprint } }, NOW)
    expect(kept.repairs).toEqual([])
    expect(computeActivity(kept, context).maxSpeedInKmPerHour).toBe(50.4)
  })

  it("drops a heart rate held unchanged for over 10 minutes (an exporter's fill, no reading), and an average of readings spanning a tenth of the ride is none", () => {
    // 55 minutes of the first reading written over a swim, then 5 minutes of real readings
    const filled = { ...ride, samples: { ...ride.samples, time: ride.samples.time.map((t, i) => t + i * 5000), heartRate: ride.samples.heartRate.map((v, i) => (i < 550 ? 72 : v)) } }
    const repaired = repairActivity(filled, NOW)
    expect(repaired.samples.heartRate.slice(0, 550).every((v) => v === null)).toBe(true)
    expect(repaired.repairs).toEqual(["ignored 550 heart-rate samples held unchanged for over 10 minutes (no reading)"])
    // 50 samples of 6 s (the last 5 minutes) of a ride of 60: not the ride's average
    expect(computeActivity(repaired, context).averageHeartRate).toBeNull()
    expect(computeActivity(repaired, context).maxHeartRate).toBe(134)
    // a strap that reads throughout keeps its average
    expect(computeActivity(repairActivity({ ...filled, samples: { ...filled.samples, heartRate: ride.samples.heartRate } }, NOW), context).averageHeartRate).toBe(132)
  })

  it("ignores impossible device totals and reads totals of 0 without such data as absent", () => {
    const totals = { ...ride.totals, calories: 1.7976931348623157e308, averagePower: 0, maxPower: 0, averageCadence: 0, averageHeartRate: 131, workJoules: 0 }
    const repaired = repairActivity({ ...ride, totals }, NOW)
    expect(repaired.totals).toMatchObject({ calories: null, averagePower: null, maxPower: null, averageCadence: null, workJoules: null, averageHeartRate: 131 })
    expect(repaired.repairs).toEqual(["ignored the device's calories (1.8e308 kcal), which is impossible"])
  })

  it("reads a sensor column of zeros only as absent", () => {
    const zeros = syntheticActivity({ samples: 60, power: () => 0, cadence: () => 0, heartRate: () => 0 })
    const draft = computeActivity(repairActivity(zeros, NOW), context)
    expect([draft.averagePower, draft.maxPower, draft.averageCadence, draft.averageHeartRate, draft.maxHeartRate]).toEqual([null, null, null, null, null])
  })
})

describe("repairs as the samples are read", () => {
  const utf8 = (s: string) => new TextEncoder().encode(s)
  const gpx = (points: ReadonlyArray<readonly [lat: number, lng: number, time: string]>) =>
    `<gpx version="1.1" creator="t"><trk><trkseg>${
      points.map(([lat, lng, t]) => `<trkpt lat="${lat}" lon="${lng}"><time>${t}</time></trkpt>`).join("")
    }</trkseg></trk></gpx>`

  it("drops a sample whose time runs backwards between two that agree, and counts positions at 0°, 0°", async () => {
    const [a] = await parseActivityFile(utf8(gpx([
      [46.5, 7.5, "2024-06-01T08:00:00Z"],
      [46.5001, 7.5, "2024-06-01T08:00:10Z"],
      [46.5002, 7.5, "2024-06-01T07:00:00Z"],
      [46.5003, 7.5, "2024-06-01T08:00:20Z"],
      [0, 0, "2024-06-01T08:00:30Z"],
      [46.5004, 7.5, "2024-06-01T08:00:40Z"]
    ])), "gpx", "glitch.gpx")
    expect(a!.samples.time).toHaveLength(5)
    expect(a!.repairs).toEqual(["dropped 1 sample whose time runs backwards", "ignored 1 position at 0°, 0° or out of range"])
  })

  it("makes one activity per group of GPX tracks more than a day apart", async () => {
    const track = (day: string) => `<trk><name>${day}</name><trkseg><trkpt lat="46.5" lon="7.5"><time>${day}T08:00:00Z</time></trkpt><trkpt lat="46.51" lon="7.5"><time>${day}T09:00:00Z</time></trkpt></trkseg></trk>`
    const doc = `<gpx version="1.1" creator="t">${track("2024-06-01")}${track("2024-06-01")}${track("2024-06-05")}</gpx>`
    const activities = await parseActivityFile(utf8(doc), "gpx", "two-outings.gpx")
    expect(activities.map((a) => [a.name, a.samples.time.length])).toEqual([["2024-06-01", 2], ["2024-06-05", 2]])
  })
})
