import type { StoredStatus } from "../services/import/FileImportRepo.ts"

/**
 * What a person following a bulk import reads in the daemon log: how many files are queued
 * when it begins, a running count with the rate and the time left at most every
 * `REPORT_EVERY_MS`, and a summary once the queue is empty. A batch is the files handled
 * from the moment the queue stops being empty until it is empty again; a lone file (an
 * upload) gets only its own line.
 */
export const REPORT_EVERY_MS = 5_000

type Counts = Record<StoredStatus, number>

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

const duration = (ms: number) => {
  const s = Math.max(1, Math.round(ms / 1000))
  return s < 60 ? `${s} s` : s < 3600 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
}

export class ImportProgress {
  private startedAt: number | null = null
  private lastReportAt = 0
  private announced = false
  private counts: Counts = { success: 0, skipped: 0, failed: 0 }
  private handled = 0

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

  /** A file is handled (`status` null: it vanished or stopped unexpectedly); `waiting` files are left. Returns the lines to log. */
  handledOne(now: number, status: StoredStatus | null, waiting: number): ReadonlyArray<string> {
    if (this.startedAt === null) return []
    this.handled++
    if (status !== null) this.counts[status]++
    const elapsed = now - this.startedAt
    if (waiting === 0) {
      const lines = this.announced
        ? [`import finished: ${plural(this.handled, "file")} in ${duration(elapsed)}: ${this.counts.success} imported, ${this.counts.skipped} skipped, ${this.counts.failed} failed`]
        : []
      this.reset()
      return lines
    }
    if (!this.announced || now - this.lastReportAt < REPORT_EVERY_MS) return []
    this.lastReportAt = now
    const rate = this.handled / Math.max(elapsed / 1000, 0.001)
    const total = this.handled + waiting
    return [`importing: ${this.handled} of ${total} files done (${rate.toFixed(1)} files/s, about ${duration(waiting / rate * 1000)} left)`]
  }

  private reset() {
    this.startedAt = null
    this.announced = false
    this.counts = { success: 0, skipped: 0, failed: 0 }
    this.handled = 0
  }
}
