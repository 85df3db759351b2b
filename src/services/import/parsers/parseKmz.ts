import * as yauzl from "yauzl"
import { ActivityFileError } from "./ActivityFileError.ts"
import type { ParsedActivity } from "../../../schema/ParsedActivity.ts"
import { parseKml } from "./parseKml.ts"
import { XML_LIMITS } from "./xml.ts"

/**
 * A KMZ is a zip whose KML is `doc.kml` (or, in files of other writers, the first `.kml` at its
 * root, else anywhere in it), beside the images and models it shows. Only that KML is read: its
 * bytes at most XML_LIMITS.maxBytes however large the entry claims to be, and a zip of more
 * than KMZ_MAX_ENTRIES entries is refused before any is read.
 */
export const KMZ_MAX_ENTRIES = 10_000

const fail = (message: string): never => {
  throw new ActivityFileError({ message })
}

/** The bytes of the KMZ's KML. Rejects with ActivityFileError. */
export const kmlOfKmz = async (bytes: Uint8Array, name: string): Promise<Uint8Array> => {
  let zip: yauzl.ZipFile
  try {
    zip = await yauzl.fromBufferPromise(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { lazyEntries: true, validateEntrySizes: true, strictFileNames: false })
  } catch (e) {
    return fail(`"${name}" is not a readable KMZ (zip) file: ${(e as Error).message}`)
  }
  try {
    if (zip.entryCount > KMZ_MAX_ENTRIES) fail(`"${name}" holds ${zip.entryCount} entries (a KMZ is read with at most ${KMZ_MAX_ENTRIES})`)
    const entries = await new Promise<Array<yauzl.Entry>>((resolve, reject) => {
      const found: Array<yauzl.Entry> = []
      zip.on("error", reject)
      zip.on("end", () => resolve(found))
      zip.on("entry", (entry: yauzl.Entry) => {
        if (/\.kml$/i.test(entry.fileName)) found.push(entry)
        zip.readEntry()
      })
      zip.readEntry()
    })
    const rank = (entry: yauzl.Entry) => (entry.fileName === "doc.kml" ? 0 : entry.fileName.includes("/") ? 2 : 1)
    const kml = entries.sort((a, b) => rank(a) - rank(b))[0] ?? fail(`"${name}" is a KMZ without a KML document (doc.kml)`)
    if (kml.uncompressedSize > XML_LIMITS.maxBytes) fail(`"${name}" holds a KML of ${kml.uncompressedSize.toLocaleString("en-US")} bytes (at most ${XML_LIMITS.maxBytes.toLocaleString("en-US")})`)
    const stream = await zip.openReadStreamPromise(kml)
    const chunks: Array<Buffer> = []
    let size = 0
    for await (const chunk of stream) {
      size += (chunk as Buffer).length
      // the sizes a zip states may lie: what is read counts
      if (size > XML_LIMITS.maxBytes) {
        stream.destroy()
        fail(`"${name}" holds a KML of more than ${XML_LIMITS.maxBytes.toLocaleString("en-US")} bytes`)
      }
      chunks.push(chunk as Buffer)
    }
    return Buffer.concat(chunks)
  } catch (e) {
    if (e instanceof ActivityFileError) throw e
    return fail(`"${name}" is a damaged KMZ (zip) file: ${(e as Error).message}`)
  } finally {
    zip.close()
  }
}

/** Reads a KMZ's KML as parseKml does. Rejects with ActivityFileError. */
export const parseKmz = async (bytes: Uint8Array, name: string): Promise<ReadonlyArray<ParsedActivity>> =>
  parseKml(await kmlOfKmz(bytes, name), name, "kmz")
