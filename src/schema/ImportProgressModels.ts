import * as Schema from "effect/Schema"

/**
 * How far the import of the files in hand has gone: the same figures the daemon log's progress
 * line gives, for the dashboard's import page. A batch is the files handled from the moment the
 * queue stops being empty until it is empty again.
 */
export const ImportProgress = Schema.Struct({
  running: Schema.Boolean.annotations({ description: "Whether files are being imported; the counts are of the batch under way (all zero when none)" }),
  done: Schema.Int.annotations({ description: "Files of the batch handled so far" }),
  total: Schema.Int.annotations({ description: "Files of the batch: handled, being imported and queued (an archive adds its files once unpacked)" }),
  imported: Schema.Int,
  skipped: Schema.Int,
  failed: Schema.Int,
  filesPerSecond: Schema.NullOr(Schema.Number).annotations({ description: "Files handled per second since the batch began; null before the first" }),
  secondsLeft: Schema.NullOr(Schema.Int).annotations({ description: "The time left at that rate; null before the first file is done" }),
  words: Schema.String.annotations({
    description: "The same in the words of the daemon log's progress line (\"50 of 100 files done (10.0 files/s, about 5 s left)\"); empty when no file is being imported"
  })
}).annotations({ identifier: "ImportProgress" })
export type ImportProgress = typeof ImportProgress.Type
