import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { send, TestDaemon } from "../../support/TestDaemon.ts"
import { countActivities, dayStart, dropFile, freshDaemon, listFiles, tcxActivity, waitForRow } from "../../support/ImportHarness.ts"

/**
 * Files that hold values no real activity reaches, through the real import path: each one
 * ends `failed` with a message naming the impossible value, nothing of it is stored, and it
 * leaves the watch folder.
 */

/** A GPX of two minutes whose points are stamped from `start`, the last one `lastAfterSeconds` later. */
const gpxFrom = (start: string, lastAfterSeconds = 120): string => {
  const t0 = Date.parse(start)
  const point = (s: number, lat: number) =>
    `<trkpt lat="${lat}" lon="8.54"><time>${new Date(t0 + s * 1000).toISOString()}</time></trkpt>`
  return `<?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>` +
    `${point(0, 47.37)}${point(60, 47.371)}${point(lastAfterSeconds, 47.372)}</trkseg></trk></gpx>`
}

const CASES: ReadonlyArray<readonly [name: string, content: () => string, message: string]> = [
  ["year-1000.gpx", () => gpxFrom("1000-06-01T08:00:00Z"), `"year-1000.gpx" cannot be imported: it starts in the year 1000 (activities start in 1980 or later).`],
  ["year-2126.gpx", () => gpxFrom("2126-06-01T08:00:00Z"), `"year-2126.gpx" cannot be imported: it starts on 2126-06-01, in the future.`],
  [
    "millennia.gpx",
    () => gpxFrom("1990-06-01T08:00:00Z", 3000 * 365.25 * 86_400),
    `"millennia.gpx" cannot be imported: the elapsed time 9.5e10 s (3,000 years) is impossible (at most 100 days).`
  ],
  [
    "max-double.tcx",
    () => tcxActivity({ start: dayStart(2), seconds: 600 }).replace("<Calories>60</Calories>", "<Calories>1.7976931348623157e308</Calories>"),
    `"max-double.tcx" cannot be imported: the calories 1.8e308 kcal is impossible (0 to 1,000,000 kcal).`
  ]
]

describe("impossible values in files", () => {
  layer(freshDaemon(), { excludeTestServices: true })((it) => {
    it.effect("are refused with a message naming the value; nothing is stored", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        for (const [name, content] of CASES) {
          const text = content()
          expect(text, name).not.toBe(content.toString())
          dropFile(watchDir, name, text)
        }
        for (const [name, , message] of CASES) {
          const row = yield* waitForRow(name)
          expect([row.status, row.error_message], name).toEqual(["failed", message])
          const served = yield* send("GET", `/api/v1/file-imports?filters[filename]=${name}`)
          expect(served.json.fileImports[0].errorMessage).toBe(message)
        }
        expect(yield* countActivities).toBe(0)
        expect(listFiles(watchDir).filter((f) => !f.startsWith("."))).toEqual([])
      }), { timeout: 60_000 })

    it.effect("a number written as Infinity or NaN is read as missing: the activity is stored from the other samples", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        const ride = tcxActivity({ start: dayStart(1), seconds: 600 })
        const broken = ride.replace("<DistanceMeters>300</DistanceMeters>", "<DistanceMeters>Infinity</DistanceMeters>")
          .replace("<DistanceMeters>600</DistanceMeters>", "<DistanceMeters>NaN</DistanceMeters>")
          .replace("<Value>130</Value>", "<Value>-Infinity</Value>")
        expect(broken.match(/Infinity|NaN/g)).toHaveLength(3)
        dropFile(watchDir, "infinite-distance.tcx", broken)
        const row = yield* waitForRow("infinite-distance.tcx")
        expect([row.status, row.error_message]).toEqual(["success", null])
        const activity = (yield* send("GET", `/api/v1/activities/${row.activity_id}`)).json
        expect([activity.distanceInMeter, activity.movingTimeInSeconds]).toEqual([1800, 600])
      }))
  })
})
