import { describe, expect, it } from "@effect/vitest"
import { ActivityFileError } from "../../../../src/services/import/parsers/ActivityFileError.ts"
import { parseActivityFile } from "../../../../src/services/import/parsers/parseActivityFile.ts"
import { CORPUS_DIR, readCorpusFile } from "../../../support/corpus.ts"

/**
 * A device that writes one bad byte: the corpus's real rides with one byte of them damaged in
 * memory, the ways a Lezyne head unit damages its files (a record cut short in the middle of the
 * file, a definition with an impossible architecture byte). What the file still holds is imported
 * and the damage named; a file that holds nothing is still refused.
 */
const RIDE = "fit/garmin-edge500-ride-pauses.fit"
/** the ride's distance as its device summed it (manifest) */
const RIDE_METERS = 88797.21

interface Framed {
  readonly at: number
  readonly definition: boolean
  readonly global: number
}

/** The records of an undamaged FIT file as the protocol frames them. */
const frame = (bytes: Uint8Array): Array<Framed> => {
  const headerSize = bytes[0]!
  const end = headerSize + new DataView(bytes.buffer, bytes.byteOffset).getUint32(4, true)
  const sizes = new Array<number>(16).fill(-1)
  const globals = new Array<number>(16).fill(-1)
  const out: Array<Framed> = []
  let pos = headerSize
  while (pos < end) {
    const header = bytes[pos]!
    if ((header & 0xc0) === 0x40) {
      const global = bytes[pos + 2] === 1 ? (bytes[pos + 3]! << 8) | bytes[pos + 4]! : bytes[pos + 3]! | (bytes[pos + 4]! << 8)
      const fields = bytes[pos + 5]!
      let size = 0
      let at = pos + 6
      for (let f = 0; f < fields; f++, at += 3) size += bytes[at + 1]!
      if ((header & 0x20) !== 0) {
        const developer = bytes[at++]!
        for (let f = 0; f < developer; f++, at += 3) size += bytes[at + 1]!
      }
      sizes[header & 0x0f] = size
      globals[header & 0x0f] = global
      out.push({ at: pos, definition: true, global })
      pos = at
      continue
    }
    const local = (header & 0x80) !== 0 ? (header >> 5) & 3 : header & 0x0f
    out.push({ at: pos, definition: false, global: globals[local]! })
    pos += 1 + sizes[local]!
  }
  return out
}

const parse = (bytes: Uint8Array) => parseActivityFile(bytes, "fit", "damaged.fit")
/** the samples of the undamaged ride */
const undamagedSamples = async (): Promise<number> => (await parse(new Uint8Array(readCorpusFile(RIDE))))[0]!.samples.time.length

describe.skipIf(!CORPUS_DIR)("a FIT file with one bad byte", () => {
  it("keeps the records after a record whose header byte is damaged, naming the bytes skipped", async () => {
    const bytes = new Uint8Array(readCorpusFile(RIDE))
    const records = frame(bytes).filter((r) => !r.definition && r.global === 20)
    const damaged = records[Math.floor(records.length / 2)]!
    bytes[damaged.at] = 0x7b // a definition header whose reserved and architecture bytes are data
    const [ride, ...others] = await parse(bytes)
    expect(others).toEqual([])
    // the damaged record and at most the one before it are lost, every other is kept
    const whole = await undamagedSamples()
    expect(ride!.samples.time.length).toBeGreaterThanOrEqual(whole - 2)
    expect(ride!.samples.time.length).toBeLessThan(whole)
    expect(ride!.totals.distanceMeters).toBeCloseTo(RIDE_METERS, 1)
    expect(ride!.sportType).toBe("Ride")
    expect(ride!.repairs?.[0]).toMatch(/^damaged FIT data skipped: \d+ of [\d,]+ bytes in 1 stretch \(\d+ at byte [\d,]+\); the records around them were kept$/)
  })

  it("reads a definition whose architecture byte is impossible as little-endian", async () => {
    const bytes = new Uint8Array(readCorpusFile(RIDE))
    const definition = frame(bytes).find((r) => r.definition && r.global === 20)!
    bytes[definition.at + 2] = 0xe5
    const [ride] = await parse(bytes)
    expect(ride!.samples.time).toHaveLength(await undamagedSamples())
    expect(ride!.totals.distanceMeters).toBeCloseTo(RIDE_METERS, 1)
    expect(ride!.repairs).toContain(`1 FIT definition with an invalid architecture byte (at byte ${definition.at.toLocaleString("en-US")}) read as little-endian`)
  })

  it("still refuses a file whose every record is damaged", async () => {
    const bytes = new Uint8Array(readCorpusFile(RIDE))
    const headerSize = bytes[0]!
    bytes.fill(0x7b, headerSize, bytes.length - 2)
    const error = await parse(bytes).then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(ActivityFileError)
    expect((error as ActivityFileError).message).toMatch(/^"damaged\.fit" (is corrupt|contains no activity data)/)
  })

  it("imports an undamaged file as before, with no repair of its bytes", async () => {
    const [ride] = await parse(new Uint8Array(readCorpusFile(RIDE)))
    expect(ride!.samples.time.length).toBeGreaterThan(3000)
    expect((ride!.repairs ?? []).filter((r) => /FIT (data|definition)/.test(r))).toEqual([])
  })
})
