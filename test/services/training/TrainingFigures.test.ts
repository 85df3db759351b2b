import { describe, expect, it } from "@effect/vitest"
import {
  banisterTrimp,
  type ThresholdSet,
  thresholdsOn,
  trainingFigures,
  zonesOf,
  POWER_ZONES,
  HEART_RATE_ZONES
} from "../../../src/services/training/TrainingFigures.ts"
import { costOfRunning, gradeAdjustedDistance } from "../../../src/services/training/Minetti.ts"
import { fitnessAndFatigue } from "../../../src/services/training/FitnessFatigue.ts"
import { criticalPowerFit, estimatedFtp } from "../../../src/services/training/CriticalPower.ts"

const set = (on: string, values: Partial<Omit<ThresholdSet, "on">> = {}): ThresholdSet => ({
  on, cyclingFtp: null, runningFtp: null, maxHeartRate: null, restingHeartRate: null, lactateThresholdHeartRate: null, ...values
})

describe("intensity, training stress and TRIMP", () => {
  it("one hour at FTP: IF 1, TSS 100; one hour at 80 % of FTP: IF 0.8, TSS 64", () => {
    const s = set("2024-01-01", { cyclingFtp: 250 })
    const atFtp = trainingFigures({ seconds: 3600, normalizedPower: 250 }, { sportType: "Ride", movingTimeInSeconds: 3600, averageHeartRate: null }, s)
    expect(atFtp.intensityFactor).toBeCloseTo(1, 12)
    expect(atFtp.trainingStressScore).toBeCloseTo(100, 10)
    expect(atFtp.trainingLoad).toBeCloseTo(100, 10)
    expect(atFtp.trainingLoadSource).toBe("power")
    const easy = trainingFigures({ seconds: 3600, normalizedPower: 200 }, { sportType: "Ride", movingTimeInSeconds: 3600, averageHeartRate: null }, s)
    expect(easy.intensityFactor).toBeCloseTo(0.8, 12)
    expect(easy.trainingStressScore).toBeCloseTo(64, 10)
    // two hours at 80 %: 128
    const long = trainingFigures({ seconds: 7200, normalizedPower: 200 }, { sportType: "Ride", movingTimeInSeconds: 7200, averageHeartRate: null }, s)
    expect(long.trainingStressScore).toBeCloseTo(128, 10)
  })

  it("an activity whose date is unknown has no training load: it would fall on its stand-in day", () => {
    const s = set("2024-01-01", { cyclingFtp: 250 })
    const undated = trainingFigures({ seconds: 3600, normalizedPower: 250 }, { sportType: "Ride", movingTimeInSeconds: 3600, averageHeartRate: null, dateUnknown: true }, s)
    expect(undated.trainingStressScore).toBeCloseTo(100, 10)
    expect([undated.trainingLoad, undated.trainingLoadSource]).toEqual([null, null])
  })

  it("takes the FTP of the activity's sport: cycling for rides, running for runs, none for a swim", () => {
    const s = set("2024-01-01", { cyclingFtp: 250, runningFtp: 300 })
    const power = { seconds: 3600, normalizedPower: 300 }
    const summary = { movingTimeInSeconds: 3600, averageHeartRate: null }
    expect(trainingFigures(power, { ...summary, sportType: "GravelRide" }, s).ftp).toBe(250)
    expect(trainingFigures(power, { ...summary, sportType: "TrailRun" }, s).ftp).toBe(300)
    expect(trainingFigures(power, { ...summary, sportType: "TrailRun" }, s).trainingStressScore).toBeCloseTo(100, 10)
    const swim = trainingFigures(power, { ...summary, sportType: "Swim" }, s)
    expect(swim.ftp).toBeNull()
    expect(swim.intensityFactor).toBeNull()
    expect(swim.trainingLoad).toBeNull()
    expect(swim.trainingLoadSource).toBeNull()
  })

  it("Banister's TRIMP and hrTSS, worked out by hand", () => {
    // 60 minutes at 141 bpm, resting 50, maximum 180: x = 91 / 130 = 0.7
    const x = 0.7
    expect(banisterTrimp(60, 141, 50, 180)).toBeCloseTo(60 * x * 0.64 * Math.exp(1.92 * x), 10)
    const s = set("2024-01-01", { maxHeartRate: 180, restingHeartRate: 50, lactateThresholdHeartRate: 167 })
    const f = trainingFigures(null, { sportType: "Run", movingTimeInSeconds: 3600, averageHeartRate: 141 }, s)
    const trimp = 60 * x * 0.64 * Math.exp(1.92 * x)
    // one hour at 167 bpm: x = 117 / 130 = 0.9
    const hourAtThreshold = 60 * 0.9 * 0.64 * Math.exp(1.92 * 0.9)
    expect(f.trimp).toBeCloseTo(trimp, 10)
    expect(f.heartRateStressScore).toBeCloseTo((100 * trimp) / hourAtThreshold, 10)
    expect(f.trainingLoad).toBeCloseTo((100 * trimp) / hourAtThreshold, 10)
    expect(f.trainingLoadSource).toBe("heartRate")
    // one hour at the threshold heart rate scores 100
    const atThreshold = trainingFigures(null, { sportType: "Run", movingTimeInSeconds: 3600, averageHeartRate: 167 }, s)
    expect(atThreshold.heartRateStressScore).toBeCloseTo(100, 10)
  })

  it("prefers power to heart rate, and leaves null what a missing threshold or sensor cannot give", () => {
    const full = set("2024-01-01", { cyclingFtp: 250, maxHeartRate: 180, restingHeartRate: 50, lactateThresholdHeartRate: 167 })
    const both = trainingFigures({ seconds: 3600, normalizedPower: 250 }, { sportType: "Ride", movingTimeInSeconds: 3600, averageHeartRate: 150 }, full)
    expect(both.trainingLoadSource).toBe("power")
    expect(both.trainingLoad).toBeCloseTo(100, 10)
    expect(both.heartRateStressScore).not.toBeNull()
    const noLthr = set("2024-01-01", { maxHeartRate: 180, restingHeartRate: 50 })
    const f = trainingFigures(null, { sportType: "Ride", movingTimeInSeconds: 3600, averageHeartRate: 150 }, noLthr)
    expect(f.trimp).not.toBeNull()
    expect(f.heartRateStressScore).toBeNull()
    expect(f.trainingLoad).toBeNull()
    const none = trainingFigures(null, { sportType: "Ride", movingTimeInSeconds: 3600, averageHeartRate: null }, null)
    expect(Object.values(none).every((v) => v === null)).toBe(true)
  })

  it("uses the set in force on the day: the latest dated on or before it", () => {
    const sets = [set("2023-01-01", { cyclingFtp: 200 }), set("2024-03-01", { cyclingFtp: 250 }), set("2024-06-01", { cyclingFtp: 270 })]
    expect(thresholdsOn(sets, "2022-12-31")).toBeNull()
    expect(thresholdsOn(sets, "2023-01-01")!.cyclingFtp).toBe(200)
    expect(thresholdsOn(sets, "2024-02-29")!.cyclingFtp).toBe(200)
    expect(thresholdsOn(sets, "2024-03-01")!.cyclingFtp).toBe(250)
    expect(thresholdsOn(sets, "2030-01-01")!.cyclingFtp).toBe(270)
  })
})

