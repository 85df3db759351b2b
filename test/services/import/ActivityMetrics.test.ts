import polyline from "@mapbox/polyline"
import { describe, expect, it } from "@effect/vitest"
import { computeActivity } from "../../../src/services/import/ActivityMetrics.ts"
import { context, seeded, syntheticActivity } from "./metrics/synthetic.ts"

describe("computeActivity: elevation", () => {
  it("ignores ±2 m altitude noise on a flat 10 km track (hysteresis, not the raw sum)", () => {
    const rnd = seeded(42)
    const parsed = syntheticActivity({ samples: 2001, speed: () => 5, altitude: () => 12 + (rnd() - 0.5) * 4 })
    const draft = computeActivity(parsed, context)
    expect(draft.distanceInMeter).toBeGreaterThanOrEqual(9990)
    expect(draft.elevationInMeter).toBeLessThan(5)
  })

  it("counts a noisy 100 m climb as about 100 m", () => {
    const rnd = seeded(7)
    const parsed = syntheticActivity({
      samples: 1200,
      speed: () => 4,
      altitude: (i) => 50 + Math.min(100, (i / 1000) * 100) + (rnd() - 0.5) * 4
    })
    const draft = computeActivity(parsed, context)
    expect(draft.elevationInMeter).toBeGreaterThanOrEqual(95)
    expect(draft.elevationInMeter).toBeLessThanOrEqual(102)
  })

  it("uses the device total ascent when the file has one", () => {
    const parsed = syntheticActivity({ altitude: (i) => i, totals: { ascentMeters: 42.6 } })
    expect(computeActivity(parsed, context).elevationInMeter).toBe(43)
  })
})

