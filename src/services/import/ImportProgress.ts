import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { ImportProgress as ImportProgressAnswer } from "../../schema/ImportProgressModels.ts"
import { AppConfig } from "../platform/AppConfig.ts"
import type { StoredStatus } from "./FileImportRepo.ts"
import { ImportQueue } from "./ImportQueue.ts"
import { durationWords, progressWords } from "./progressWords.ts"

/**
 * What a person following a bulk import reads in the daemon log: how many files are queued
 * when it begins (and how many more join it), a running count with the rate and the time left
 * at most every `REPORT_EVERY_MS`, and a summary once it is over. The dashboard's import page
 * shows the same figures (`snapshot`), whenever it asks.
 *
 * An import is what a person sees as one: files keep arriving in waves (dropped a few at a
 * time, an archive's files settling in the folder once it is unpacked, uploads one after
 * another), and the queue may be empty for a moment between them. So the batch is not over
 * when the queue empties: it stays open for a grace time (`graceMs`), and files taken meanwhile
 * continue it; only once it has been idle that long is it over (`close`), its summary logged,
 * and the next file starts a new count. Within a batch the total only grows and the files done
 * only grow; the time left is null once nothing waits.
 */
export const REPORT_EVERY_MS = 5_000
/** How long an emptied queue keeps its batch open beyond the watch folder's settle time (files still settling belong to it). */
export const CONTINUES_WITHIN_MS = 5_000

/**
 * The batch's grace time beyond the watch folder's settle time: `CONTINUES_WITHIN_MS`, shorter
 * where a test follows a batch to its end and has no waves to wait for.
 */
export class ImportBatchGrace extends Context.Reference<ImportBatchGrace>()("services/import/ImportBatchGrace", {
  defaultValue: (): Duration.Duration => Duration.millis(CONTINUES_WITHIN_MS)
}) {}

/** What became of a name handled: a row of that status, or `other` (an archive once unpacked, a file gone before it was read). */
export type Handled = StoredStatus | "other"

type Counts = Record<Handled, number>

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

const IDLE: ImportProgressAnswer = { running: false, done: 0, total: 0, imported: 0, skipped: 0, failed: 0, filesPerSecond: null, secondsLeft: null, words: "" }

export class ImportBatch {
  private startedAt: number | null = null
  private lastReportAt = 0
  private announced = false
  private counts: Counts = { success: 0, skipped: 0, failed: 0, other: 0 }
  private handled = 0
  /** the most files the batch has counted: the total never drops (a name leaving counts as done, not as less to do) */
  private highest = 0
  /** when the last file was done: the time left counts down from it */
  private lastHandledAt = 0
  /** since when nothing waits (the batch is open for `graceMs` more), or null while files wait */
  private idleSince: number | null = null
  /** the time the batch spent idle between its waves: not part of the rate */
  private idleMs = 0

  /** `graceMs`: how long the batch stays open once nothing waits. */
  constructor(readonly graceMs: number = CONTINUES_WITHIN_MS) {}

  /**
   * A name is taken from the queue; `waiting` counts it and every name still queued. Returns
   * the lines to log: the summary of a batch over by now, the files queued when a batch of more
   * than one begins, or the files that join one.
   */
  taken(now: number, waiting: number): ReadonlyArray<string> {
    const lines = [...this.close(now)]
    if (this.startedAt === null) {
      this.startedAt = now
      this.lastReportAt = now
      this.lastHandledAt = now
    }
    const resumed = this.idleSince !== null
    if (resumed) {
      // the batch continues: its idle time is no part of the rate, and the time left counts from now
      this.idleMs += now - this.idleSince!
      this.lastHandledAt = now
      this.idleSince = null
    }
    const before = this.highest
    const total = this.total(waiting)
    const more = resumed && total > before ? `${plural(total - before, "more file")} queued for import: ${total} in all` : null
    if (!this.announced && total > 1) {
      this.announced = true
      lines.push(more ?? `${plural(total, "file")} queued for import`)
    } else if (this.announced && more !== null) {
      // files arrived after the queue was empty: they join the import under way
      lines.push(more)
    }
    return lines
  }

