import * as Context from "effect/Context"
import * as Duration from "effect/Duration"

/**
 * What the ImportWorker does with a file whose import stopped on an unexpected error (not a
 * problem of the file, which ends as `failed` at once): it is tried `attempts` times in all,
 * `backoff(n)` after the n-th failure, then recorded as `failed` with a reference to the
 * `errors` log. A file that met a full disk is not counted: it stays queued and is tried
 * again after `storageFullDelay`, until there is room. A reference, so that tests can shorten
 * the delays.
 */
export class ImportRetryPolicy extends Context.Reference<ImportRetryPolicy>()("services/import/ImportRetryPolicy", {
  defaultValue: () => ({
    attempts: 3,
    backoff: (failures: number): Duration.Duration => Duration.seconds(2 ** (failures - 1)),
    storageFullDelay: Duration.seconds(30) as Duration.Duration
  })
}) {}
