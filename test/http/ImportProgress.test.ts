import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { dayStart, fitActivity, freshDaemon, importRows, waitFor } from "../support/ImportHarness.ts"
import { readChannel, send, TestDaemon } from "../support/TestDaemon.ts"

const FILES = 24

interface Progress {
  readonly running: boolean
  readonly done: number
  readonly total: number
  readonly imported: number
  readonly skipped: number
  readonly failed: number
  readonly filesPerSecond: number | null
  readonly secondsLeft: number | null
  readonly words: string
}

const progress = Effect.map(send("GET", "/api/v1/file-imports/progress"), (answer) => {
  expect(answer.status).toBe(200)
  return answer.json as Progress
})

/** Writes the files in a dot-folder and moves them in together, as an archive's files are. */
const dropTogether = (watchDir: string, names: ReadonlyArray<string>, content: (i: number) => Uint8Array | string) => {
  const staging = path.join(watchDir, `.staging-${names[0]}`)
  fs.mkdirSync(staging)
  names.forEach((name, i) => fs.writeFileSync(path.join(staging, name), content(i)))
  for (const name of names) fs.renameSync(path.join(staging, name), path.join(watchDir, name))
}

const logged = Effect.map(readChannel("daemon"), (lines) => lines.map((l) => String(l.message)))
const finishedLines = Effect.map(logged, (lines) => lines.filter((m) => m.startsWith("import finished")))

/** What every answer of one import holds: the files done and the total never drop, no time left once nothing waits. */
const oneImport = (seen: ReadonlyArray<Progress>) => {
  const batch = seen.filter((p) => p.total > 0)
  batch.forEach((p, i) => {
    expect(p.imported + p.skipped + p.failed).toBeLessThanOrEqual(p.done)
    expect(p.done).toBeLessThanOrEqual(p.total)
    if (!p.running) expect(p.secondsLeft).toBeNull()
    if (p.secondsLeft !== null) {
      // counted down from the last file done, at most what the rate gives for the files left; none once past
      expect(p.secondsLeft).toBeGreaterThanOrEqual(1)
      expect(p.secondsLeft).toBeLessThanOrEqual(Math.round((p.total - p.done) / p.filesPerSecond!))
    }
    if (i > 0) {
      const before = batch[i - 1]!
      expect(p.done, JSON.stringify([before, p])).toBeGreaterThanOrEqual(before.done)
      expect(p.total, JSON.stringify([before, p])).toBeGreaterThanOrEqual(before.total)
    }
  })
}

