import type * as Duration from "effect/Duration"
import type { FileIdentity } from "./files/FileOnDisk.ts"
import type { StoredStatus } from "./FileImportRepo.ts"

/** What became of one entry of the watch folder: its import row, and the activities it made. */
export interface ImportOutcome {
  readonly fileImportId: string
  readonly status: StoredStatus
  readonly activityIds: ReadonlyArray<string>
  readonly errorMessage: string | null
  /**
   * set when the file failed as truncated while young and stays in the watch folder: look at
   * it again after `after`; `identity` is the file as it was read for the row
   */
  readonly held?: { readonly after: Duration.Duration; readonly identity: FileIdentity }
}

/** A young file that failed as truncated stays in the folder for this many settle times, in case it grows. */
export const FAILED_RECHECK_SETTLES = 10
