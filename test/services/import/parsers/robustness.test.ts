import { describe, expect, it } from "@effect/vitest"
import { ActivityFileError } from "../../../../src/services/import/parsers/ActivityFileError.ts"
import { parseActivityFile } from "../../../../src/services/import/parsers/parseActivityFile.ts"
import type { FileFormat } from "../../../../src/schema/ParsedActivity.ts"
import { rideFit } from "./fitFixtures.ts"

/** Deterministic pseudo-random numbers (LCG), so that a failure can be replayed. */
const random = (seed: number) => () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31

/** The parse worker's time limit (ParseLimits): an input that takes longer is abandoned. */
const PARSE_LIMIT_MS = 10_000

/** Resolves or rejects with ActivityFileError; anything else (a TypeError, a string, a hang) fails the test. */
const settlesCleanly = async (bytes: Uint8Array, format: FileFormat, label: string): Promise<void> => {
  const started = performance.now()
  const outcome = await parseActivityFile(bytes, format, "fuzz").then(() => null, (e: unknown) => e)
  if (outcome !== null && !(outcome instanceof ActivityFileError)) expect.fail(`${label}: rejected with ${String(outcome)}`)
  expect(performance.now() - started, `${label} would be abandoned by the worker`).toBeLessThan(PARSE_LIMIT_MS)
}

describe("parseActivityFile robustness", () => {
  it("never throws anything but ActivityFileError on corrupted FIT bytes (300 seeded mutations)", async () => {
    const original = rideFit()
    const next = random(7)
    for (let i = 0; i < 300; i++) {
      const bytes = original.slice()
      const flips = 1 + Math.floor(next() * 8)
      for (let k = 0; k < flips; k++) bytes[Math.floor(next() * bytes.length)] = Math.floor(next() * 256)
      const cut = next() < 0.3 ? Math.floor(next() * bytes.length) : bytes.length
      await settlesCleanly(bytes.subarray(0, cut), "fit", `mutation ${i}`)
    }
  })

  it("never throws anything but ActivityFileError on XML cut at any point", async () => {
    const gpx = `<?xml version="1.0"?><gpx creator="x"><metadata><name>a &amp; b</name></metadata><trk><type>9</type><trkseg>` +
      `<trkpt lat="1" lon="2"><ele>3</ele><time>2021-01-01T00:00:00Z</time><extensions><hr>100</hr></extensions></trkpt>` +
      `<trkpt lat="1.1" lon="2.1"><time>2021-01-01T00:00:01Z</time></trkpt></trkseg></trk></gpx>`
    const bytes = new TextEncoder().encode(gpx)
    for (let cut = 0; cut <= bytes.length; cut++) {
      await settlesCleanly(bytes.subarray(0, cut), "gpx", `gpx cut at ${cut}`)
      await settlesCleanly(bytes.subarray(0, cut), "tcx", `tcx cut at ${cut}`)
    }
  })
})
