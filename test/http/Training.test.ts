import * as HttpBody from "@effect/platform/HttpBody"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  ActivityAnalysis, earliestTrainingLoadFrom, PowerCurveAnswer, ThresholdsList, TRAINING_LOAD_MAX_DAYS, TrainingLoadAnswer
} from "../../src/schema/TrainingModels.ts"
import { dropFile, waitFor, waitForRow } from "../support/ImportHarness.ts"
import { send, snapshot, TestDaemon } from "../support/TestDaemon.ts"
import { type Blocks, blocksFit } from "../support/trainingFits.ts"
import { expectError } from "./helpers.ts"

/**
 * The training analysis through the API: dated thresholds, an activity's analysis, the
 * training load and the power curve, over FIT files of known blocks of power and heart rate
 * imported through the watch folder, every figure worked out by hand from the blocks.
 */

const importBlocks = (name: string, blocks: Blocks) =>
  Effect.gen(function*() {
    const daemon = yield* TestDaemon
    dropFile(daemon.watchDir, name, blocksFit(blocks))
    const row = yield* waitForRow(name)
    expect(row.status, row.error_message ?? "").toBe("success")
    return row.activity_id!
  })

const analysisOf = (id: string) =>
  Effect.map(send("GET", `/api/v1/activities/${id}/analysis`), (answer) => {
    expect(answer.status).toBe(200)
    // the answer is the declared schema's JSON
    Schema.decodeUnknownSync(ActivityAnalysis)(answer.json)
    return answer.json
  })

const trainingLoad = (query: string) =>
  Effect.map(send("GET", `/api/v1/stats/training-load${query}`), (answer) => {
    expect(answer.status, answer.text).toBe(200)
    return Schema.decodeUnknownSync(TrainingLoadAnswer)(answer.json)
  })

const daemonLog = Effect.map(TestDaemon, (daemon) =>
  fs.existsSync(daemon.logsDir)
    ? fs.readdirSync(daemon.logsDir).filter((n) => n.startsWith("daemon-")).flatMap((n) =>
      fs.readFileSync(path.join(daemon.logsDir, n), "utf8").trim().split("\n").filter((l) => l !== "").map((l) => (JSON.parse(l) as { message: string }).message)
    )
    : [])

/** NP of two constant blocks worked out by hand (see TrainingBasis.test.ts). */
const npOfTwoBlocks = (secondsA: number, a: number, secondsB: number, b: number) => {
  let sum = (secondsA - 29) * a ** 4
  for (let k = 1; k <= 29; k++) sum += (a + (k * (b - a)) / 30) ** 4
  sum += (secondsB - 29) * b ** 4
  return (sum / (secondsA + secondsB - 29)) ** 0.25
}

const trimpOf = (minutes: number, hr: number, rest: number, max: number) => {
  const x = (hr - rest) / (max - rest)
  return minutes * x * 0.64 * Math.exp(1.92 * x)
}

const round = (x: number, decimals: number) => Math.round(x * 10 ** decimals) / 10 ** decimals

const THRESHOLDS = { on: "2024-01-01", cyclingFtp: 250, runningFtp: null, maxHeartRate: 180, restingHeartRate: 50, lactateThresholdHeartRate: 167 }

/** `seconds` of a heart rate alternating between `a` and `b` every second (a rate held for minutes is an exporter's fill, not a reading). */
const alternating = (seconds: number, a: number, b: number): Array<readonly [number, number]> =>
  Array.from({ length: seconds }, (_, i) => [1, i % 2 === 0 ? a : b] as const)

/** 30 min at 100 W then 30 min at 300 W; 30 min at 119-121 bpm then 30 min at 162-163 bpm (the device's average: 141). */
const RIDE: Blocks = {
  start: new Date("2024-05-01T08:00:00Z"),
  power: [[1800, 100], [1800, 300]],
  heartRate: [...alternating(1800, 119, 121), ...alternating(1800, 162, 163)],
  avgHeartRate: 141
}
const NP = npOfTwoBlocks(1800, 100, 1800, 300)
const TSS = (3600 * NP * (NP / 250)) / (250 * 3600) * 100

