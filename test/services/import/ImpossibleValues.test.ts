import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { send, TestDaemon } from "../../support/TestDaemon.ts"
import { countActivities, dayStart, dropFile, freshDaemon, tcxActivity, waitForRow } from "../../support/ImportHarness.ts"

/**
 * Files that hold values no real activity reaches, through the real import path. A file is
 * refused only when nothing usable remains (a date no recording can have): it ends `failed`
 * with a message naming the impossible value, nothing of it is stored, and it leaves the watch
 * folder. Otherwise the impossible values are dropped and the row says so in `notes`.
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
  ["year-1000.gpx", () => gpxFrom("1000-06-01T08:00:00Z"), `"year-1000.gpx" cannot be imported: it starts in the year 1000 (activities start in 1900 or later).`],
  ["year-2126.gpx", () => gpxFrom("2126-06-01T08:00:00Z"), `"year-2126.gpx" cannot be imported: it starts on 2126-06-01, in the future.`]
]

/** Files with impossible values beside real ones: imported from the rest, the row naming what was dropped. */
const REPAIRED: ReadonlyArray<readonly [name: string, content: () => string, notes: string, check: (a: Record<string, any>) => void]> = [
  [
    "millennia.gpx",
    () => gpxFrom("1990-06-01T08:00:00Z", 3000 * 365.25 * 86_400),
    "Repaired: dropped 1 sample dated before 1900 or after tomorrow.",
    (a) => expect([a.startDateLocal.slice(0, 10), a.elapsedTimeInSeconds]).toEqual(["1990-06-01", 60])
  ],
  [
    "max-double.tcx",
    () => tcxActivity({ start: dayStart(2), seconds: 600 }).replace("<Calories>60</Calories>", "<Calories>1.7976931348623157e308</Calories>"),
    "Repaired: ignored the device's calories (1.8e308 kcal), which is impossible; ignored 1 impossible lap value.",
    (a) => expect([a.calories, a.movingTimeInSeconds]).toEqual([null, 600])
  ],
  [
    "year-1901.gpx",
    () => gpxFrom("1901-06-01T08:00:00Z"),
    "",
    (a) => expect(a.startDateLocal.slice(0, 10)).toBe("1901-06-01")
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
        // a young file that failed may stay in the folder a while (in case it grows), but it has
        // its row and is not listed as waiting
        const waiting = yield* send("GET", "/api/v1/file-imports?filters[status]=queued")
        expect(waiting.json.fileImports).toEqual([])
      }), { timeout: 60_000 })

    it.effect("impossible samples and totals are dropped, the activity stored from the rest, and the row says what was dropped", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        for (const [name, content] of REPAIRED) dropFile(watchDir, name, content())
        for (const [name, , notes, check] of REPAIRED) {
          const row = yield* waitForRow(name)
          expect([row.status, row.error_message], name).toEqual(["success", null])
          const served = (yield* send("GET", `/api/v1/file-imports?filters[filename]=${name}`)).json.fileImports[0]
          expect(served.notes, name).toBe(notes === "" ? null : notes)
          expect(served.activityIds, name).toEqual([row.activity_id])
          check((yield* send("GET", `/api/v1/activities/${row.activity_id}`)).json)
        }
      }))

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
