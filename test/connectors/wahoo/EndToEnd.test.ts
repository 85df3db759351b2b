import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { daemonLayer, fitActivity, importRows, listFiles, scopedRoot, waitFor } from "../../support/ImportHarness.ts"
import { send } from "../../support/TestDaemon.ts"
import { connectThroughDashboard, daysAgo, eventually, httpsRequest, listeningEnv, scopedFake, withConnector } from "./harness.ts"

/**
 * The whole path: the fake Wahoo's workouts, fetched by the connector after a connection from
 * its dashboard, delivered into the watch folder the real daemon watches, imported there as
 * activities; a second sync delivers nothing new although the daemon removed the files.
 */

describe("Wahoo connector into the daemon", () => {
  it.scopedLive("the fake's workouts in the window become activities in the daemon; a second sync delivers nothing", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      const fake = yield* scopedFake()
      const starts = [1, 2, 4].map((d) => daysAgo(d, 7))
      const workouts = starts.map((start, i) =>
        fake.addWorkout({ starts: start, file: fitActivity({ start, seconds: 1800 + i * 60, sport: "cycling" }) })
      )
      fake.addWorkout({ starts: daysAgo(30, 7), file: fitActivity({ start: daysAgo(30, 7), seconds: 1800 }) })
      const names = workouts.map((w) => `${w.starts.slice(0, 10)}_workout_${w.id}.fit`)
      // the connector's DATA_DIR is its own; its downloads go to the daemon's watch folder
      const dirs = { root: root.root, dataDir: `${root.root}/wahoo`, stateDir: `${root.root}/wahoo/config`, watchDir: root.watchDir }
      const env = yield* listeningEnv(fake, dirs, { WATCH_DIR: root.watchDir })

      yield* Effect.gen(function*() {
        yield* withConnector({ fake, dirs, env }, (running) =>
          Effect.gen(function*() {
            yield* connectThroughDashboard(running)
            const rows = yield* waitFor("the three imports", Effect.map(importRows(), (rows) => (rows.length >= 3 ? rows : undefined)), {
              timeout: "60 seconds"
            })
            expect(rows.map((r) => r.filename).sort()).toEqual([...names].sort())
            expect(rows.map((r) => r.status)).toEqual(["success", "success", "success"])
            const listed = yield* send("GET", "/api/v1/activities?pagination[size]=10")
            expect(listed.status).toBe(200)
            expect(listed.json.pagination.total).toBe(3)
            expect(listed.json.activities.map((a: any) => a.sportType)).toEqual(["Ride", "Ride", "Ride"])
            yield* waitFor("the watch folder to empty", Effect.sync(() => (listFiles(root.watchDir).filter((n) => !n.startsWith(".")).length === 0 ? true : undefined)))

            const before = yield* Effect.map(httpsRequest(`${running.base}/api/status`, { ca: running.ca }), (a) => a.json)
            const again = yield* httpsRequest(`${running.base}/api/sync`, { ca: running.ca, method: "POST" })
            expect(again.status).toBe(202)
            const after = yield* eventually("the second sync", Effect.map(httpsRequest(`${running.base}/api/status`, { ca: running.ca }), (a) =>
              !a.json.is_syncing && a.json.last_sync_time !== before.last_sync_time ? a.json : undefined))
            expect(after.last_result).toMatchObject({ status: "success", new_downloads: 0, skipped: 3 })
            expect(after.total_downloaded).toBe(3)
          }))
        expect((yield* importRows()).length).toBe(3)
      }).pipe(Effect.provide(daemonLayer(root)))
    }), 120_000)
})
