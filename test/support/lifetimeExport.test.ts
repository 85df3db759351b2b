import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { DUPLICATE_START_WINDOW_MS } from "../../src/services/import/Duplicates.ts"
import { parseActivityFile } from "../../src/services/import/parsers/parseActivityFile.ts"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE } from "./corpus.ts"
import { lifetimeActivities, lifetimeSources } from "./lifetimeExport.ts"

if (!CORPUS_DIR) console.log(CORPUS_MISSING_MESSAGE)

describe.skipIf(!CORPUS_DIR)("lifetimeActivities", () => {
  it("makes twice round the corpus's FIT files into activities none of which duplicates another, each starting where it is said to", async () => {
    const sources = await lifetimeSources()
    expect(sources.length).toBeGreaterThan(35)
    const activities = [...lifetimeActivities(sources, 2 * sources.length)]
    // every activity the files hold, as the import reads them
    const starts: Array<number> = []
    for (const a of activities) {
      const parsed = await parseActivityFile(a.file.bytes, "fit", a.file.name)
      expect(parsed.map((p) => p.startTime), a.file.name).toEqual(a.file.starts)
      starts.push(...parsed.map((p) => p.startTime))
    }
    starts.sort((x, y) => x - y)
    const closest = Math.min(...starts.slice(1).map((s, i) => s - starts[i]!))
    expect(closest).toBeGreaterThan(DUPLICATE_START_WINDOW_MS)
    expect(new Set(activities.map((a) => createHash("sha256").update(a.file.bytes).digest("hex"))).size).toBe(activities.length)
    expect(Math.max(...starts)).toBeLessThan(Date.UTC(2020, 0, 1))
  }, 120_000)
})
