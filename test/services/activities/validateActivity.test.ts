import { describe, expect, it } from "@effect/vitest"
import { type ActivityDraft, type Lap, NOT_SWUM, type Split } from "../../../src/schema/ActivityDraft.ts"
import { ACTIVITY_BOUNDS, MAX_DEVICE_NAME_LENGTH, MAX_NAME_LENGTH, MAX_SAMPLES, MAX_SPLITS } from "../../../src/schema/ActivityLimits.ts"
import { encodeDraft } from "../../../src/services/activities/StreamsCodec.ts"
import { validateActivity } from "../../../src/services/activities/validateActivity.ts"
import { makeDraft } from "../../support/TestDaemon.ts"

const NOW = Date.parse("2026-06-01T12:00:00Z")
const reasonOf = (draft: ActivityDraft) => {
  const checked = validateActivity(draft, NOW)
  return checked._tag === "Impossible" ? checked.reason : null
}

const lap: Lap = {
  lapIndex: 1, name: "Lap 1", startOffsetInSeconds: 0, elapsedTimeInSeconds: 1900, movingTimeInSeconds: 1800,
  distanceInMeter: 10_000, elevationInMeter: 100, averageSpeedInKmPerHour: 20, maxSpeedInKmPerHour: 40, averageHeartRate: 140, ...NOT_SWUM
}
const split = (i: number): Split => ({
  unit: "km", splitIndex: i, distanceInMeter: 1000, elapsedTimeInSeconds: 180, movingTimeInSeconds: 180,
  elevationDifferenceInMeter: 1, averageSpeedInKmPerHour: 20, averageHeartRate: 140
})