describe("computeActivity: distance and time", () => {
  it("derives distance from the GPS track within segments, not across a segment break", () => {
    const one = computeActivity(syntheticActivity({ samples: 101, speed: () => 10 }), context)
    expect(one.distanceInMeter).toBeGreaterThanOrEqual(999)
    expect(one.distanceInMeter).toBeLessThanOrEqual(1000)
    // sample 50 jumps 5 km ahead (teleport at a new segment): not counted
    const jumped = syntheticActivity({ samples: 101, speed: (i) => (i === 50 ? 5000 : 10), segmentStarts: [50] })
    const draft = computeActivity(jumped, context)
    expect(draft.distanceInMeter).toBeGreaterThanOrEqual(989)
    expect(draft.distanceInMeter).toBeLessThanOrEqual(991)
  })

  it("prefers the device distance stream, then the device total", () => {
    const parsed = syntheticActivity({ samples: 101, speed: () => 10, withPositions: false, withDeviceDistance: true })
    expect(computeActivity(parsed, context).distanceInMeter).toBe(1000)
    const withTotal = syntheticActivity({ samples: 101, speed: () => 10, totals: { distanceMeters: 1234.9 } })
    expect(computeActivity(withTotal, context).distanceInMeter).toBe(1234)
  })

  it("excludes stops below the ride stop speed and gaps over 60 s from moving time", () => {
    // 3600 s at 1 Hz; samples 1000-1599 standing still; a 300 s recording gap before sample 2000
    const parsed = syntheticActivity({
      samples: 3600,
      speed: (i) => (i >= 1000 && i < 1600 ? 0 : 8),
      pauseBefore: new Map([[2000, 300]])
    })
    const draft = computeActivity(parsed, context)
    expect(draft.elapsedTimeInSeconds).toBe(3599 + 300)
    expect(draft.movingTimeInSeconds).toBeGreaterThanOrEqual(2990)
    expect(draft.movingTimeInSeconds).toBeLessThanOrEqual(3005)
    expect(draft.averageSpeedInKmPerHour).toBeCloseTo(28.8, 0)
  })

  it("applies a per-sport stop speed: 0.8 m/s is moving for a walk, stopped for a ride", () => {
    const slow = { samples: 600, speed: () => 0.8 } as const
    expect(computeActivity(syntheticActivity({ ...slow, sportType: "Walk" }), context).movingTimeInSeconds).toBeGreaterThan(590)
    expect(computeActivity(syntheticActivity({ ...slow, sportType: "Ride" }), context).movingTimeInSeconds).toBe(0)
  })

  it("keeps the device timer of an activity without GPS and elapsed time, but never lets moving exceed elapsed", () => {
    const weeks = 21 * 86_400
    const indoor = { withPositions: false } as const
    const timer = computeActivity(syntheticActivity({ ...indoor, totals: { timerSeconds: 500, elapsedSeconds: weeks } }), context)
    expect(timer.movingTimeInSeconds).toBe(500)
    expect(timer.elapsedTimeInSeconds).toBe(weeks)
    const absurd = computeActivity(syntheticActivity({ ...indoor, totals: { timerSeconds: 9000, elapsedSeconds: 3000 } }), context)
    expect(absurd.movingTimeInSeconds).toBe(3000)
  })

  it("reads the stops of a GPS activity from its track, within the device timer (auto-pause off counts standing still)", () => {
    // 600 s at 1 Hz, standing still from 200 to 399; the timer ran throughout
    const still = (i: number) => (i >= 200 && i < 400 ? 0 : 8)
    const fit = computeActivity(syntheticActivity({ format: "fit", speed: still, totals: { timerSeconds: 599, elapsedSeconds: 599 } }), context)
    const gpx = computeActivity(syntheticActivity({ format: "gpx", speed: still }), context)
    expect(fit.movingTimeInSeconds).toBeGreaterThanOrEqual(395)
    expect(fit.movingTimeInSeconds).toBeLessThanOrEqual(405)
    expect(gpx.movingTimeInSeconds).toBe(fit.movingTimeInSeconds)
    // a paused timer (shorter than what the track shows) wins
    const paused = computeActivity(syntheticActivity({ format: "fit", speed: still, totals: { timerSeconds: 300, elapsedSeconds: 599 } }), context)
    expect(paused.movingTimeInSeconds).toBe(300)
  })

  it("counts a slow run or a hike as moving, a receiver wandering around one spot as stopped", () => {
    const rnd = seeded(3)
    // 0.7 m/s: a steep trail run, a hike
    for (const sportType of ["Run", "Hike"] as const) {
      expect(computeActivity(syntheticActivity({ sportType, samples: 600, speed: () => 0.7 }), context).movingTimeInSeconds, sportType).toBeGreaterThan(590)
    }
    // standing still, the fixes jumping by up to 1.5 m every second
    const jitter = syntheticActivity({ sportType: "Run", samples: 600, speed: () => 0 })
    const lat = jitter.samples.lat.map((v) => v! + (rnd() - 0.5) * 3 / 111_000)
    const standing = computeActivity({ ...jitter, samples: { ...jitter.samples, lat } }, context)
    expect(standing.movingTimeInSeconds).toBeLessThan(30)
  })

  it("filters a single GPS spike out of the computed max speed", () => {
    const parsed = syntheticActivity({ samples: 600, speed: (i) => (i === 300 ? 400 : 6) })
    const draft = computeActivity(parsed, context)
    expect(draft.maxSpeedInKmPerHour).toBeLessThan(130)
    expect(draft.maxSpeedInKmPerHour).toBeGreaterThanOrEqual(21.6)
    const device = computeActivity(syntheticActivity({ totals: { maxSpeed: 15, averageSpeed: 5 } }), context)
    expect(device.maxSpeedInKmPerHour).toBe(54)
    expect(device.averageSpeedInKmPerHour).toBe(18)
  })
})

