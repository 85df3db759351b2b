import { describe, expect, it } from "@effect/vitest"
import { Decoder, Stream } from "@garmin/fitsdk"
import * as fs from "node:fs"
import * as path from "node:path"
import { parseActivityFile } from "../../src/services/import/parsers/parseActivityFile.ts"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE, readCorpusFile } from "./corpus.ts"
import { shiftFitTimes } from "./shiftFitTimes.ts"

if (!CORPUS_DIR) console.log(CORPUS_MISSING_MESSAGE)

const DAY = 86_400

describe.skipIf(!CORPUS_DIR)("shiftFitTimes", () => {
  const files = CORPUS_DIR ? fs.readdirSync(path.join(CORPUS_DIR, "fit")).map((f) => `fit/${f}`) : []

  it("moves every activity of every corpus FIT by the shift, and nothing else the import reads; the SDK finds the CRCs valid", async () => {
    const shift = -(1000 * DAY - 32 * 7)
    let compared = 0
    for (const file of files) {
      const bytes = readCorpusFile(file)
      const shifted = shiftFitTimes(bytes, shift)
      expect(shifted.length).toBe(bytes.length)
      expect(new Decoder(Stream.fromByteArray(Array.from(shifted))).checkIntegrity(), file).toBe(true)
      const before = await parseActivityFile(new Uint8Array(bytes), "fit", file).catch(() => null)
      if (before === null) continue
      const after = await parseActivityFile(shifted, "fit", file)
      expect(after.map((a) => a.startTime), file).toEqual(before.map((a) => a.startTime + shift * 1000))
      expect(after.map((a) => a.samples.time.length), file).toEqual(before.map((a) => a.samples.time.length))
      expect(after.map((a) => [a.totals.distanceMeters, a.totals.elapsedSeconds, a.sportType]), file)
        .toEqual(before.map((a) => [a.totals.distanceMeters, a.totals.elapsedSeconds, a.sportType]))
      compared++
    }
    expect(compared).toBeGreaterThan(35)
  }, 120_000)

  it("refuses a shift that compressed timestamps cannot follow", () => {
    expect(() => shiftFitTimes(readCorpusFile("fit/garmin-fenix5-run.fit"), 60)).toThrow(/multiple of 32/)
  })
})
