import { describe, expect, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ImportRetryPolicy } from "../../../src/services/import/ImportRetryPolicy.ts"
import { OriginalsDisk } from "../../../src/services/import/OriginalsDisk.ts"
import { dayStart, dropFile, fitActivity, freshDaemon, importRows, waitFor } from "../../support/ImportHarness.ts"
import { readChannel, send, TestDaemon } from "../../support/TestDaemon.ts"

/**
 * Files held back by a full disk are still part of the batch: the progress counts them as
 * waiting (the import is running), and the end-of-import line comes once they are imported,
 * counting them; a file removed while it waits for room is no longer waited for: it counts as
 * done (the total never drops) without a row of its own.
 */

/** The disk under files/originals: full (ENOSPC) while `full`. */
const disk = {
  full: false,
  refusals: 0,
  copyFile(from: string, to: string) {
    if (disk.full) {
      disk.refusals++
      throw Object.assign(new Error(`ENOSPC: no space left on device, copyfile '${from}'`), { code: "ENOSPC" })
    }
    fs.copyFileSync(from, to)
  },
  async compressFile(from: string, to: string) {
    disk.copyFile(from, to)
  }
}

/** How long a step may take on a machine shared by many test runs. */
const PATIENCE = { timeout: "120 seconds" } as const

const FAST = { attempts: 3, backoff: () => Duration.millis(100), storageFullDelay: Duration.millis(200) }

const progress = Effect.map(send("GET", "/api/v1/file-imports/progress"), (answer) => {
  expect(answer.status).toBe(200)
  return answer.json as { running: boolean; done: number; total: number; imported: number }
})

const finishedLines = Effect.map(readChannel("daemon"), (lines) => lines.map((l) => l.message).filter((m) => m.startsWith("import finished")))

describe("a full disk and the batch", () => {
  layer(
    freshDaemon().pipe(Layer.provide(Layer.mergeAll(Layer.succeed(ImportRetryPolicy, FAST), Layer.succeed(OriginalsDisk, disk)))),
    { excludeTestServices: true, timeout: 300_000 }
  )((it) => {
    it.effect("files waiting for room count in the progress and the batch is not over; once there is room the end line counts them all", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        disk.full = true
        const names = Array.from({ length: 6 }, (_, i) => `held-${i}.fit`)
        names.forEach((name, i) => dropFile(watchDir, name, fitActivity({ start: dayStart(i + 1), seconds: 600 })))
        // every file refused at least twice: each has waited, out of the queue, for its retry
        yield* waitFor("every file refused twice", Effect.sync(() => (disk.refusals >= 2 * names.length ? true : undefined)), PATIENCE)
        const waiting = yield* progress
        expect(waiting).toMatchObject({ running: true, done: 0, total: 6, imported: 0 })
        expect(yield* finishedLines).toEqual([])
        // one is taken away while it waits: no longer waited for, done without a row
        fs.rmSync(path.join(watchDir, "held-5.fit"))
        const without = yield* waitFor("the batch without the removed file", Effect.map(progress, (p) => (p.done === 1 ? p : undefined)), PATIENCE)
        expect(without).toMatchObject({ running: true, done: 1, total: 6, imported: 0 })
        expect(yield* finishedLines).toEqual([])
        disk.full = false
        const finished = yield* waitFor("the end of the import", Effect.map(finishedLines, (lines) => (lines.length > 0 ? lines : undefined)), PATIENCE)
        expect(finished).toHaveLength(1)
        expect(finished[0]).toMatch(/^import finished: 6 files in .+: 5 imported, 0 skipped, 0 failed, 1 without a row of its own \(an archive unpacked, a file gone\)$/)
        expect((yield* importRows()).map((r) => [r.filename, r.status]).sort()).toEqual(names.slice(0, 5).map((n) => [n, "success"]))
        expect(yield* progress).toMatchObject({ running: false, total: 0 })
      }), 300_000)
  })
})