describe("computeActivity: names, world and local time", () => {
  it("names an unnamed activity after the local start hour and the split sport type", () => {
    // 04:30 UTC + 2 h device offset = 06:30 local
    const parsed = syntheticActivity({ start: "2024-06-01T04:30:00Z", sportType: "TrailRun", utcOffsetSeconds: 7200 })
    const draft = computeActivity(parsed, context)
    expect(draft.startDateLocal).toBe("2024-06-01T06:30:00")
    expect(draft.name).toBe("Morning Trail Run")
    expect(computeActivity(syntheticActivity({ start: "2024-06-01T19:30:00Z", utcOffsetSeconds: 0, withPositions: false }), context).name)
      .toBe("Evening Ride")
    expect(computeActivity(syntheticActivity({ start: "2024-06-01T23:30:00Z", utcOffsetSeconds: 0, withPositions: false }), context).name)
      .toBe("Night Ride")
  })

  it("strips a Zwift prefix from the file name and detects virtual worlds", () => {
    const zwift = computeActivity(
      syntheticActivity({ name: "  Zwift - Watopia Flat  ", deviceName: "Zwift", sportType: "VirtualRide" }),
      context
    )
    expect(zwift.name).toBe("Watopia Flat")
    expect(zwift.worldType).toBe("zwift")
    expect(computeActivity(syntheticActivity({ deviceName: "ROUVY" }), context).worldType).toBe("rouvy")
    expect(computeActivity(syntheticActivity({ name: "MyWhoosh session" }), context).worldType).toBe("myWhoosh")
    expect(computeActivity(syntheticActivity({}), { ...context, filename: "mywhoosh-123.fit" }).worldType).toBe("myWhoosh")
    expect(computeActivity(syntheticActivity({ deviceName: "Garmin Edge 540" }), context).worldType).toBe("realWorld")
  })

  it("uses the time zone at the start position when the device has no offset (DST-aware)", () => {
    // Tokyo, 23:30 UTC = 08:30 next day
    const tokyo = syntheticActivity({ origin: [35.68, 139.76], start: "2024-01-10T23:30:00Z" })
    expect(computeActivity(tokyo, context).startDateLocal).toBe("2024-01-11T08:30:00")
    // Brugge in summer (CEST, +2) and winter (CET, +1)
    expect(computeActivity(syntheticActivity({ start: "2024-07-01T10:00:00Z" }), context).startDateLocal)
      .toBe("2024-07-01T12:00:00")
    expect(computeActivity(syntheticActivity({ start: "2024-01-01T10:00:00Z" }), context).startDateLocal)
      .toBe("2024-01-01T11:00:00")
  })

  it("falls back to the configured zone without offset or positions", () => {
    const parsed = syntheticActivity({ start: "2024-07-01T10:00:00Z", withPositions: false })
    expect(computeActivity(parsed, { ...context, fallbackTimeZone: "America/New_York" }).startDateLocal)
      .toBe("2024-07-01T06:00:00")
    expect(computeActivity(parsed, { ...context, fallbackTimeZone: "Not/AZone" }).startDateLocal).toBe("2024-07-01T10:00:00")
  })
})