layer(freshDaemon(), { excludeTestServices: true, timeout: 120_000 })("GET /api/v1/file-imports/progress", (it) => {
  it.effect("says how many files of a batch are done, of how many, and the time left, while the log says the same; idle once it is over", () =>
    Effect.gen(function*() {
      const { watchDir } = yield* TestDaemon
      const idle = yield* send("GET", "/api/v1/file-imports/progress")
      expect(idle.status).toBe(200)
      expect(idle.json).toEqual({ running: false, done: 0, total: 0, imported: 0, skipped: 0, failed: 0, filesPerSecond: null, secondsLeft: null, words: "" })

      dropTogether(
        watchDir,
        [...Array.from({ length: FILES }, (_, i) => `ride-${i}.fit`), "broken.fit"],
        (i) => (i < FILES ? fitActivity({ start: dayStart(i), seconds: 3600, step: 2 }) : "not a FIT file")
      )

      const seen: Array<Progress> = []
      yield* waitFor("every row", Effect.gen(function*() {
        const answer = yield* progress
        seen.push(answer)
        return (yield* importRows()).length === FILES + 1 && !answer.running ? true : undefined
      }), { timeout: "60 seconds", interval: "10 millis" })

      const under = seen.filter((p) => p.running && p.done > 0 && p.done < p.total)
      expect(under.length, JSON.stringify(seen.slice(0, 5))).toBeGreaterThan(0)
      for (const p of under) {
        expect(p.total).toBeLessThanOrEqual(FILES + 1)
        expect(p.imported + p.skipped + p.failed).toBe(p.done)
        expect(p.filesPerSecond).toBeGreaterThan(0)
      }
      oneImport(seen)
      expect(Math.max(...seen.map((p) => p.total))).toBe(FILES + 1)
      // nothing waits: the whole count, no time left, for the grace time in which more files would continue it
      expect(seen.at(-1)).toMatchObject({ running: false, done: FILES + 1, total: FILES + 1, secondsLeft: null })
      expect(seen.at(-1)!.words).toBe(`${FILES + 1} of ${FILES + 1} files done`)
      const finished = yield* waitFor("the end of the import", Effect.map(finishedLines, (lines) => (lines.length > 0 ? lines : undefined)), { timeout: "60 seconds" })
      expect(finished).toHaveLength(1)
      expect(finished[0]).toMatch(/^import finished: 25 files in .*: 24 imported, 0 skipped, 1 failed$/)
      expect(yield* progress).toMatchObject({ running: false, done: 0, total: 0, words: "" })
    }))

  it.effect("files arriving in two waves, the queue empty between them, are one import whose count never goes backwards", () =>
    Effect.gen(function*() {
      const { watchDir } = yield* TestDaemon
      const before = (yield* finishedLines).length
      const logBefore = (yield* logged).length
      const FIRST = 16
      const SECOND = 10
      dropTogether(watchDir, Array.from({ length: FIRST }, (_, i) => `wave1-${i}.fit`), (i) => fitActivity({ start: dayStart(100 + i), seconds: 3600, step: 2 }))
      const seen: Array<Progress> = []
      const watch = (until: (p: Progress) => boolean) =>
        waitFor("the progress", Effect.gen(function*() {
          const answer = yield* progress
          seen.push(answer)
          return until(answer) ? answer : undefined
        }), { timeout: "60 seconds", interval: "10 millis" })

      // the first wave is done and nothing waits
      yield* watch((p) => !p.running && p.done === FIRST)
      expect(seen.at(-1)).toMatchObject({ done: FIRST, total: FIRST, secondsLeft: null })
      expect((yield* finishedLines).length).toBe(before)

      // the second wave: it continues the count (16 of 26, never 0 of 10)
      dropTogether(watchDir, Array.from({ length: SECOND }, (_, i) => `wave2-${i}.fit`), (i) => fitActivity({ start: dayStart(200 + i), seconds: 3600, step: 2 }))
      yield* watch((p) => p.total === FIRST + SECOND && !p.running && p.done === FIRST + SECOND)
      const fileRows = Effect.map(importRows(), (rows) => rows.filter((r) => r.filename.startsWith("wave")).length)
      expect(yield* fileRows).toBe(FIRST + SECOND)
      // one idle answer between the waves, and every answer after it continues the same count
      expect(seen.some((p) => p.total === FIRST + SECOND && p.done >= FIRST)).toBe(true)
      oneImport(seen)

      // over once the grace time has passed: one summary that counts both waves, and the log said the second joined
      const finished = yield* waitFor("the end of the import", Effect.map(finishedLines, (lines) => (lines.length > before ? lines.slice(before) : undefined)), {
        timeout: "60 seconds"
      })
      expect(finished).toHaveLength(1)
      expect(finished[0]).toMatch(new RegExp(`^import finished: ${FIRST + SECOND} files in .*: ${FIRST + SECOND} imported, 0 skipped, 0 failed$`))
      // the watcher may see a wave's files in more than one look (a lone first file is not
      // announced; files seen while the queue is busy join without a line): one import began,
      // and the second wave, seen once the queue was empty, joined its count
      const log = (yield* logged).slice(logBefore)
      const queued = log.filter((m) => / queued for import/.test(m))
      expect(queued.filter((m) => /^\d+ files? queued for import$/.test(m)).length, log.join("\n")).toBeLessThanOrEqual(1)
      const inAll = queued.flatMap((m) => /^\d+ more files? queued for import: (\d+) in all$/.exec(m)?.slice(1) ?? []).map(Number)
      expect(inAll.some((total) => total > FIRST), log.join("\n")).toBe(true)
      expect(yield* progress).toMatchObject({ running: false, done: 0, total: 0 })
    }))
})