  /**
   * A name is handled (`what` null: it is to be tried again later and still waits; `other`: it
   * leaves without a row of its own); `waiting` names are left. Returns the lines to log.
   */
  handledOne(now: number, what: Handled | null, waiting: number): ReadonlyArray<string> {
    if (this.startedAt === null) return []
    if (what !== null) {
      this.handled++
      this.counts[what]++
      this.lastHandledAt = now
    }
    this.total(waiting)
    if (waiting === 0) {
      this.idleSince ??= now
      return []
    }
    if (!this.announced || now - this.lastReportAt < REPORT_EVERY_MS) return []
    this.lastReportAt = now
    return [`importing: ${this.snapshot(now, waiting).words}`]
  }

  /**
   * The batch is over if nothing has waited for the grace time by `now`: returns its summary
   * (none for a lone file) and starts the next count afresh.
   */
  close(now: number): ReadonlyArray<string> {
    if (this.startedAt === null || this.idleSince === null || now - this.idleSince < this.graceMs) return []
    const { other, ...rows } = this.counts
    const lines = this.announced
      ? [
        `import finished: ${plural(this.handled, "file")} in ${durationWords(this.busyMs(this.lastHandledAt))}: ${rows.success} imported, ${rows.skipped} skipped, ${rows.failed} failed` +
        (other === 0 ? "" : `, ${other} without a row of ${other === 1 ? "its" : "their"} own (an archive unpacked, a file gone)`)
      ]
      : []
    this.reset()
    return lines
  }

  /** The batch's figures at `now`, `waiting` files being imported or queued. */
  snapshot(now: number, waiting: number): ImportProgressAnswer {
    if (this.startedAt === null || (waiting === 0 && this.idleSince !== null && now - this.idleSince >= this.graceMs)) return IDLE
    const total = this.total(waiting)
    // the rate over the time the batch was busy up to the last file done, and the time left
    // counted down from then: a file that takes longer than the rate says is never promised a
    // time already past, and nothing is promised once nothing waits
    const busy = this.busyMs(this.lastHandledAt)
    const rate = this.handled === 0 ? null : this.handled / Math.max(busy / 1000, 0.001)
    const left = rate === null || waiting === 0 ? null : Math.round(waiting / rate - (now - this.lastHandledAt) / 1000)
    const figures = {
      done: this.handled,
      total,
      filesPerSecond: rate,
      secondsLeft: left === null || left <= 0 ? null : left
    }
    return {
      running: waiting > 0,
      ...figures,
      imported: this.counts.success,
      skipped: this.counts.skipped,
      failed: this.counts.failed,
      words: progressWords(figures)
    }
  }

  /** The files of the batch: handled and waiting, never fewer than it has counted before. */
  private total(waiting: number) {
    this.highest = Math.max(this.highest, this.handled + waiting)
    return this.highest
  }

  private busyMs(until: number) {
    return until - (this.startedAt ?? until) - this.idleMs
  }

  private reset() {
    this.startedAt = null
    this.announced = false
    this.counts = { success: 0, skipped: 0, failed: 0, other: 0 }
    this.handled = 0
    this.highest = 0
    this.idleSince = null
    this.idleMs = 0
  }
}

/**
 * The import worker's batch (it counts the files it handles), and what it is now for the API.
 * The batch stays open for the watch folder's settle time and `ImportBatchGrace` more once
 * the queue is empty: a file that arrives meanwhile is offered within that time.
 */
export class ImportProgress extends Effect.Service<ImportProgress>()("services/import/ImportProgress", {
  effect: Effect.gen(function*() {
    const queue = yield* ImportQueue
    const batch = new ImportBatch(Duration.toMillis((yield* AppConfig).watchSettle) + Duration.toMillis(yield* ImportBatchGrace))
    const current = Effect.fn("ImportProgress.current")(function*() {
      return batch.snapshot(yield* Clock.currentTimeMillis, yield* queue.size)
    })
    return { batch, current } as const
  })
}) {}