describe("computeActivity: heart rate, power, cadence", () => {
  it("averages streams over time, a value holding until the next, with zeros counted for power but not for heart rate", () => {
    const parsed = syntheticActivity({
      samples: 5,
      // a record every second, then one 3 s later: 100 holds for 2 s, 120 for 3 s
      pauseBefore: new Map([[4, 2]]),
      heartRate: (i) => [0, 100, null, 120, 120][i]!,
      power: (i) => [0, 100, 200, null, 200][i]!,
      cadence: (i) => [null, 80, 90, 100, 100][i]!
    })
    const draft = computeActivity(parsed, context)
    // intervals (mean of their ends, held values): 100, 100, 110, 120×3 s over 6 s = 111.7
    expect(draft.averageHeartRate).toBe(112)
    expect(draft.maxHeartRate).toBe(120)
    // 50, 150, 200, 200×3 s over 6 s
    expect(draft.averagePower).toBe(167)
    expect(draft.maxPower).toBe(200)
    // 80, 85, 95, 100×3 s over 6 s
    expect(draft.averageCadence).toBe(93)
  })

  it("gives a sparse stream and the same stream with its gaps filled one average", () => {
    const hr = (i: number) => (i % 7 === 0 ? 120 + (i % 30) : null)
    const sparse = computeActivity(syntheticActivity({ samples: 600, heartRate: hr }), context)
    let last = 120
    const filled = computeActivity(syntheticActivity({ samples: 600, heartRate: (i) => (last = hr(i) ?? last) }), context)
    expect(sparse.averageHeartRate).toBe(filled.averageHeartRate)
  })

  it("prefers the stream average power when the device average differs by more than 10 %", () => {
    const power = () => 200
    expect(computeActivity(syntheticActivity({ power, totals: { averagePower: 150 } }), context).averagePower).toBe(200)
    expect(computeActivity(syntheticActivity({ power, totals: { averagePower: 190 } }), context).averagePower).toBe(190)
  })

  it("gives null metrics without data, and kilojoules from the device's work, else from the power stream", () => {
    const none = computeActivity(syntheticActivity({}), context)
    expect(none.averageHeartRate).toBeNull()
    expect(none.averagePower).toBeNull()
    expect(none.kilojoules).toBeNull()
    expect(none.calories).toBeNull()
    // 200 W held for 10 minutes (601 samples a second apart) is 200 × 600 J
    const powered = computeActivity(syntheticActivity({ format: "gpx", samples: 601, power: () => 200 }), context)
    expect(powered.kilojoules).toBe(120)
    // a pause of 5 minutes does no work
    const paused = computeActivity(syntheticActivity({ format: "gpx", samples: 601, power: () => 200, pauseBefore: new Map([[300, 300]]) }), context)
    expect(paused.kilojoules).toBe(120)
    const fit = computeActivity(syntheticActivity({ format: "fit", totals: { workJoules: 500_600, calories: 321.4 } }), context)
    expect(fit.kilojoules).toBe(501)
    expect(fit.calories).toBe(321)
    expect(fit.importSource).toBe("fitFile")
  })
})

describe("computeActivity: streams, polyline, location", () => {
  it("gap-fills streams, drops streams without a truthy value and keeps one entry per sample", () => {
    const parsed = syntheticActivity({
      samples: 5,
      heartRate: (i) => [null, 100, null, 110, null][i]!,
      power: () => 0,
      altitude: (i) => [null, null, 10.04, null, 12][i]!
    })
    const { streams } = computeActivity(parsed, context)
    expect(streams.time).toEqual([0, 1, 2, 3, 4])
    expect(streams.heartrate).toEqual([100, 100, 100, 110, 110])
    expect(streams.altitude).toEqual([10, 10, 10, 10, 12])
    expect(streams.watts).toBeUndefined()
    expect(streams.latlng).toHaveLength(5)
    expect(streams.distance).toHaveLength(5)
    expect(streams.moving).toEqual([true, true, true, true, true])
  })

  it("encodes a simplified polyline that decodes onto the track, and none without positions", () => {
    const parsed = syntheticActivity({ samples: 500, speed: () => 10 })
    const draft = computeActivity(parsed, context)
    const points = polyline.decode(draft.encodedPolyline!)
    expect(points.length).toBeLessThan(10) // a straight line simplifies to its ends
    expect(points[0]![0]).toBeCloseTo(51.2093, 4)
    expect(draft.startLatLng).toEqual([51.2093, 3.2247])
    expect(draft.hasGpx).toBe(true)
    const indoor = computeActivity(syntheticActivity({ withPositions: false }), context)
    expect(indoor.encodedPolyline).toBeNull()
    expect(indoor.hasGpx).toBe(false)
    expect(indoor.startLatLng).toBeNull()
  })

  it("locates real-world activities only", () => {
    const outdoor = computeActivity(syntheticActivity({ samples: 60 }), context)
    expect(outdoor.location).toEqual({ countryCode: "be", state: "Flanders", city: "Brugge" })
    expect(outdoor.passedThroughCountries).toEqual(["be"])
    const virtual = computeActivity(syntheticActivity({ samples: 60, sportType: "VirtualRide" }), context)
    expect(virtual.location).toEqual({ countryCode: null, state: null, city: null })
    expect(virtual.passedThroughCountries).toEqual([])
  })

  it("locates an activity with positions whatever its sport (a Workout, a court game)", () => {
    for (const sportType of ["Workout", "Badminton", "Yoga", "Swim"] as const) {
      const located = computeActivity(syntheticActivity({ samples: 60, sportType }), context)
      expect(located.location, sportType).toEqual({ countryCode: "be", state: "Flanders", city: "Brugge" })
      expect(located.passedThroughCountries, sportType).toEqual(["be"])
    }
  })
})

