import { makeDraft } from "../test/support/TestDaemon.ts"
import type { ActivityDraft } from "../src/schema/ActivityDraft.ts"

/** Activities generated for the benchmarks, with every sample a device records. */

export interface RideShape {
  readonly name?: string
  /** recorded seconds (one sample a second) */
  readonly seconds?: number
  /** UTC start, epoch ms */
  readonly startTime?: number
  /** the start on the athlete's clock */
  readonly startDateLocal?: string
  /** power and heart rate relative to the one-hour ride's (1 = 220 W on average) */
  readonly effort?: number
}

/**
 * A ride at 1 s: a loop of about 30 km an hour with hills, efforts and a few stops; position,
 * altitude, speed, heart rate, cadence and power. By default the one-hour ride of bench:dashboard.
 */
export const generatedRide = (shape: RideShape = {}): ActivityDraft => {
  const n = shape.seconds ?? 3600
  const effort = shape.effort ?? 1
  const time: Array<number> = []
  const latlng: Array<[number, number]> = []
  const distance: Array<number> = []
  const altitude: Array<number> = []
  const velocity: Array<number> = []
  const heartrate: Array<number> = []
  const cadence: Array<number> = []
  const watts: Array<number> = []
  let d = 0
  for (let i = 0; i < n; i++) {
    const stopped = i % 900 > 880
    const v = stopped ? 0 : 8 + 2 * Math.sin(i / 120) + Math.sin(i / 7) * 0.5
    d += v
    const angle = (2 * Math.PI * i) / 3600
    time.push(i)
    latlng.push([51.05 + 0.05 * Math.sin(angle) + 0.004 * Math.sin(angle * 9), 3.72 + 0.08 * Math.cos(angle)])
    distance.push(Math.round(d * 10) / 10)
    altitude.push(20 + 40 * Math.sin(angle * 3) ** 2)
    velocity.push(Math.round(v * 100) / 100)
    heartrate.push(Math.round(stopped ? 110 : (140 + 15 * Math.sin(i / 300)) * (0.85 + 0.15 * effort)))
    cadence.push(stopped ? 0 : Math.round(85 + 5 * Math.sin(i / 50)))
    watts.push(stopped ? 0 : Math.round((220 + 80 * Math.sin(i / 40) + 40 * Math.sin(i / 3)) * effort))
  }
  const startTime = shape.startTime ?? Date.parse("2025-06-01T07:00:00Z")
  return makeDraft({
    name: shape.name ?? "One-hour ride",
    startTime,
    startDateLocal: shape.startDateLocal ?? "2025-06-01T09:00:00",
    distanceInMeter: Math.round(d),
    movingTimeInSeconds: Math.round(n * (1 - 19 / 900)),
    elapsedTimeInSeconds: n,
    averageHeartRate: Math.round(heartrate.reduce((a, b) => a + b, 0) / n),
    averagePower: Math.round(watts.reduce((a, b) => a + b, 0) / n),
    streams: { time, latlng, distance, altitude, velocity_smooth: velocity, heartrate, cadence, watts }
  })
}
