import { describe, expect, it } from "@effect/vitest"
import { ImportBatch, REPORT_EVERY_MS } from "../../../src/services/import/ImportProgress.ts"

const GRACE = 5_000

/** Every answer in `seen` has neither fewer files done nor a smaller total than the one before, and no time left once nothing waits. */
const neverBackwards = (seen: ReadonlyArray<{ running: boolean; done: number; total: number; secondsLeft: number | null }>) => {
  seen.forEach((p, i) => {
    expect(p.done).toBeLessThanOrEqual(p.total)
    if (!p.running) expect(p.secondsLeft).toBeNull()
    if (p.secondsLeft !== null) expect(p.secondsLeft).toBeGreaterThan(0)
    if (i === 0) return
    expect(p.done, JSON.stringify(seen.slice(i - 1, i + 1))).toBeGreaterThanOrEqual(seen[i - 1]!.done)
    expect(p.total, JSON.stringify(seen.slice(i - 1, i + 1))).toBeGreaterThanOrEqual(seen[i - 1]!.total)
  })
}

describe("ImportBatch", () => {
  it("a bulk import logs the files queued, a running count with rate and time left at most every few seconds, and a summary once idle for the grace time", () => {
    const progress = new ImportBatch(GRACE)
    expect(progress.taken(0, 100)).toEqual(["100 files queued for import"])
    const lines: Array<string> = []
    for (let i = 1; i <= 100; i++) {
      // one file every 100 ms, every tenth skipped, the last failed
      const status = i === 100 ? "failed" : i % 10 === 0 ? "skipped" : "success"
      if (i < 100) expect(progress.taken(i * 100 - 50, 100 - i + 1)).toEqual([])
      lines.push(...progress.handledOne(i * 100, status, 100 - i))
    }
    const running = lines.filter((l) => l.startsWith("importing:"))
    // 10 s of importing, a line at most every 5 s
    expect(running.length).toBeGreaterThanOrEqual(1)
    expect(running.length).toBeLessThanOrEqual(10_000 / REPORT_EVERY_MS)
    expect(running[0]).toBe("importing: 50 of 100 files done (10.0 files/s, about 5 s left)")
    // over only once nothing has waited for the grace time; meanwhile the whole count, and no time left
    expect(lines.filter((l) => l.startsWith("import finished"))).toEqual([])
    expect(progress.snapshot(12_000, 0)).toMatchObject({ running: false, done: 100, total: 100, secondsLeft: null, words: "100 of 100 files done" })
    expect(progress.close(10_000 + GRACE - 1)).toEqual([])
    expect(progress.close(10_000 + GRACE)).toEqual(["import finished: 100 files in 10 s: 90 imported, 9 skipped, 1 failed"])
    expect(progress.snapshot(10_000 + GRACE, 0)).toMatchObject({ running: false, done: 0, total: 0, words: "" })
  })

  it("a lone file gets no batch lines; a second one within the grace time continues its batch, one after it starts a new count", () => {
    const progress = new ImportBatch(GRACE)
    expect(progress.taken(0, 1)).toEqual([])
    expect(progress.handledOne(10, "success", 0)).toEqual([])
    expect(progress.close(10 + GRACE)).toEqual([])
    expect(progress.taken(10 + GRACE, 1)).toEqual([])
    expect(progress.handledOne(10 + GRACE + 100, "success", 0)).toEqual([])
    // an upload after another: the same import
    expect(progress.taken(10 + GRACE + 1_000, 2)).toEqual(["2 more files queued for import: 3 in all"])
    expect(progress.snapshot(10 + GRACE + 1_000, 2)).toMatchObject({ running: true, done: 1, total: 3 })
    expect(progress.handledOne(10 + GRACE + 1_100, "success", 1)).toEqual([])
    expect(progress.handledOne(10 + GRACE + 1_200, "skipped", 0)).toEqual([])
    // a file taken once the grace time is past: the summary of the batch over, and a new count
    expect(progress.taken(10 + 3 * GRACE, 1)).toEqual(["import finished: 3 files in 1 s: 2 imported, 1 skipped, 0 failed"])
    expect(progress.snapshot(10 + 3 * GRACE, 1)).toMatchObject({ running: true, done: 0, total: 1 })
  })

  it("files arriving in two waves with the queue empty between them: one count that never goes backwards, the idle time left out of the rate", () => {
    const batch = new ImportBatch(GRACE)
    const seen: Array<ReturnType<ImportBatch["snapshot"]>> = []
    const lines: Array<string> = []
    // 50 files, one every 200 ms
    lines.push(...batch.taken(0, 50))
    for (let i = 1; i <= 50; i++) {
      lines.push(...batch.handledOne(i * 200, "success", 50 - i))
      seen.push(batch.snapshot(i * 200 + 100, 50 - i))
      if (i < 50) lines.push(...batch.taken(i * 200, 50 - i))
    }
    expect(seen.at(-1)).toMatchObject({ running: false, done: 50, total: 50, secondsLeft: null })
    // 3 s later (within the grace time) 12 more arrive: 50 of 62, not 0 of 12
    lines.push(...batch.taken(13_000, 12))
    seen.push(batch.snapshot(13_000, 12))
    expect(seen.at(-1)).toMatchObject({ running: true, done: 50, total: 62, filesPerSecond: 5 })
    // counted down from the moment they arrived, at the rate of the busy time: 12 files at 5/s
    expect(seen.at(-1)!.secondsLeft).toBe(2)
    for (let i = 1; i <= 12; i++) {
      lines.push(...batch.handledOne(13_000 + i * 200, i === 12 ? "failed" : "success", 12 - i))
      seen.push(batch.snapshot(13_000 + i * 200 + 50, 12 - i))
      if (i < 12) lines.push(...batch.taken(13_000 + i * 200, 12 - i))
    }
    neverBackwards(seen)
    expect(seen.at(-1)).toMatchObject({ running: false, done: 62, total: 62, imported: 61, failed: 1, secondsLeft: null })
    lines.push(...batch.close(15_400 + GRACE))
    expect(lines.filter((l) => !l.startsWith("importing:"))).toEqual([
      "50 files queued for import",
      "12 more files queued for import: 62 in all",
      // the busy time: 10 s and 2.4 s, without the 3 s between the waves
      "import finished: 62 files in 12 s: 61 imported, 0 skipped, 1 failed"
    ])
  })

  it("the time left counts down from the last file done, and is never promised once past", () => {
    const batch = new ImportBatch(GRACE)
    batch.taken(0, 10)
    for (let i = 1; i <= 5; i++) batch.handledOne(i * 1_000, "success", 10 - i)
    // 1 file/s, 5 waiting
    expect(batch.snapshot(5_000, 5)).toMatchObject({ done: 5, total: 10, secondsLeft: 5 })
    expect(batch.snapshot(7_000, 5)).toMatchObject({ done: 5, total: 10, secondsLeft: 3 })
    // the sixth file takes longer than the rest together: no time promised past the estimate
    const late = batch.snapshot(30_000, 5)
    expect(late.secondsLeft).toBeNull()
    expect(late.words).toBe("5 of 10 files done")
    batch.handledOne(31_000, "success", 4)
    expect(batch.snapshot(31_000, 4).done).toBe(6)
  })

  it("a name that leaves without a row (gone, an archive unpacked) counts as done, so that the total never drops; the summary says so", () => {
    const batch = new ImportBatch(GRACE)
    expect(batch.taken(0, 3)).toEqual(["3 files queued for import"])
    expect(batch.handledOne(100, "success", 2)).toEqual([])
    expect(batch.handledOne(200, "other", 1)).toEqual([])
    expect(batch.snapshot(200, 1)).toMatchObject({ done: 2, total: 3, imported: 1 })
    // a name handed back to be tried again still waits: nothing done
    expect(batch.handledOne(250, null, 1)).toEqual([])
    expect(batch.snapshot(250, 1)).toMatchObject({ done: 2, total: 3 })
    expect(batch.handledOne(300, "success", 0)).toEqual([])
    expect(batch.close(300 + GRACE)).toEqual(["import finished: 3 files in 1 s: 2 imported, 0 skipped, 0 failed, 1 without a row of its own (an archive unpacked, a file gone)"])
  })

  it("a moment where a name has left the queue before its file is counted does not lower the total", () => {
    const batch = new ImportBatch(GRACE)
    batch.taken(0, 4)
    expect(batch.snapshot(10, 4).total).toBe(4)
    // asked between the queue's `done` and the worker's `handledOne`
    expect(batch.snapshot(20, 3)).toMatchObject({ done: 0, total: 4 })
    batch.handledOne(20, "success", 3)
    expect(batch.snapshot(30, 3)).toMatchObject({ done: 1, total: 4 })
  })
})