describe("computeActivity: laps, splits, best efforts", () => {
  it("makes one lap of the whole activity when the file has none", () => {
    const draft = computeActivity(syntheticActivity({ samples: 601, speed: () => 5 }), context)
    expect(draft.laps).toHaveLength(1)
    expect(draft.laps[0]).toMatchObject({ lapIndex: 1, elapsedTimeInSeconds: 600, movingTimeInSeconds: 600 })
    expect(draft.laps[0]!.distanceInMeter).toBeCloseTo(3000, -1)
  })

  it("computes file laps from their time ranges, device values winning", () => {
    const t0 = Date.parse("2024-06-01T08:00:00Z")
    const lap = { elapsedSeconds: null, timerSeconds: null, distanceMeters: null, ascentMeters: null, averageSpeed: null,
      maxSpeed: null, averageHeartRate: null, maxHeartRate: null, calories: null }
    const parsed = syntheticActivity({
      samples: 601,
      speed: (i) => (i <= 300 ? 5 : 10),
      heartRate: (i) => (i < 300 ? 120 : 160),
      laps: [{ ...lap, startTime: t0 }, { ...lap, startTime: t0 + 300_000, averageHeartRate: 150.4 }]
    })
    const laps = computeActivity(parsed, context).laps
    expect(laps).toHaveLength(2)
    expect(laps[0]).toMatchObject({ lapIndex: 1, startOffsetInSeconds: 0, elapsedTimeInSeconds: 300, averageHeartRate: 120 })
    expect(laps[0]!.distanceInMeter).toBeCloseTo(1500, -1)
    expect(laps[0]!.averageSpeedInKmPerHour).toBeCloseTo(18, 0)
    expect(laps[1]).toMatchObject({ lapIndex: 2, startOffsetInSeconds: 300, averageHeartRate: 150 })
    expect(laps[1]!.distanceInMeter).toBeCloseTo(3000, -1)
  })

  it("splits per kilometre and per mile with the final partial split", () => {
    const draft = computeActivity(syntheticActivity({ sportType: "Run", samples: 1001, speed: () => 4 }), context)
    const metric = draft.splits.filter((s) => s.unit === "km")
    const imperial = draft.splits.filter((s) => s.unit === "mile")
    expect(metric).toHaveLength(4) // 4000 m ≈ 4 full km (last one may be the rounding remainder)
    expect(metric[0]).toMatchObject({ splitIndex: 1, distanceInMeter: 1000, elapsedTimeInSeconds: 250 })
    expect(metric[0]!.averageSpeedInKmPerHour).toBeCloseTo(14.4, 1)
    expect(imperial).toHaveLength(3)
    expect(imperial[2]!.distanceInMeter).toBeCloseTo(4000 - 2 * 1609.344, -1)
  })

  it("finds the fastest window for each best-effort distance and skips longer distances", () => {
    // 5 km run at 4 m/s with one fast kilometre at 5 m/s in the middle
    const parsed = syntheticActivity({
      sportType: "Run",
      samples: 1300,
      speed: (i) => (i > 500 && i <= 700 ? 5 : 4),
      withPositions: false,
      withDeviceDistance: true
    })
    const efforts = computeActivity(parsed, context).bestEfforts
    const km = efforts.find((e) => e.distanceInMeter === 1000)!
    expect(km.elapsedTimeInSeconds).toBe(200)
    expect(km.startOffsetInSeconds).toBe(500)
    expect(efforts.find((e) => e.distanceInMeter === 400)!.elapsedTimeInSeconds).toBe(80)
    expect(efforts.some((e) => e.distanceInMeter > 5400)).toBe(false)
    expect(computeActivity({ ...parsed, sportType: "Walk" }, context).bestEfforts).toEqual([])
  })
})
