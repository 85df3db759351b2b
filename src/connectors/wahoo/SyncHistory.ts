import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as path from "node:path"
import type { JsonFileError } from "../kit/JsonFile.ts"
import { makeStateFile, type StateFile } from "../kit/StateFile.ts"
import { TIME_WINDOWS } from "./WahooConfig.ts"

/**
 * `STATE_DIR/sync_history.json`: what was delivered (by workout id), the workouts the cloud
 * listed without a file, the span of start times a finished sync went through, and the last
 * result. Downloads are recorded one by one as they land, so an interrupted sync loses none.
 */

export const HISTORY_FILE = "sync_history.json"
export const HISTORY_VERSION = 1

export const Download = Schema.Struct({
  id: Schema.String,
  /** The workout's start (ISO), when the cloud gave one. */
  starts: Schema.NullOr(Schema.String),
  filename: Schema.String,
  downloaded_at: Schema.String
})
export type Download = typeof Download.Type

export const WithoutFile = Schema.Struct({
  id: Schema.String,
  starts: Schema.NullOr(Schema.String),
  first_seen: Schema.String,
  /** Syncs that found it without a file; it is given up after MAX_FILE_ATTEMPTS. */
  attempts: Schema.Number
})
export type WithoutFile = typeof WithoutFile.Type

/**
 * Every workout starting from `since` (null: the very first) up to `until` was handled by a
 * sync that ran to its end: a sync may stop early at a known workout inside this span.
 */
export const Coverage = Schema.Struct({
  since: Schema.NullOr(Schema.String),
  until: Schema.String
})
export type Coverage = typeof Coverage.Type

export const SyncResult = Schema.Struct({
  status: Schema.Literal("success", "partial_success", "error"),
  message: Schema.String,
  new_downloads: Schema.Number,
  skipped: Schema.Number,
  without_file: Schema.Number,
  total_processed: Schema.Number,
  time_window: Schema.Literal(...TIME_WINDOWS),
  errors: Schema.Array(Schema.String),
  downloaded: Schema.Array(Schema.String),
  timestamp: Schema.String
})
export type SyncResult = typeof SyncResult.Type

export const SyncHistory = Schema.Struct({
  downloaded: Schema.Record({ key: Schema.String, value: Download }),
  without_file: Schema.optionalWith(Schema.Record({ key: Schema.String, value: WithoutFile }), { default: () => ({}) }),
  coverage: Schema.optionalWith(Schema.NullOr(Coverage), { default: () => null }),
  last_sync: Schema.NullOr(Schema.String),
  last_result: Schema.optionalWith(Schema.NullOr(SyncResult), { default: () => null })
})
export type SyncHistory = typeof SyncHistory.Type

export const EMPTY_HISTORY: SyncHistory = { downloaded: {}, without_file: {}, coverage: null, last_sync: null, last_result: null }

export const makeSyncHistory = (stateDir: string): Effect.Effect<StateFile<SyncHistory>, JsonFileError> =>
  makeStateFile(SyncHistory, { file: path.join(stateDir, HISTORY_FILE), version: HISTORY_VERSION, initial: EMPTY_HISTORY })

/** The most recent downloads, newest first. */
export const recentDownloads = (history: SyncHistory, count: number): ReadonlyArray<Download> =>
  Object.values(history.downloaded)
    .sort((a, b) => b.downloaded_at.localeCompare(a.downloaded_at) || (b.starts ?? "").localeCompare(a.starts ?? ""))
    .slice(0, count)
