import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ActivityRepo } from "../../../src/services/activities/ActivityRepo.ts"
import { encodeDraft } from "../../../src/services/activities/StreamsCodec.ts"
import { runCli } from "../../cli/runCli.ts"
import { daemonLayer, dropFile, scopedRoot, servicesLayer, waitFor, waitForRow } from "../../support/ImportHarness.ts"
import { makeDraft, send } from "../../support/TestDaemon.ts"
import { blocksFit } from "../../support/trainingFits.ts"

/**
 * The analysis kept current outside a request: activities stored before it existed are analysed
 * from their stored streams when the daemon starts, and `app:activities:reprocess` computes it
 * again with the activities, their load following the sport the athlete chose.
 */

const daemonLog = (storageDir: string) => {
  const logs = path.join(storageDir, "files", "logs")
  return fs.existsSync(logs)
    ? fs.readdirSync(logs).filter((n) => n.startsWith("daemon-")).flatMap((n) =>
      fs.readFileSync(path.join(logs, n), "utf8").trim().split("\n").filter((l) => l !== "").map((l) => (JSON.parse(l) as { message: string }).message)
    )
    : []
}

const seconds = (n: number) => Array.from({ length: n }, (_, i) => i)

describe("the training analysis kept current", () => {
  it.scopedLive("activities stored before the analysis existed are analysed from their stored streams at start; the daemon log says how many", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      // two rides stored as an older version left them: streams, no analysis
      yield* Effect.gen(function*() {
        const repo = yield* ActivityRepo
        const sql = yield* SqlClient.SqlClient
        const time = seconds(1200)
        yield* repo.insert("activity-old-1", encodeDraft(makeDraft({
          startTime: Date.parse("2024-02-01T08:00:00Z"), startDateLocal: "2024-02-01T09:00:00", movingTimeInSeconds: 1200,
          streams: { time, watts: time.map((s) => (s < 600 ? 150 : 260)) }
        })))
        yield* repo.insert("activity-old-2", encodeDraft(makeDraft({
          startTime: Date.parse("2024-02-02T08:00:00Z"), startDateLocal: "2024-02-02T09:00:00", movingTimeInSeconds: 1200,
          streams: { time, watts: time.map(() => 200) }
        })))
        yield* sql`DELETE FROM activity_training`
        yield* sql`DELETE FROM activity_power_curve`
        yield* sql`INSERT INTO athlete_thresholds ("on", cycling_ftp) VALUES ('2024-01-01', 200)`
      }).pipe(Effect.provide(servicesLayer(root)), Effect.scoped)

      yield* Effect.gen(function*() {
        const line = yield* waitFor("the analysis of the stored activities", Effect.sync(() =>
          daemonLog(root.storageDir).find((l) => l.startsWith("training analysis computed from the stored streams of 2 activities ("))))
        expect(line).toBeDefined()
        const curve = (yield* send("GET", "/api/v1/stats/power-curve")).json
        expect(curve.powerCurve.find((p: { durationInSeconds: number }) => p.durationInSeconds === 600)).toMatchObject({ watts: 260, activityId: "activity-old-1" })
        expect(curve.powerCurve.find((p: { durationInSeconds: number }) => p.durationInSeconds === 1200)).toMatchObject({ watts: 205, on: "2024-02-01" })
        // 20 minutes at FTP: a third of an hour at IF 1
        const load = (yield* send("GET", "/api/v1/stats/training-load?filters[from]=2024-02-02&filters[to]=2024-02-02")).json.days[0]
        expect(load.load).toBeCloseTo(100 / 3, 1)
        const analysis = (yield* send("GET", "/api/v1/activities/activity-old-2/analysis")).json
        expect(analysis.normalizedPower).toBe(200)
        expect(analysis.trainingStressScore).toBeCloseTo(100 / 3, 1)
      }).pipe(Effect.provide(daemonLayer(root)), Effect.scoped)
    }), 60_000)

  it.scopedLive("app:activities:reprocess computes the analysis again, the load following the sport the athlete chose", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      const hrTss = (hr: number) => {
        const trimp = (h: number) => 60 * ((h - 50) / 130) * 0.64 * Math.exp(1.92 * ((h - 50) / 130))
        return (100 * trimp(hr)) / trimp(167)
      }
      const id = yield* Effect.gen(function*() {
        dropFile(root.watchDir, "ride.fit", blocksFit({
          start: new Date("2024-05-01T08:00:00Z"),
          power: [[3600, 200]],
          heartRate: Array.from({ length: 3600 }, (_, i) => [1, i % 2 === 0 ? 140 : 142] as const),
          avgHeartRate: 141
        }))
        const row = yield* waitForRow("ride.fit")
        expect(row.status).toBe("success")
        const posted = yield* send("POST", "/api/v1/athlete/thresholds", {
          json: { on: "2024-01-01", cyclingFtp: 250, maxHeartRate: 180, restingHeartRate: 50, lactateThresholdHeartRate: 167 }
        })
        expect(posted.status).toBe(200)
        // the athlete says it was a run (no running FTP: its load is its hrTSS)
        yield* send("PATCH", `/api/v1/activities/${row.activity_id}`, { json: { sportType: "Run" } })
        yield* waitFor("the run's load", Effect.map(send("GET", "/api/v1/stats/training-load?filters[from]=2024-05-01&filters[to]=2024-05-01"), (a) =>
          a.json.days[0].load === Math.round(hrTss(141) * 10) / 10 ? true : undefined), { timeout: "60 seconds" })
        return row.activity_id!
      }).pipe(Effect.provide(daemonLayer(root)), Effect.scoped)

      // an older computation's figures, wrong
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE activity_training SET normalized_power = 1, training_load = 999 WHERE activity_id = ${id}`
        yield* sql`DELETE FROM activity_power_curve`
      }).pipe(Effect.provide(servicesLayer(root)), Effect.scoped)

      const result = runCli(["app:activities:reprocess", "--all"], { env: { ...root.env } })
      expect(result.status, result.stderr).toBe(0)
      expect(result.stdout).toContain("Reprocessed 1 of 1")

      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ normalized_power: number; training_load: number; stale: number | null; sport_type: string }>`
          SELECT t.normalized_power, t.training_load, t.stale, a.sport_type FROM activity_training t JOIN activities a ON a.id = t.activity_id WHERE a.id = ${id}`
        expect(row).toMatchObject({ normalized_power: 200, sport_type: "Run", stale: null })
        expect(row!.training_load).toBeCloseTo(hrTss(141), 6)
        expect((yield* sql`SELECT 1 FROM activity_power_curve WHERE activity_id = ${id}`).length).toBeGreaterThan(10)
      }).pipe(Effect.provide(servicesLayer(root)), Effect.scoped)
    }), 120_000)
})