describe("zones", () => {
  it("power zones at 0, 55, 75, 90, 105, 120, 150 % of FTP; a value on a bound is in the upper zone", () => {
    const histogram = new Array<number>(400).fill(0)
    histogram[100] = 1800 // zone 1 (under 137.5)
    histogram[137] = 10 // zone 1
    histogram[138] = 20 // zone 2
    histogram[225] = 30 // on the 90 % bound: zone 4
    histogram[300] = 1800 // on the 120 % bound: zone 6
    histogram[399] = 5 // zone 7 (from 375)
    const zones = zonesOf(histogram, 250, POWER_ZONES)
    expect(zones.map((z) => [z.min, z.max])).toEqual([[0, 137.5], [137.5, 187.5], [187.5, 225], [225, 262.5], [262.5, 300], [300, 375], [375, null]])
    expect(zones.map((z) => z.timeInSeconds)).toEqual([1810, 20, 0, 30, 0, 1800, 5])
    expect(zones.map((z) => z.zone)).toEqual([1, 2, 3, 4, 5, 6, 7])
  })

  it("heart-rate zones at 0, 60, 70, 80, 90 % of the maximum", () => {
    const histogram = new Array<number>(181).fill(0)
    histogram[107] = 60
    histogram[108] = 600 // on the 60 % bound of 180
    histogram[162] = 300 // on the 90 % bound
    histogram[180] = 1
    const zones = zonesOf(histogram, 180, HEART_RATE_ZONES)
    expect(zones.map((z) => [z.min, z.max])).toEqual([[0, 108], [108, 126], [126, 144], [144, 162], [162, null]])
    expect(zones.map((z) => z.timeInSeconds)).toEqual([60, 600, 0, 0, 301])
  })
})

