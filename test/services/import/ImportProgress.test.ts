import { describe, expect, it } from "@effect/vitest"
import { ImportBatch, REPORT_EVERY_MS } from "../../../src/services/import/ImportProgress.ts"

describe("ImportBatch", () => {
  it("a bulk import logs the files queued, a running count with rate and time left at most every few seconds, and a summary", () => {
    const progress = new ImportBatch()
    expect(progress.taken(0, 100)).toBe("100 files queued for import")
    const lines: Array<string> = []
    for (let i = 1; i <= 100; i++) {
      // one file every 100 ms, every tenth skipped, the last failed
      const status = i === 100 ? "failed" : i % 10 === 0 ? "skipped" : "success"
      if (i < 100) expect(progress.taken(i * 100 - 50, 100 - i + 1)).toBeNull()
      lines.push(...progress.handledOne(i * 100, status, 100 - i))
    }
    const running = lines.filter((l) => l.startsWith("importing:"))
    // 10 s of importing, a line at most every 5 s
    expect(running.length).toBeGreaterThanOrEqual(1)
    expect(running.length).toBeLessThanOrEqual(10_000 / REPORT_EVERY_MS)
    expect(running[0]).toBe("importing: 50 of 100 files done (10.0 files/s, about 5 s left)")
    expect(lines.at(-1)).toBe("import finished: 100 files in 10 s: 90 imported, 9 skipped, 1 failed")
  })

  it("a lone file gets no batch lines, and a new batch after an empty queue starts its count afresh", () => {
    const progress = new ImportBatch()
    expect(progress.taken(0, 1)).toBeNull()
    expect(progress.handledOne(10, "success", 0)).toEqual([])
    expect(progress.taken(1_000, 2)).toBe("2 files queued for import")
    expect(progress.handledOne(1_100, "success", 1)).toEqual([])
    expect(progress.handledOne(1_200, "skipped", 0)).toEqual(["import finished: 2 files in 1 s: 1 imported, 1 skipped, 0 failed"])
  })

  it("the time left counts down from the last file done, and is never promised once past", () => {
    const batch = new ImportBatch()
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

  it("a name that vanished (offered again once imported) is no file done: the count is the files'", () => {
    const batch = new ImportBatch()
    expect(batch.taken(0, 3)).toBe("3 files queued for import")
    expect(batch.handledOne(100, "success", 2)).toEqual([])
    expect(batch.handledOne(200, null, 1)).toEqual([])
    expect(batch.snapshot(200, 1)).toMatchObject({ done: 1, total: 2, imported: 1 })
    expect(batch.handledOne(300, "success", 0)).toEqual(["import finished: 2 files in 1 s: 2 imported, 0 skipped, 0 failed"])
  })
})
