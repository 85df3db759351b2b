import * as Schema from "effect/Schema"

/**
 * How far the import of the files in hand has gone: the same figures the daemon log's progress
 * line gives, for the dashboard's import page. A batch is what a person sees as one import: the
 * files handled from the moment the queue stops being empty until it has stayed empty for a
 * short grace time (files arriving in waves continue it). Within a batch `total` and `done` only
 * grow, and `secondsLeft` is null once nothing waits.
 */
export const ImportProgress = Schema.Struct({
  running: Schema.Boolean.annotations({ description: "Whether files are being imported or wait; the counts are of the batch under way, or of the one just over while it may still continue (running false, done equal to total); all zero when none" }),
  done: Schema.Int.annotations({ description: "Files of the batch handled so far: imported, skipped, failed, or without a row of their own (an archive once unpacked, a file gone before it was read); it only grows" }),
  total: Schema.Int.annotations({ description: "Files of the batch: handled, being imported and queued (an archive adds its files once unpacked, more files arriving add theirs); it only grows" }),
  imported: Schema.Int,
  skipped: Schema.Int,
  failed: Schema.Int,
  filesPerSecond: Schema.NullOr(Schema.Number).annotations({ description: "Files handled per second while the batch was busy (the idle time between its waves left out); null before the first" }),
  secondsLeft: Schema.NullOr(Schema.Int).annotations({ description: "The time left at that rate, counted down from the last file done; null before the first file is done, once nothing waits, or once the estimate is past" }),
  words: Schema.String.annotations({
    description: "The same in the words of the daemon log's progress line (\"50 of 100 files done (10.0 files/s, about 5 s left)\"); empty when no file is being imported"
  })
}).annotations({ identifier: "ImportProgress" })
export type ImportProgress = typeof ImportProgress.Type
