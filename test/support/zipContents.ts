import * as yauzl from "yauzl"

/** Every entry of a zip in memory with its bytes, in the zip's order (folders included, empty). */
export const zipContents = async (zip: Uint8Array): Promise<Map<string, Buffer>> => {
  const file = await yauzl.fromBufferPromise(Buffer.from(zip), { lazyEntries: true })
  const contents = new Map<string, Buffer>()
  try {
    for (;;) {
      const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
        file.once("entry", resolve)
        file.once("end", () => resolve(null))
        file.once("error", reject)
        file.readEntry()
      })
      if (entry === null) return contents
      file.removeAllListeners()
      const chunks: Array<Buffer> = []
      if (!entry.fileName.endsWith("/")) for await (const chunk of await file.openReadStreamPromise(entry)) chunks.push(chunk as Buffer)
      contents.set(entry.fileName, Buffer.concat(chunks))
    }
  } finally {
    file.close()
  }
}