describe("fitness, fatigue and form", () => {
  it("one load of 100: fitness and fatigue rise by 100·(1 − e^(−1/N)) and decay by e^(−1/N) a day", () => {
    const days = fitnessAndFatigue([["2024-01-01", 100]], "2024-01-01", "2024-01-08")
    expect(days.map((d) => d.on)).toEqual(["2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04", "2024-01-05", "2024-01-06", "2024-01-07", "2024-01-08"])
    const fitness = (day: number) => 100 * (1 - Math.exp(-1 / 42)) * Math.exp(-day / 42)
    const fatigue = (day: number) => 100 * (1 - Math.exp(-1 / 7)) * Math.exp(-day / 7)
    days.forEach((d, i) => {
      expect(d.load).toBe(i === 0 ? 100 : 0)
      expect(d.fitness).toBeCloseTo(fitness(i), 1)
      expect(d.fatigue).toBeCloseTo(fatigue(i), 1)
      expect(d.form).toBeCloseTo(fitness(i) - fatigue(i), 1)
    })
  })

  it("sums the loads of a day, and starts the averages at the first load whatever the range asked", () => {
    const loads: Array<readonly [string, number]> = [["2024-01-01", 60], ["2024-01-01", 40], ["2024-01-03", 50]]
    const all = fitnessAndFatigue(loads, "2024-01-01", "2024-01-05")
    const late = fitnessAndFatigue(loads, "2024-01-04", "2024-01-05")
    expect(all[0]!.load).toBe(100)
    expect(late).toEqual(all.slice(3))
    // a steady 50 a day for a year: fitness and fatigue both near 50, form near 0
    const steady: Array<readonly [string, number]> = []
    for (let d = 0; d < 365; d++) steady.push([new Date(Date.UTC(2023, 0, 1 + d)).toISOString().slice(0, 10), 50])
    const last = fitnessAndFatigue(steady, "2023-12-31", "2023-12-31")[0]!
    expect(last.fitness).toBeCloseTo(50 * (1 - Math.exp(-365 / 42)), 1)
    expect(last.fatigue).toBeCloseTo(50, 1)
  })
})

describe("estimated FTP", () => {
  // bests of an athlete with CP 250 W and W' 14.4 kJ: P(t) = 14400 / t + 250
  const model = [180, 300, 480, 600, 720, 1200].map((t) => [t, 14_400 / t + 250] as const)

  it("fits the two-parameter critical-power model to the 3 to 20 minute bests", () => {
    const fit = criticalPowerFit([[5, 900], [60, 500], ...model, [3600, 230]])!
    expect(fit.cp).toBeCloseTo(250, 6)
    expect(fit.wPrime).toBeCloseTo(14_400, 3)
    expect(estimatedFtp(model)).toEqual({ watts: 250, method: "criticalPower" })
  })

  it("falls back on 95 % of the best 20 minutes, and gives none without it", () => {
    expect(estimatedFtp([[60, 400], [1200, 280]])).toEqual({ watts: 266, method: "twentyMinutes" })
    // three bests that do not fit the model (more power over 20 min than over 3)
    expect(estimatedFtp([[180, 200], [600, 250], [1200, 300]])).toEqual({ watts: 285, method: "twentyMinutes" })
    expect(estimatedFtp([[60, 400], [600, 300]])).toBeNull()
  })
})

describe("grade-adjusted distance (Minetti 2002)", () => {
  it("is the distance itself on the flat", () => {
    const distance = Array.from({ length: 1001 }, (_, i) => i * 5)
    expect(gradeAdjustedDistance(distance, distance.map(() => 100))).toBeCloseTo(5000, 9)
  })

  it("on a steady 10 % climb, C(0.1) / C(0) times the distance, C from Minetti's polynomial", () => {
    const i = 0.1
    const cost = 155.4 * i ** 5 - 30.4 * i ** 4 - 43.3 * i ** 3 + 46.3 * i ** 2 + 19.5 * i + 3.6
    expect(costOfRunning(0)).toBe(3.6)
    expect(costOfRunning(i)).toBeCloseTo(cost, 12)
    const distance = Array.from({ length: 1801 }, (_, k) => k * 3)
    const altitude = distance.map((d) => 200 + d * i)
    expect(gradeAdjustedDistance(distance, altitude)).toBeCloseTo(5400 * cost / 3.6, 6)
    // downhill at −10 % costs less than the flat
    expect(gradeAdjustedDistance(distance, distance.map((d) => 800 - d * i))!).toBeLessThan(5400)
  })
})
