import CheapRuler from "cheap-ruler"
import { describe, expect, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { send, TestDaemon } from "../../support/TestDaemon.ts"
import { dayStart, dropFile, fitActivity, freshDaemon, listFiles, tcxActivity, waitFor, waitForRow } from "../../support/ImportHarness.ts"

/**
 * Activities whose splits outnumber what one SQLite statement can bind (about 8,000 rows of
 * 4 values), and distances no activity reaches, through the real import path (watch folder,
 * parse worker, commit): each file ends `success` or `failed` at once, never stays queued,
 * and the files behind it import.
 */

const DAY_S = 86_400

/**
 * A GPX track of `km` kilometres over `days` days, one point every `step` seconds, heading
 * east along the 10th parallel from the Atlantic (no zone or country lookup is special there).
 */
const ultraGpx = (start: Date, km: number, days: number, step: number): string => {
  const seconds = days * DAY_S
  // metres per degree of longitude at 10° N on the WGS84 ellipsoid, as distances are measured
  const metresPerDegree = new CheapRuler(10, "meters").kx
  const speed = (km * 1000) / seconds
  const points: Array<string> = []
  for (let s = 0; s <= seconds; s += step) {
    const lng = -20 + (s * speed) / metresPerDegree
    const t = new Date(start.getTime() + s * 1000).toISOString()
    points.push(`<trkpt lat="10.0000000" lon="${lng.toFixed(7)}"><ele>${(200 + 50 * Math.sin(s / 3600)).toFixed(1)}</ele><time>${t}</time></trkpt>`)
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="waymark-test" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Across</name><type>cycling</type><trkseg>${points.join("")}</trkseg></trk></gpx>\n`
}

const queued = Effect.map(send("GET", "/api/v1/file-imports?filters[status]=queued&pagination[size]=100"), (a) => {
  expect(a.status).toBe(200)
  return (a.json.fileImports as Array<{ filename: string }>).map((f) => f.filename)
})

const splitCounts = (activityId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ unit: string; n: number }>`SELECT unit, COUNT(*) AS n FROM activity_splits WHERE activity_id = ${activityId} GROUP BY unit ORDER BY unit`).pipe(
      Effect.orDie,
      Effect.map((rows) => Object.fromEntries(rows.map((r) => [r.unit, r.n])))
    )

describe("activities with thousands of splits", () => {
  layer(freshDaemon(), { excludeTestServices: true })((it) => {
    it.effect("a 6,000 km GPX ride of 12 days (9,730 splits) is stored whole, and the file behind it imports", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        const gpx = ultraGpx(dayStart(1), 6_000, 12, 10)
        expect(gpx.length).toBeGreaterThan(10_000_000)
        dropFile(watchDir, "across.gpx", gpx)
        dropFile(watchDir, "behind.fit", fitActivity({ start: dayStart(30), seconds: 600 }))
        const row = yield* waitForRow("across.gpx", "60 seconds")
        expect([row.status, row.error_message]).toEqual(["success", null])
        // 6,000 km: 6,000 kilometre splits and 3,729 mile ones, over several statements
        expect(yield* splitCounts(row.activity_id!)).toEqual({ km: 6_000, mile: 3_729 })
        const served = yield* send("GET", `/api/v1/activities/${row.activity_id}`)
        expect(served.status).toBe(200)
        expect(Math.round(served.json.distanceInMeter / 1000)).toBe(6_000)
        expect(served.json.elapsedTimeInSeconds).toBe(12 * DAY_S)
        expect((yield* waitForRow("behind.fit")).status).toBe("success")
        expect(yield* queued).toEqual([])
        // each file leaves the folder just after its row is committed
        yield* waitFor("the folder emptied", Effect.sync(() => (listFiles(watchDir).some((f) => !f.startsWith(".")) ? undefined : true)))
      }), { timeout: 120_000 })

    it.effect("a TCX whose one DistanceMeters is absurd imports without that sample's distance, the row naming it; the file behind it imports", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        const ride = tcxActivity({ start: dayStart(2), seconds: 3600 })
        // one trackpoint's cumulative distance of 1e13 m: splits over it would number billions
        const absurd = ride.replace(/<DistanceMeters>1800<\/DistanceMeters>/, "<DistanceMeters>1e13</DistanceMeters>")
        expect(absurd).not.toBe(ride)
        // another ride (the same one would be its duplicate)
        const huge = tcxActivity({ start: dayStart(3), seconds: 3600 })
          .replace(/<DistanceMeters>1800<\/DistanceMeters>/, "<DistanceMeters>1.7976931348623157e308</DistanceMeters>")
        dropFile(watchDir, "absurd.tcx", absurd)
        dropFile(watchDir, "max-double.tcx", huge)
        dropFile(watchDir, "after.fit", fitActivity({ start: dayStart(31), seconds: 600 }))
        for (const [name, notes] of [
          ["absurd.tcx", "Repaired: ignored 1 impossible distance value."],
          ["max-double.tcx", "Repaired: ignored 1 impossible distance value."]
        ] as const) {
          const row = yield* waitForRow(name)
          expect([row.status, row.error_message], name).toEqual(["success", null])
          expect((yield* send("GET", `/api/v1/file-imports?filters[filename]=${name}`)).json.fileImports[0].notes, name).toBe(notes)
          // the lap's distance, the device's own total
          expect((yield* send("GET", `/api/v1/activities/${row.activity_id}`)).json.distanceInMeter, name).toBe(10_800)
        }
        expect((yield* waitForRow("after.fit")).status).toBe("success")
        expect(yield* queued).toEqual([])
        // each file leaves the folder just after its row is committed
        yield* waitFor("the folder emptied", Effect.sync(() => (listFiles(watchDir).some((f) => !f.startsWith(".")) ? undefined : true)))
      }), { timeout: 60_000 })
  })
})