describe("validateActivity", () => {
  it("lets a plausible activity through unchanged", () => {
    const draft = makeDraft({ laps: [lap], splits: [split(1)], bestEfforts: [{ distanceInMeter: 5000, elapsedTimeInSeconds: 900, startOffsetInSeconds: 10 }] })
    const checked = validateActivity(draft, NOW)
    expect(checked).toEqual({ _tag: "Valid", draft })
    if (checked._tag === "Valid") expect(checked.draft).toBe(draft)
  })

  it("lets a 6,000 km ride of 12 days through (ultra-distance events are real)", () => {
    const twelveDays = 12 * 86_400
    expect(reasonOf(makeDraft({
      distanceInMeter: 6_000_000, elapsedTimeInSeconds: twelveDays, movingTimeInSeconds: twelveDays - 86_400,
      averageSpeedInKmPerHour: 21, elevationInMeter: 60_000, calories: 96_000, kilojoules: 200_000
    }))).toBeNull()
  })

  it("names the impossible value: distances, dates, durations", () => {
    expect(reasonOf(makeDraft({ distanceInMeter: 1.7976931348623157e308 }))).toBe("the distance 1.8e308 m is impossible (at most 50,000 km)")
    expect(reasonOf(makeDraft({ distanceInMeter: Infinity }))).toBe("the distance Infinity m is impossible (at most 50,000 km)")
    expect(reasonOf(makeDraft({ distanceInMeter: -5 }))).toBe("the distance -5 m is impossible (at most 50,000 km)")
    expect(reasonOf(makeDraft({ startTime: Date.UTC(1000, 4, 1), startDateLocal: "1000-05-01T10:00:00" })))
      .toBe("it starts in the year 1000 (activities start in 1900 or later)")
    // a date as the file states it, from 1900 on (a GPSBabel conversion dated 1901)
    expect(reasonOf(makeDraft({ startTime: Date.UTC(1901, 4, 1), startDateLocal: "1901-05-01T10:00:00" }))).toBeNull()
    expect(reasonOf(makeDraft({ startTime: Date.UTC(1899, 11, 31), startDateLocal: "1899-12-31T10:00:00" })))
      .toBe("it starts in the year 1899 (activities start in 1900 or later)")
    expect(reasonOf(makeDraft({ startTime: Date.UTC(2126, 0, 1), startDateLocal: "2126-01-01T10:00:00" }))).toBe("it starts on 2126-01-01, in the future")
    // tomorrow is fine, whatever the time zone
    expect(reasonOf(makeDraft({ startTime: NOW + 20 * 3600_000 }))).toBeNull()
    expect(reasonOf({ ...makeDraft(), startTime: NaN })).toBe("its start time NaN is not a date")
    expect(reasonOf(makeDraft({ elapsedTimeInSeconds: 3000 * 365.25 * 86_400 })))
      .toBe("the elapsed time 9.5e10 s (3,000 years) is impossible (at most 100 days)")
    expect(reasonOf(makeDraft({ movingTimeInSeconds: 2000, elapsedTimeInSeconds: 1900 })))
      .toBe("the moving time (2,000 s) is longer than the elapsed time (1,900 s)")
    expect(reasonOf(makeDraft({ distanceInMeter: 10_000_000, elapsedTimeInSeconds: 3600, movingTimeInSeconds: 3600 })))
      .toBe("the distance 10,000,000 m in 1 h is impossible (10,000 km/h on average; at most 2,000 km/h)")
  })

  it("names the impossible value: speeds, physiology, power and the start position", () => {
    expect(reasonOf(makeDraft({ maxSpeedInKmPerHour: 5000 }))).toBe("the maximum speed 5,000 km/h is impossible (0 to 2,000 km/h)")
    expect(reasonOf(makeDraft({ averageHeartRate: 900 }))).toBe("the average heart rate 900 bpm is impossible (0 to 300 bpm)")
    expect(reasonOf(makeDraft({ maxPower: NaN }))).toBe("the maximum power NaN W is impossible (0 to 10,000 W)")
    expect(reasonOf(makeDraft({ calories: 1e12 }))).toBe("the calories 1e12 kcal is impossible (0 to 1,000,000 kcal)")
    expect(reasonOf(makeDraft({ elevationInMeter: 9e15 }))).toBe("the elevation gain 9e15 m is impossible (0 to 500,000 m)")
    expect(reasonOf(makeDraft({ startLatLng: [95, 3] }))).toBe("the start position [95, 3] is impossible")
    expect(reasonOf(makeDraft({ startLatLng: [Infinity, 3] }))).toBe("the start position [Infinity, 3] is impossible")
  })

  it("checks laps, splits, best efforts and every stream sample", () => {
    expect(reasonOf(makeDraft({ laps: [{ ...lap, averageHeartRate: Infinity }] }))).toBe("the average heart rate of lap 1 Infinity bpm is impossible (0 to 300 bpm)")
    expect(reasonOf(makeDraft({ laps: [{ ...lap, distanceInMeter: 1e308 }] }))).toBe("the distance of lap 1 1e308 m is impossible (at most 50,000 km)")
    expect(reasonOf(makeDraft({ splits: [{ ...split(3), averageSpeedInKmPerHour: NaN }] }))).toBe("the average speed of kilometre split 3 NaN km/h is impossible")
    expect(reasonOf(makeDraft({ bestEfforts: [{ distanceInMeter: 1000, elapsedTimeInSeconds: -Infinity, startOffsetInSeconds: 0 }] })))
      .toBe("the best effort time over 1,000 m -Infinity s is impossible (at most 100 days)")
    const streams = makeDraft().streams
    expect(reasonOf(makeDraft({ streams: { ...streams, altitude: [10, Infinity, 12] } }))).toBe("the altitude sample Infinity m is impossible (-2,000 to 15,000 m)")
    expect(reasonOf(makeDraft({ streams: { ...streams, heartrate: [130, 1e300, 132] } }))).toBe("the heart rate sample 1e300 bpm is impossible (0 to 300 bpm)")
    expect(reasonOf(makeDraft({ streams: { ...streams, latlng: [[51, 3], [91, 3], null] } }))).toBe("the position sample [91, 3] is impossible")
    expect(reasonOf(makeDraft({ streams: { ...streams, velocity: [1, NaN, 2] } }))).toBe("the speed sample NaN m/s is impossible")
    // a speed spike from a stale GPS fix is not a reason to refuse the file
    expect(reasonOf(makeDraft({ streams: { ...streams, velocity: [1, 90_000, 2] } }))).toBeNull()
    expect(reasonOf(makeDraft({ streams: { ...streams, watts: [1, 2] } }))).toBe("its watts stream has 2 samples for 3 times")
  })

  it("bounds the counts of samples, laps and splits", () => {
    const many = Array.from({ length: MAX_SAMPLES + 1 }, (_, i) => i)
    expect(reasonOf(makeDraft({ streams: { time: many } }))).toBe(`it has 600,001 samples (at most 600,000)`)
    expect(reasonOf(makeDraft({ laps: Array.from({ length: ACTIVITY_BOUNDS.maxLaps + 1 }, (_, i) => ({ ...lap, lapIndex: i + 1 })) })))
      .toBe("it has 10,001 laps (at most 10,000)")
    expect(reasonOf(makeDraft({ splits: Array.from({ length: MAX_SPLITS + 1 }, (_, i) => split(i + 1)) })))
      .toBe(`it has ${(MAX_SPLITS + 1).toLocaleString("en-US")} splits (at most ${MAX_SPLITS.toLocaleString("en-US")})`)
  })

  it("cuts names, descriptions and device names that are too long instead of refusing them", () => {
    const checked = validateActivity(makeDraft({ name: "n".repeat(1000), description: "d".repeat(20_000), deviceName: "x".repeat(100_000) }), NOW)
    expect(checked._tag).toBe("Valid")
    if (checked._tag !== "Valid") return
    expect(checked.draft.name).toHaveLength(MAX_NAME_LENGTH)
    expect(checked.draft.name.endsWith("…")).toBe(true)
    expect(checked.draft.description).toHaveLength(10_000)
    expect(checked.draft.deviceName).toHaveLength(MAX_DEVICE_NAME_LENGTH)
  })

  it("checks an encoded draft (streams already stored) on its other values", () => {
    expect(validateActivity(encodeDraft(makeDraft({ distanceInMeter: Infinity })), NOW))
      .toEqual({ _tag: "Impossible", reason: "the distance Infinity m is impossible (at most 50,000 km)" })
  })
})
