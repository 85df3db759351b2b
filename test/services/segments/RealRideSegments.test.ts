import { describe, expect, it } from "@effect/vitest"
import { decodeStreams } from "../../../src/services/activities/StreamsCodec.ts"
import { fileDrafts } from "../../../src/services/import/ParseWorkerDrafts.ts"
import { matchSegment, prepareSegment } from "../../../src/services/segments/matchSegment.ts"
import { lineOf, stretchOf } from "../../../src/services/segments/segmentLine.ts"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE, readCorpusFile } from "../../support/corpus.ts"

/**
 * The corpus's real rides cut into segments of themselves (a point every 30 m of the ride): each
 * stretch is found again in the ride it was cut from, where it was cut, in the time the ride took
 * over it.
 */

if (!CORPUS_DIR) console.log(CORPUS_MISSING_MESSAGE)

const RIDES = [
  "fit/garmin-edge1000-ride.fit",
  "fit/garmin-edge500-ride-pauses.fit",
  "fit/sigma-rox11-road-ride.fit",
  "fit/wahoo-elemnt-bolt-ride-short.fit"
]

/** stretches as shares of the ride's distance */
const CUTS = [[0.1, 0.2], [0.4, 0.45], [0.6, 0.9]] as const

const valueAt = (distance: ReadonlyArray<number>, values: ReadonlyArray<number>, at: number) => {
  const i = distance.findIndex((d) => d >= at)
  if (i <= 0) return values[Math.max(0, i)]!
  const t = (at - distance[i - 1]!) / (distance[i]! - distance[i - 1]! || 1)
  return values[i - 1]! + (values[i]! - values[i - 1]!) * t
}

describe.skipIf(!CORPUS_DIR)("real rides cut into segments of themselves", () => {
  for (const file of RIDES) {
    it(`finds each stretch of ${file} where it was cut, in the time it took`, async () => {
      const [draft] = await fileDrafts({ bytes: readCorpusFile(file), format: "fit", filename: file, fallbackTimeZone: "UTC" })
      const streams = decodeStreams(draft!.encodedStreams)
      const { distance, latlng, time } = streams
      expect(latlng && distance && time).toBeTruthy()
      const total = distance![distance!.length - 1]!
      let tried = 0
      for (const [a, b] of CUTS) {
        const from = total * a
        const to = Math.min(total * b, from + 5000)
        if (to - from < 150) continue
        const { points } = stretchOf(latlng!, distance!, from, to)!
        const efforts = matchSegment(prepareSegment(lineOf(points)), { ...streams, latlng: latlng! })
        const effort = efforts.find((e) => Math.abs(e.startDistanceInMeter - from) < 30)
        expect(effort, `${file} ${Math.round(from)}-${Math.round(to)} m: ${JSON.stringify(efforts)}`).toBeDefined()
        const took = valueAt(distance!, time!, to) - valueAt(distance!, time!, from)
        expect(Math.abs(effort!.elapsedTimeInSeconds - took)).toBeLessThanOrEqual(3)
        tried++
      }
      expect(tried).toBeGreaterThan(0)
    })
  }
})
