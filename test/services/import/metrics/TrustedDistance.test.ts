import { describe, expect, it } from "@effect/vitest"
import CheapRuler from "cheap-ruler"
import { computeActivity } from "../../../../src/services/import/ActivityMetrics.ts"
import { parseActivityFile } from "../../../../src/services/import/parsers/parseActivityFile.ts"
import { sportProfile } from "../../../../src/services/import/metrics/SportProfile.ts"
import { trustedDistance } from "../../../../src/services/import/metrics/TrustedDistance.ts"
import { CORPUS_DIR, readCorpusFile } from "../../../support/corpus.ts"
import { context, seeded, syntheticActivity } from "./synthetic.ts"

const effort = (a: ReturnType<typeof computeActivity>, metres: number) =>
  a.bestEfforts.find((e) => Math.abs(e.distanceInMeter - metres) < 1)?.elapsedTimeInSeconds

/**
 * A mountain run at 2.5 m/s (6:40/km) whose fix leaps `jump` metres sideways at sample `at` for
 * `seconds` seconds and comes back: what a receiver does under a cliff.
 */
const runWithJump = (jump: number, at = 900, seconds = 4) => {
  const run = syntheticActivity({ sportType: "Run", samples: 2400, speed: () => 2.5, origin: [46.37, 13.83], bearing: 0 })
  const lat = [...run.samples.lat]
  const lng = [...run.samples.lng]
  for (let i = at; i < at + seconds; i++) {
    const [x, y] = new CheapRuler(lat[i]!, "meters").destination([lng[i]!, lat[i]!], jump, 90)
    lng[i] = x
    lat[i] = y
  }
  return { ...run, samples: { ...run.samples, lat, lng } }
}

describe("best efforts from a distance GPS jumps cannot inflate", () => {
  it("a fix leaping 400 m away and back sets no 400 m, 1 km or mile record: the efforts are the runner's pace", () => {
    const clean = computeActivity(runWithJump(0), context)
    const jumped = computeActivity(runWithJump(400), context)
    // the jump adds 800 m to the track: read from it, 400 m would take a few seconds
    expect(jumped.distanceInMeter).toBeGreaterThan(clean.distanceInMeter + 700)
    for (const metres of [400, 1000, 1609.344]) {
      expect(effort(jumped, metres)).toBe(effort(clean, metres))
      expect(effort(jumped, metres)).toBeGreaterThanOrEqual(Math.floor(metres / 2.5) - 1)
    }
  })

  it("a drift of fixes faster than any runner (13 m/s for 20 s) is bridged, the run before and after counted", () => {
    const speed = (i: number) => (i >= 1000 && i < 1020 ? 13 : 3)
    const run = computeActivity(syntheticActivity({ sportType: "Run", samples: 2000, speed }), context)
    expect(effort(run, 400)).toBeGreaterThanOrEqual(Math.floor(400 / 3) - 1)
    expect(effort(run, 1000)).toBeGreaterThanOrEqual(Math.floor(1000 / 3) - 1)
  })

  it("keeps what an athlete does: a sprint finish from 3 to 7 m/s, a noisy track, a ride at 15 m/s", () => {
    const rnd = seeded(7)
    const sprint = (i: number) => (i < 1500 ? 3 : Math.min(7, 3 + (i - 1500) * 0.5))
    const run = syntheticActivity({ sportType: "Run", samples: 1600, speed: sprint, withPositions: false, withDeviceDistance: true })
    const { distance, timeS } = { distance: Float64Array.from(run.samples.distance as Array<number>), timeS: Float64Array.from(run.samples.time, (t) => (t - run.startTime) / 1000) }
    expect(trustedDistance(distance, timeS, new Uint8Array(distance.length), sportProfile("Run")).bridgedMeters).toBe(0)
    const noisy = syntheticActivity({ sportType: "Run", samples: 1200, speed: () => 3 + (rnd() - 0.5) * 2, withPositions: false, withDeviceDistance: true })
    const noisyD = Float64Array.from(noisy.samples.distance as Array<number>)
    const noisyT = Float64Array.from(noisy.samples.time, (t) => (t - noisy.startTime) / 1000)
    expect(trustedDistance(noisyD, noisyT, new Uint8Array(noisyD.length), sportProfile("Run")).bridgedMeters).toBe(0)
    const ride = computeActivity(syntheticActivity({ sportType: "Ride", samples: 3000, speed: () => 15 }), context)
    expect(effort(ride, 10_000)).toBe(Math.round(10_000 / 15))
  })

  it("an open-water swim's best pace is its fastest 100 m of the bridged distance, not a fix's noise (1:07 read from the speeds)", () => {
    // 0.76 m/s (2:12/100 m), every 300th fix thrown 40 m off as the watch surfaces
    const swim = syntheticActivity({ sportType: "OpenWaterSwim", samples: 1800, speed: () => 0.76, origin: [46.0, 14.5] })
    const lat = swim.samples.lat.map((v, i) => (i % 300 === 150 ? v! + 40 / 111_000 : v))
    const a = computeActivity({ ...swim, samples: { ...swim.samples, lat } }, context)
    const bestPer100m = 360 / a.maxSpeedInKmPerHour // seconds per 100 m
    expect(bestPer100m).toBeGreaterThan(120)
    expect(bestPer100m).toBeLessThan(135)
  })

  it.skipIf(!CORPUS_DIR)("real runs keep the efforts their pace gives; a real open-water swim's best pace is near its average", async () => {
    for (const file of ["fit/garmin-fr645m-run.fit", "fit/coros-pace2-run.fit", "fit/suunto9-trail-run.fit"]) {
      const [parsed] = await parseActivityFile(new Uint8Array(readCorpusFile(file)), "fit", file)
      const a = computeActivity(parsed!, context)
      const fiveK = effort(a, 5000)!
      // no 5 km faster than the whole run's moving pace allows by more than a third
      expect(fiveK).toBeGreaterThan((5000 / a.distanceInMeter) * a.movingTimeInSeconds * 0.66)
      expect(effort(a, 400)).toBeLessThan(effort(a, 1000)!)
    }
    // the swim leg of an Ironman as Strava exports it: 3.9 km at 1:34/100 m (sports-lib), 88 fixes
    const file = "gpx/strava-ironman-swim-leg.gpx"
    const [swim] = await parseActivityFile(new Uint8Array(readCorpusFile(file)), "gpx", file)
    const a = computeActivity(swim!, context)
    expect(a.sportType).toBe("OpenWaterSwim")
    const average = 360 / a.averageSpeedInKmPerHour
    expect(average).toBeGreaterThan(90)
    expect(average).toBeLessThan(98)
    expect(360 / a.maxSpeedInKmPerHour).toBeGreaterThan(average * 0.7)
  })
})