describe("training analysis", () => {
  layer(TestDaemon.layer(), { excludeTestServices: true })("thresholds and one ride", (it) => {
    it.effect("thresholds: POST answers the set, the same date replaces it, GET lists newest first, DELETE answers 204", () =>
      Effect.gen(function*() {
        expect((yield* send("GET", "/api/v1/athlete/thresholds")).json).toEqual({ thresholds: [] })
        const created = yield* send("POST", "/api/v1/athlete/thresholds", { json: { on: "2023-06-01", cyclingFtp: 230 } })
        expect(created.status).toBe(200)
        expect(created.json).toEqual({ on: "2023-06-01", cyclingFtp: 230, runningFtp: null, maxHeartRate: null, restingHeartRate: null, lactateThresholdHeartRate: null })
        yield* send("POST", "/api/v1/athlete/thresholds", { json: { on: "2023-09-01", cyclingFtp: 240, maxHeartRate: 185 } })
        const replaced = yield* send("POST", "/api/v1/athlete/thresholds", { json: { ...THRESHOLDS, on: "2023-09-01" } })
        expect(replaced.json).toEqual({ ...THRESHOLDS, on: "2023-09-01" })
        const list = yield* send("GET", "/api/v1/athlete/thresholds")
        Schema.decodeUnknownSync(ThresholdsList)(list.json)
        expect(list.json.thresholds.map((t: { on: string }) => t.on)).toEqual(["2023-09-01", "2023-06-01"])
        const gone = yield* send("DELETE", "/api/v1/athlete/thresholds/2023-06-01")
        expect(gone.status).toBe(204)
        expect(gone.text).toBe("")
        expect((yield* send("DELETE", "/api/v1/athlete/thresholds/2023-06-01")).status).toBe(204)
        yield* send("DELETE", "/api/v1/athlete/thresholds/2023-09-01")
        expect((yield* send("GET", "/api/v1/athlete/thresholds")).json).toEqual({ thresholds: [] })
      }))

    const refused: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
      ["an FTP beyond a human's", { on: "2024-01-01", cyclingFtp: 5000 }, '"cyclingFtp" must be a whole number of watts from 20 to 1000, or null.'],
      ["a fractional FTP", { on: "2024-01-01", runningFtp: 250.5 }, '"runningFtp" must be a whole number of watts from 20 to 1000, or null.'],
      ["a heart rate as a string", { on: "2024-01-01", maxHeartRate: "190" }, '"maxHeartRate" must be a whole number of beats per minute from 100 to 250, or null.'],
      ["a resting heart rate of 10", { on: "2024-01-01", restingHeartRate: 10 }, '"restingHeartRate" must be a whole number of beats per minute from 20 to 150, or null.'],
      ["a threshold above the maximum", { on: "2024-01-01", maxHeartRate: 170, lactateThresholdHeartRate: 175 }, '"lactateThresholdHeartRate" (175) must be below "maxHeartRate" (170).'],
      ["a threshold under the resting rate", { on: "2024-01-01", restingHeartRate: 90, lactateThresholdHeartRate: 85 }, '"lactateThresholdHeartRate" (85) must be above "restingHeartRate" (90).'],
      ["an impossible date", { on: "2023-02-29", cyclingFtp: 250 }, '"on" must be a date in YYYY-MM-DD format.'],
      ["no date", { cyclingFtp: 250 }, '"on" is required.'],
      ["an unknown field", { on: "2024-01-01", ftp: 250 }, "Unknown field(s): ftp."]
    ]
    for (const [what, body, message] of refused) {
      it.effect(`POST with ${what}: 400 naming the field, nothing stored`, () =>
        Effect.gen(function*() {
          const before = yield* snapshot
          const answer = yield* send("POST", "/api/v1/athlete/thresholds", { json: body })
          expectError(answer, 400, "bad_request")
          expect(answer.json.message).toContain(message)
          expect((yield* send("GET", "/api/v1/athlete/thresholds")).json.thresholds).toEqual([])
          expect(yield* snapshot).toEqual(before)
        }))
    }

    it.effect("POST as text/plain: 415; DELETE of an impossible date: 400", () =>
      Effect.gen(function*() {
        expectError(yield* send("POST", "/api/v1/athlete/thresholds", { body: HttpBody.text(JSON.stringify(THRESHOLDS), "text/plain") }), 415, "unsupported_media_type")
        expectError(yield* send("DELETE", "/api/v1/athlete/thresholds/2023-02-30"), 400, "bad_request")
      }))

    it.effect("a ride of known blocks before any threshold: its power figures, and null for what needs a threshold", () =>
      Effect.gen(function*() {
        const id = yield* importBlocks("blocks.fit", RIDE)
        const a = yield* analysisOf(id)
        expect(a.sportType).toBe("Ride")
        expect(a.thresholds).toBeNull()
        expect(a.ftp).toBeNull()
        expect(a.normalizedPower).toBe(Math.round(NP))
        expect(a.workInKilojoules).toBe(720)
        for (const key of ["intensityFactor", "trainingStressScore", "trimp", "heartRateStressScore", "trainingLoad", "trainingLoadSource", "powerZones", "heartRateZones"]) {
          expect(a[key], key).toBeNull()
        }
        expect(a.powerCurve).toEqual([
          ...[1, 5, 10, 15, 30, 60, 120, 180, 300, 480, 600, 720, 1200, 1800].map((d) => ({ durationInSeconds: d, watts: 300 })),
          { durationInSeconds: 2700, watts: Math.round((1800 * 300 + 900 * 100) / 2700) },
          { durationInSeconds: 3600, watts: 200 }
        ])
        expect(a.gradeAdjustedPaceInSecondsPerKm).toBeNull()
        expect(a.paceInSecondsPer100m).toBeNull()
        expect((yield* trainingLoad("?filters[from]=2024-05-01&filters[to]=2024-05-01")).days).toEqual([{ on: "2024-05-01", load: 0, fitness: 0, fatigue: 0, form: 0 }])
      }))

    it.effect("with thresholds: IF, TSS, zones, TRIMP and hrTSS as worked out by hand", () =>
      Effect.gen(function*() {
        const id = (yield* send("GET", "/api/v1/activities?pagination[size]=1")).json.activities[0].id
        expect((yield* send("POST", "/api/v1/athlete/thresholds", { json: THRESHOLDS })).status).toBe(200)
        const a = yield* analysisOf(id)
        expect(a.thresholds).toEqual(THRESHOLDS)
        expect(a.ftp).toBe(250)
        expect(a.intensityFactor).toBe(round(NP / 250, 3))
        expect(a.trainingStressScore).toBe(round(TSS, 1))
        expect(a.trainingLoad).toBe(round(TSS, 1))
        expect(a.trainingLoadSource).toBe("power")
        // 100 W is under 55 % of 250 (137.5): zone 1; 300 W is on the 120 % bound: zone 6
        expect(a.powerZones.map((z: { timeInSeconds: number }) => z.timeInSeconds)).toEqual([1800, 0, 0, 0, 0, 1800, 0])
        expect(a.powerZones[0]).toEqual({ zone: 1, name: "Active recovery", minWatts: 0, maxWatts: 137.5, timeInSeconds: 1800 })
        expect(a.powerZones[6]).toEqual({ zone: 7, name: "Neuromuscular", minWatts: 375, maxWatts: null, timeInSeconds: 0 })
        // 119-121 bpm: 60 to 70 % of 180 (108 to 126); 162 bpm on the 90 % bound and 163: zone 5
        expect(a.heartRateZones.map((z: { timeInSeconds: number }) => z.timeInSeconds)).toEqual([0, 1800, 0, 0, 1800])
        expect(a.heartRateZones[4]).toEqual({ zone: 5, name: "Maximum", minHeartRate: 162, maxHeartRate: null, timeInSeconds: 1800 })
        const trimp = trimpOf(60, 141, 50, 180)
        expect(a.trimp).toBe(round(trimp, 1))
        expect(a.heartRateStressScore).toBe(round((100 * trimp) / trimpOf(60, 167, 50, 180), 1))
      }))

    it.effect("changing the FTP recomputes the training load in the background: the API shows it within seconds, the daemon log says how many", () =>
      Effect.gen(function*() {
        yield* waitFor("the ride's load under FTP 250", Effect.map(trainingLoad("?filters[from]=2024-05-01&filters[to]=2024-05-01"), (l) =>
          l.days[0]!.load === round(TSS, 1) ? true : undefined))
        const answer = yield* send("POST", "/api/v1/athlete/thresholds", { json: { ...THRESHOLDS, cyclingFtp: 200 } })
        expect(answer.status).toBe(200)
        const tss200 = (3600 * NP * (NP / 200)) / (200 * 3600) * 100
        const days = yield* waitFor("the ride's load under FTP 200", Effect.map(trainingLoad("?filters[from]=2024-05-01&filters[to]=2024-05-03"), (l) =>
          l.days[0]!.load === round(tss200, 1) ? l.days : undefined), { timeout: "60 seconds" })
        const k42 = 1 - Math.exp(-1 / 42)
        const k7 = 1 - Math.exp(-1 / 7)
        expect(days.map((d) => d.on)).toEqual(["2024-05-01", "2024-05-02", "2024-05-03"])
        expect(days[2]!.fitness).toBe(round(tss200 * k42 * Math.exp(-2 / 42), 1))
        expect(days[2]!.fatigue).toBe(round(tss200 * k7 * Math.exp(-2 / 7), 1))
        const logged = yield* waitFor("the recompute in the daemon log", Effect.map(daemonLog, (lines) =>
          lines.find((l) => l === "training load recomputed for 1 activity" || l.startsWith("training load recomputed for 1 activity ("))))
        expect(logged).toMatch(/^training load recomputed for 1 activity \(/)
        expect(yield* daemonLog).toContain("thresholds from 2024-01-01 saved: the training load of 1 activity is being recomputed")
      }))

    it.effect("a set dated after the ride leaves it alone; deleting the set in force falls back on none", () =>
      Effect.gen(function*() {
        const id = (yield* send("GET", "/api/v1/activities?pagination[size]=1")).json.activities[0].id
        yield* send("POST", "/api/v1/athlete/thresholds", { json: { on: "2024-06-01", cyclingFtp: 400 } })
        expect((yield* analysisOf(id)).ftp).toBe(200)
        expect((yield* send("DELETE", "/api/v1/athlete/thresholds/2024-01-01")).status).toBe(204)
        const a = yield* analysisOf(id)
        expect(a.thresholds).toBeNull()
        expect(a.trainingLoad).toBeNull()
        yield* waitFor("the ride without a load", Effect.map(trainingLoad("?filters[from]=2024-05-01&filters[to]=2024-05-01"), (l) =>
          l.days[0]!.load === 0 ? true : undefined), { timeout: "60 seconds" })
        yield* send("POST", "/api/v1/athlete/thresholds", { json: THRESHOLDS })
      }))

    it.effect("the ride made a run: its load follows its sport (no running FTP: hrTSS from TRIMP)", () =>
      Effect.gen(function*() {
        const id = (yield* send("GET", "/api/v1/activities?pagination[size]=1")).json.activities[0].id
        expect((yield* send("PATCH", `/api/v1/activities/${id}`, { json: { sportType: "Run" } })).status).toBe(200)
        const a = yield* analysisOf(id)
        const hrTss = round((100 * trimpOf(60, 141, 50, 180)) / trimpOf(60, 167, 50, 180), 1)
        expect(a.ftp).toBeNull()
        expect(a.intensityFactor).toBeNull()
        expect(a.trainingLoadSource).toBe("heartRate")
        expect(a.trainingLoad).toBe(hrTss)
        yield* waitFor("the run's load", Effect.map(trainingLoad("?filters[from]=2024-05-01&filters[to]=2024-05-01"), (l) =>
          l.days[0]!.load === hrTss ? true : undefined), { timeout: "60 seconds" })
        yield* send("PATCH", `/api/v1/activities/${id}`, { json: { sportType: "Ride" } })
        yield* waitFor("the ride's load again", Effect.map(trainingLoad("?filters[from]=2024-05-01&filters[to]=2024-05-01"), (l) =>
          l.days[0]!.load === round(TSS, 1) ? true : undefined), { timeout: "60 seconds" })
      }))

    it.effect("training load: one row per day from the first activity (default) to today, or over the range asked; a reversed or endless range is refused", () =>
      Effect.gen(function*() {
        const all = yield* trainingLoad("")
        expect(all.days[0]!.on).toBe("2024-05-01")
        expect(all.days.at(-1)!.on).toBe(new Date().toISOString().slice(0, 10))
        const oneYear = yield* trainingLoad("?filters[from]=2024-01-01&filters[to]=2024-12-31")
        expect(oneYear.days).toHaveLength(366)
        expect(oneYear.days.filter((d) => d.load > 0).map((d) => d.on)).toEqual(["2024-05-01"])
        // the averages run from the first activity, not from the range's start
        const later = yield* trainingLoad("?filters[from]=2024-05-10&filters[to]=2024-05-10")
        expect(later.days).toEqual([oneYear.days.find((d) => d.on === "2024-05-10")])
        expect(later.days[0]!.fitness).toBeGreaterThan(0)
        expectError(yield* send("GET", "/api/v1/stats/training-load?filters[from]=2024-02-01&filters[to]=2024-01-01"), 400, "bad_request")
        expectError(yield* send("GET", "/api/v1/stats/training-load?filters[from]=1900-01-01&filters[to]=2200-01-01"), 400, "bad_request")
        expectError(yield* send("GET", "/api/v1/stats/training-load?filters[sportType]=Ride"), 400, "bad_request")
      }))

    it.effect("training load: a range is at most ten years (3,653 days): a longer one is refused with a 400 that names the fields, says the bound and where to start; the default starts ten years back at most", () =>
      Effect.gen(function*() {
        // ten calendar years with three leap days: the longest answered
        expect((yield* trainingLoad("?filters[from]=2016-01-01&filters[to]=2025-12-31")).days).toHaveLength(TRAINING_LOAD_MAX_DAYS)
        const tooLong = yield* send("GET", "/api/v1/stats/training-load?filters[from]=2015-12-31&filters[to]=2025-12-31")
        expectError(tooLong, 400, "bad_request")
        expect(tooLong.json.message).toBe(
          `"filters[from]" to "filters[to]" spans at most 3,653 days (ten years): from 2015-12-31 to 2025-12-31 is 3,654; set "filters[from]" to 2016-01-01 or later.`
        )
        // two hundred years back, to today (its default): refused the same way
        const centuries = yield* send("GET", "/api/v1/stats/training-load?filters[from]=1826-01-01")
        expectError(centuries, 400, "bad_request")
        expect(centuries.json.message).toMatch(/^"filters\[from\]" to "filters\[to\]" spans at most 3,653 days \(ten years\): from 1826-01-01 to \d{4}-\d{2}-\d{2} is [\d,]+; set "filters\[from\]" to \d{4}-\d{2}-\d{2} or later\.$/)
        // no "filters[from]": the first activity's day, or ten years before the last day asked when that is later
        const lastTen = yield* trainingLoad("?filters[to]=2040-06-30")
        expect(lastTen.days).toHaveLength(TRAINING_LOAD_MAX_DAYS)
        expect(lastTen.days[0]!.on).toBe(earliestTrainingLoadFrom("2040-06-30"))
        expect(lastTen.days[0]!.on).toBe("2030-07-01")
      }))

    it.effect("an unknown activity's analysis: 404 in the error shape", () =>
      Effect.gen(function*() {
        expectError(yield* send("GET", "/api/v1/activities/activity-nope/analysis"), 404, "not_found")
      }))

    it.effect("a steady run up a 10 % slope: grade-adjusted pace from Minetti's cost of running", () =>
      Effect.gen(function*() {
        const id = yield* importBlocks("climb.fit", {
          start: new Date("2024-05-02T07:00:00Z"),
          sport: "running",
          heartRate: [[1801, 150]],
          speed: 3,
          grade: 0.1
        })
        const activity = (yield* send("GET", `/api/v1/activities/${id}`)).json
        expect(activity.sportType).toBe("Run")
        const a = yield* analysisOf(id)
        const cost = (i: number) => 155.4 * i ** 5 - 30.4 * i ** 4 - 43.3 * i ** 3 + 46.3 * i ** 2 + 19.5 * i + 3.6
        const pace = activity.movingTimeInSeconds / (activity.distanceInMeter / 1000)
        expect(a.gradeAdjustedPaceInSecondsPerKm).toBeCloseTo(pace / (cost(0.1) / 3.6), 0)
        expect(a.powerCurve).toBeNull()
        expect(a.normalizedPower).toBeNull()
        expect(a.paceInSecondsPer100m).toBeNull()
      }))

    it.effect("a pool swim: its pace per 100 m", () =>
      Effect.gen(function*() {
        const id = yield* importBlocks("swim.fit", { start: new Date("2024-05-03T07:00:00Z"), sport: "swimming", heartRate: [[1200, 130]], speed: 1.25 })
        const activity = (yield* send("GET", `/api/v1/activities/${id}`)).json
        expect(activity.sportType).toBe("Swim")
        const a = yield* analysisOf(id)
        expect(a.paceInSecondsPer100m).toBe(round(activity.movingTimeInSeconds / (activity.distanceInMeter / 100), 1))
        expect(a.paceInSecondsPer100m).toBeCloseTo(80, 0)
        expect(a.gradeAdjustedPaceInSecondsPerKm).toBeNull()
      }))
  })

  layer(TestDaemon.layer(), { excludeTestServices: true })("the power curve of the history", (it) => {
    // bests of an athlete of critical power 250 W and W' 14.4 kJ: P(t) = 14400 / t + 250, each in a ride of its own
    const efforts: ReadonlyArray<readonly [number, number]> = [[180, 330], [300, 298], [480, 280], [600, 274], [720, 270], [1200, 262]]

    it.effect("names the activity of each best, and estimates the FTP by a critical-power fit", () =>
      Effect.gen(function*() {
        const ids = new Map<number, string>()
        for (const [i, [seconds, watts]] of efforts.entries()) {
          ids.set(seconds, yield* importBlocks(`effort-${seconds}.fit`, {
            start: new Date(Date.UTC(2024, 3, 1 + i, 8)),
            power: [[300, 150], [seconds, watts], [300, 150]]
          }))
        }
        const answer = yield* send("GET", "/api/v1/stats/power-curve")
        expect(answer.status).toBe(200)
        const curve = Schema.decodeUnknownSync(PowerCurveAnswer)(answer.json)
        const at = new Map(curve.powerCurve.map((p) => [p.durationInSeconds, p]))
        for (const [i, [seconds, watts]] of efforts.entries()) {
          expect(at.get(seconds), `${seconds} s`).toEqual({ durationInSeconds: seconds, watts, activityId: ids.get(seconds), on: `2024-04-0${i + 1}` })
        }
        // the 180 s effort is also the best second
        expect(at.get(1)).toMatchObject({ watts: 330, activityId: ids.get(180) })
        expect(curve.estimatedFtp).toBe(250)
        expect(curve.estimatedFtpMethod).toBe("criticalPower")
      }))

    it.effect("over the list's filters: a date range, a sport; 95 % of the best 20 minutes without enough to fit", () =>
      Effect.gen(function*() {
        // the first ride alone (780 s): past its 180 s effort every second adds 150 J, the slope of its work
        const early = Schema.decodeUnknownSync(PowerCurveAnswer)((yield* send("GET", "/api/v1/stats/power-curve?filters[to]=2024-04-01")).json)
        expect(early.powerCurve.at(-1)!.durationInSeconds).toBe(720)
        expect(early.powerCurve.find((p) => p.durationInSeconds === 300)!.watts).toBe(Math.round((180 * 330 + 120 * 150) / 300))
        expect(early.estimatedFtp).toBe(150)
        expect(early.estimatedFtpMethod).toBe("criticalPower")
        // the 20-minute effort alone: every best from 3 to 20 minutes is 262 W, no W' to fit
        const late = Schema.decodeUnknownSync(PowerCurveAnswer)((yield* send("GET", "/api/v1/stats/power-curve?filters[from]=2024-04-06")).json)
        expect(late.powerCurve.find((p) => p.durationInSeconds === 1200)!.watts).toBe(262)
        expect(late.estimatedFtp).toBe(Math.round(0.95 * 262))
        expect(late.estimatedFtpMethod).toBe("twentyMinutes")
        expect((yield* send("GET", "/api/v1/stats/power-curve?filters[sportType]=Run")).json).toEqual({ powerCurve: [], estimatedFtp: null, estimatedFtpMethod: null })
        // a range and sports together, as the Training page asks
        const lateRides = Schema.decodeUnknownSync(PowerCurveAnswer)((yield* send("GET", "/api/v1/stats/power-curve?filters[from]=2024-04-06&filters[sportType]=Ride,GravelRide")).json)
        expect(lateRides).toEqual(late)
        expect((yield* send("GET", "/api/v1/stats/power-curve?filters[from]=2024-04-06&filters[sportType]=Run,TrailRun")).json.powerCurve).toEqual([])
        expectError(yield* send("GET", "/api/v1/stats/power-curve?filters[sportType]=Bike"), 400, "bad_request")
        expectError(yield* send("GET", "/api/v1/stats/power-curve?filters[period]=week"), 400, "bad_request")
      }))

    it.effect("over some sports of the whole history; an activity whose sport changes takes its bests along", () =>
      Effect.gen(function*() {
        const rides = Schema.decodeUnknownSync(PowerCurveAnswer)((yield* send("GET", "/api/v1/stats/power-curve?filters[sportType]=Ride")).json)
        expect(rides.powerCurve.find((p) => p.durationInSeconds === 180)).toMatchObject({ watts: 330 })
        const id = rides.powerCurve.find((p) => p.durationInSeconds === 180)!.activityId
        expect((yield* send("PATCH", `/api/v1/activities/${id}`, { json: { sportType: "VirtualRide" } })).status).toBe(200)
        const after = Schema.decodeUnknownSync(PowerCurveAnswer)((yield* send("GET", "/api/v1/stats/power-curve?filters[sportType]=Ride")).json)
        expect(after.powerCurve.find((p) => p.durationInSeconds === 180)).toMatchObject({ watts: 298 })
        const both = Schema.decodeUnknownSync(PowerCurveAnswer)((yield* send("GET", "/api/v1/stats/power-curve?filters[sportType]=Ride,VirtualRide")).json)
        expect(both.powerCurve.find((p) => p.durationInSeconds === 180)).toMatchObject({ watts: 330, activityId: id })
        const virtual = Schema.decodeUnknownSync(PowerCurveAnswer)((yield* send("GET", "/api/v1/stats/power-curve?filters[sportType]=VirtualRide")).json)
        expect(virtual.powerCurve.map((p) => p.activityId)).toEqual(virtual.powerCurve.map(() => id))
        yield* send("PATCH", `/api/v1/activities/${id}`, { json: { sportType: "Ride" } })
      }))

    it.effect("a deleted activity leaves the curve", () =>
      Effect.gen(function*() {
        const before = (yield* send("GET", "/api/v1/stats/power-curve")).json
        const best = before.powerCurve.find((p: { durationInSeconds: number }) => p.durationInSeconds === 180)
        expect((yield* send("DELETE", `/api/v1/activities/${best.activityId}`)).status).toBe(204)
        const after = (yield* send("GET", "/api/v1/stats/power-curve")).json
        expect(after.powerCurve.find((p: { durationInSeconds: number }) => p.durationInSeconds === 180).watts).toBe(298)
      }))
  })
})
