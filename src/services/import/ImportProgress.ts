import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { ImportProgress as ImportProgressAnswer } from "../../schema/ImportProgressModels.ts"
import type { StoredStatus } from "./FileImportRepo.ts"
import { ImportQueue } from "./ImportQueue.ts"
import { durationWords, progressWords } from "./progressWords.ts"

/**
 * What a person following a bulk import reads in the daemon log: how many files are queued
 * when it begins, a running count with the rate and the time left at most every
 * `REPORT_EVERY_MS`, and a summary once the queue is empty. A batch is the files handled
 * from the moment the queue stops being empty until it is empty again; a lone file (an
 * upload) gets only its own line. The dashboard's import page shows the same figures
 * (`snapshot`), whenever it asks.
 */
export const REPORT_EVERY_MS = 5_000

type Counts = Record<StoredStatus, number>

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

const IDLE: ImportProgressAnswer = { running: false, done: 0, total: 0, imported: 0, skipped: 0, failed: 0, filesPerSecond: null, secondsLeft: null, words: "" }

export class ImportBatch {
  private startedAt: number | null = null
  private lastReportAt = 0
  private announced = false
  private counts: Counts = { success: 0, skipped: 0, failed: 0 }
  private handled = 0
  /** when the last file was done: the time left counts down from it */
  private lastHandledAt = 0

  /** A file is taken from the queue; `waiting` counts it and every file still queued. Returns the line to log, if any. */
  taken(now: number, waiting: number): string | null {
    if (this.startedAt === null) {
      this.startedAt = now
      this.lastReportAt = now
    }
    if (!this.announced && this.handled + waiting > 1) {
      this.announced = true
      return `${plural(this.handled + waiting, "file")} queued for import`
    }
    return null
  }

  /**
   * A file is handled (`status` null: it vanished, a name offered again once imported, or it
   * stopped unexpectedly and is tried again: no file done); `waiting` files are left. Returns the
   * lines to log.
   */
  handledOne(now: number, status: StoredStatus | null, waiting: number): ReadonlyArray<string> {
    if (this.startedAt === null) return []
    if (status !== null) {
      this.handled++
      this.counts[status]++
      this.lastHandledAt = now
    }
    const elapsed = now - this.startedAt
    if (waiting === 0) {
      const lines = this.announced
        ? [`import finished: ${plural(this.handled, "file")} in ${durationWords(elapsed)}: ${this.counts.success} imported, ${this.counts.skipped} skipped, ${this.counts.failed} failed`]
        : []
      this.reset()
      return lines
    }
    if (!this.announced || now - this.lastReportAt < REPORT_EVERY_MS) return []
    this.lastReportAt = now
    return [`importing: ${this.snapshot(now, waiting).words}`]
  }

  /** The batch's figures at `now`, `waiting` files being imported or queued. */
  snapshot(now: number, waiting: number): ImportProgressAnswer {
    if (this.startedAt === null) return IDLE
    // the rate up to the last file done, and the time left counted down from then: a file that
    // takes longer than the rate says is never promised a time already past
    const rate = this.handled === 0 ? null : this.handled / Math.max((this.lastHandledAt - this.startedAt) / 1000, 0.001)
    const left = rate === null ? null : Math.round(waiting / rate - (now - this.lastHandledAt) / 1000)
    const figures = {
      done: this.handled,
      total: this.handled + waiting,
      filesPerSecond: rate,
      secondsLeft: left === null || left <= 0 ? null : left
    }
    return {
      running: true,
      ...figures,
      imported: this.counts.success,
      skipped: this.counts.skipped,
      failed: this.counts.failed,
      words: progressWords(figures)
    }
  }

  private reset() {
    this.startedAt = null
    this.announced = false
    this.counts = { success: 0, skipped: 0, failed: 0 }
    this.handled = 0
  }
}

/** The import worker's batch (it counts the files it handles), and what it is now for the API. */
export class ImportProgress extends Effect.Service<ImportProgress>()("services/import/ImportProgress", {
  effect: Effect.gen(function*() {
    const queue = yield* ImportQueue
    const batch = new ImportBatch()
    const current = Effect.fn("ImportProgress.current")(function*() {
      return batch.snapshot(yield* Clock.currentTimeMillis, yield* queue.size)
    })
    return { batch, current } as const
  })
}) {}
