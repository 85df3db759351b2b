import { describe, expect, it } from "@effect/vitest"
import { bestMeans, normalizedPower, secondlySeries, trainingBasisOf } from "../../../src/services/training/TrainingBasis.ts"

/** Seconds 0 … n−1 and the value of each block for its length: `[[seconds, value], …]`. */
const blocks = (parts: ReadonlyArray<readonly [number, number]>) => {
  const time: Array<number> = []
  const values: Array<number> = []
  for (const [seconds, value] of parts) for (let i = 0; i < seconds; i++) {
    time.push(time.length)
    values.push(value)
  }
  return { time, values }
}

/**
 * NP of two constant blocks worked out by hand: the 30 s windows wholly in the first block
 * (a − 29 of them), the 29 windows holding k seconds of the second (mean a + k·(b − a)/30), the
 * windows wholly in the second (b seconds: every window ending there, but the first 29 ending
 * there are the straddling ones).
 */
const npOfTwoBlocks = (secondsA: number, a: number, secondsB: number, b: number) => {
  let sum = (secondsA - 29) * a ** 4
  for (let k = 1; k <= 29; k++) sum += (a + (k * (b - a)) / 30) ** 4
  sum += (secondsB - 29) * b ** 4
  return (sum / (secondsA + secondsB - 29)) ** 0.25
}

describe("the training basis of known samples", () => {
  it("normalized power of one constant block is that power", () => {
    const { time, values } = blocks([[3600, 200]])
    expect(normalizedPower(secondlySeries(time, values))).toBeCloseTo(200, 9)
  })

  it("normalized power of 30 min at 100 W then 30 min at 300 W, as worked out by hand", () => {
    const { time, values } = blocks([[1800, 100], [1800, 300]])
    const np = normalizedPower(secondlySeries(time, values))!
    expect(np).toBeCloseTo(npOfTwoBlocks(1800, 100, 1800, 300), 9)
    // well above the 200 W average (the fourth power weighs the hard half), a little under the
    // blocks' own fourth-power mean (the rolling mean softens the step between them)
    expect(np).toBeGreaterThan(252)
    expect(np).toBeLessThan(((100 ** 4 + 300 ** 4) / 2) ** 0.25)
  })

  it("has no normalized power under 30 seconds of power", () => {
    const { time, values } = blocks([[29, 300]])
    expect(normalizedPower(secondlySeries(time, values))).toBeNull()
  })

  it("holds a reading until the next one (smart recording) and leaves a pause out", () => {
    // readings every 5 s at 200 W, a stop of 10 minutes without records, then 60 s at 100 W
    const time = [0, 5, 10, 15, 20, 620, 680]
    const values = [200, 200, 200, 200, 200, 100, 100]
    const series = secondlySeries(time, values)
    // 21 seconds up to 20 s, then the 61 seconds from 620 to 680 s
    expect(series.length).toBe(21 + 61)
    expect([...series.slice(0, 21)].every((v) => v === 200)).toBe(true)
    expect([...series.slice(21)].every((v) => v === 100)).toBe(true)
  })

  it("reads several samples a second on the 1 s grid", () => {
    const time = [0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2]
    const values = [1, 1, 1, 1, 2, 2, 2, 2, 3]
    expect([...secondlySeries(time, values)]).toEqual([1, 2, 3])
  })

  it("power curve: the best mean over each standard duration that fits", () => {
    const { time, values } = blocks([[1800, 100], [1800, 300]])
    const curve = new Map(bestMeans(secondlySeries(time, values), [1, 5, 60, 1200, 1800, 2700, 3600, 5400]))
    expect(curve.get(1)).toBe(300)
    expect(curve.get(60)).toBe(300)
    expect(curve.get(1800)).toBe(300)
    // 1800 s at 300 W and 900 s at 100 W
    expect(curve.get(2700)).toBeCloseTo((1800 * 300 + 900 * 100) / 2700, 1)
    expect(curve.get(3600)).toBe(200)
    // longer than the ride: not in the curve
    expect(curve.has(5400)).toBe(false)
  })

  it("counts the seconds at each watt and each heart rate, and the work", () => {
    const power = blocks([[600, 150], [300, 250]])
    const heart = blocks([[600, 120], [300, 165]])
    const basis = trainingBasisOf({ time: power.time, watts: power.values, heartrate: heart.values })
    expect(basis.power!.seconds).toBe(900)
    expect(basis.power!.work).toBe(600 * 150 + 300 * 250)
    expect(basis.power!.histogram[150]).toBe(600)
    expect(basis.power!.histogram[250]).toBe(300)
    expect(basis.power!.histogram.reduce((a, b) => a + b, 0)).toBe(900)
    expect(basis.heartRate!.histogram[120]).toBe(600)
    expect(basis.heartRate!.histogram[165]).toBe(300)
    // no distance and altitude: no grade-adjusted distance
    expect(basis.gradeAdjustedDistance).toBeNull()
  })

  it("has no power part for a sensor that read only zeros, nor for an activity without one", () => {
    const { time } = blocks([[600, 0]])
    expect(trainingBasisOf({ time, watts: time.map(() => 0) }).power).toBeNull()
    expect(trainingBasisOf({ time }).power).toBeNull()
    expect(trainingBasisOf({ time }).heartRate).toBeNull()
  })
})
