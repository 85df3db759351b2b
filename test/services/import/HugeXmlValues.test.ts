import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { readChannel, TestDaemon } from "../../support/TestDaemon.ts"
import { dayStart, dropFile, fitActivity, freshDaemon, gpxActivity, tcxActivity, waitFor, waitForRow } from "../../support/ImportHarness.ts"

/**
 * XML files holding one enormous value (a 5 MB attribute, a number of a million digits):
 * refused by the limits checked before parsing, in milliseconds, by the same parse worker
 * (none is replaced), where parsing them would take seconds and hundreds of MB.
 */

const MILLION_DIGITS = "7".repeat(1_000_000)
const FIVE_MB = "x".repeat(5 * 1024 * 1024)

const gpx = () => gpxActivity({ start: dayStart(1), seconds: 600 })
const tcx = () => tcxActivity({ start: dayStart(2), seconds: 600 })

const CASES: ReadonlyArray<readonly [name: string, content: () => string, message: RegExp]> = [
  ["attribute.gpx", () => gpx().replace("<trkpt ", `<trkpt note="${FIVE_MB}" `), /has an XML tag of 5,242,\d{3} characters \(at most 65,536\)$/],
  ["latitude.gpx", () => gpx().replace(/lat="[^"]*"/, `lat="${MILLION_DIGITS}"`), /has an XML tag of 1,000,0\d\d characters \(at most 65,536\)$/],
  ["elevation.gpx", () => gpx().replace(/<ele>[^<]*<\/ele>/, `<ele>${MILLION_DIGITS}</ele>`), /holds an XML text of 1,000,000 characters \(at most 65,536\)$/],
  ["sport.tcx", () => tcx().replace(`Sport="Running"`, `Sport="${FIVE_MB}"`), /has an XML tag of 5,242,\d{3} characters \(at most 65,536\)$/],
  [
    "distance.tcx",
    () => tcx().replace("<DistanceMeters>300</DistanceMeters>", `<DistanceMeters>0.${MILLION_DIGITS}</DistanceMeters>`),
    /holds an XML text of 1,000,002 characters \(at most 65,536\)$/
  ]
]

/** The worker's time over a file, as the daemon logs it with the outcome (just after the row's commit). */
const parseMillisOf = (filename: string) =>
  waitFor(
    `the outcome line of ${filename}`,
    Effect.map(readChannel("daemon"), (lines) => {
      const line = lines.find((l) => l.message.startsWith(`imported "${filename}"`))
      return line === undefined ? undefined : Number(line.annotations.parseMs)
    })
  )

describe("huge XML values", () => {
  // one parse worker, loaded by the first file: a second one would load the parsers (from
  // source, in tests) within the time of the first file it is given
  layer(freshDaemon({ IMPORT_PARSE_WORKERS: "1" }), { excludeTestServices: true })((it) => {
    it.effect("a 5 MB attribute or a number of a million digits is refused in milliseconds, without replacing the parse worker", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        // the worker is loaded (from source) by a first file
        dropFile(watchDir, "first.fit", fitActivity({ start: dayStart(3), seconds: 600 }))
        expect((yield* waitForRow("first.fit")).status).toBe("success")
        for (const [name, content] of CASES) dropFile(watchDir, name, content())
        dropFile(watchDir, "after.fit", fitActivity({ start: dayStart(4), seconds: 600 }))
        for (const [name, , message] of CASES) {
          const row = yield* waitForRow(name)
          expect(row.status, name).toBe("failed")
          expect(row.error_message, name).toMatch(new RegExp(`^"${name.replace(".", "\\.")}" ${message.source}`))
          // the worker's limit is 10 s; parsing such a file took 4 to 10 s
          const ms = yield* parseMillisOf(name)
          expect(ms, name).toBeLessThan(500)
        }
        expect((yield* waitForRow("after.fit")).status).toBe("success")
        const replaced = (yield* readChannel("daemon")).filter((l) => l.message.startsWith("parse worker replaced"))
        expect(replaced).toEqual([])
      }), { timeout: 60_000 })
  })
})
