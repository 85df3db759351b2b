import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as path from "node:path"
import { makeStateFile } from "../kit/StateFile.ts"
import { PolarConfig } from "./PolarConfig.ts"
import type { Exercise } from "./PolarSchemas.ts"

/**
 * `STATE_DIR/ledger.json`: every exercise the connector has seen and what became of it.
 * `pending` (seen, not delivered yet), `delivered`, `skipped` (older than SINCE or not among
 * SPORTS), `failed` (the last attempt failed; tried again until MAX_ATTEMPTS), `no-file` (Polar
 * has no file in any accepted format). Delivered, skipped and no-file entries are final: they
 * are never reconsidered. Deleting the ledger delivers again everything Polar still offers.
 */

export const EXERCISE_STATES = ["pending", "delivered", "skipped", "failed", "no-file"] as const
export type ExerciseState = (typeof EXERCISE_STATES)[number]

export const LedgerEntry = Schema.Struct({
  status: Schema.Literal(...EXERCISE_STATES),
  /** UTC start (ISO), when Polar said */
  startTime: Schema.NullOr(Schema.String),
  uploadTime: Schema.NullOr(Schema.String),
  sport: Schema.NullOr(Schema.String),
  detailedSport: Schema.NullOr(Schema.String),
  attempts: Schema.Number,
  firstSeen: Schema.String,
  lastAttempt: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String),
  /** the name delivered into the watch folder */
  file: Schema.NullOr(Schema.String)
})
export type LedgerEntry = typeof LedgerEntry.Type

export const LedgerContent = Schema.Struct({
  /** SINCE as configured and the instant it was resolved to, the first time it was used */
  since: Schema.NullOr(Schema.Struct({ setting: Schema.String, resolved: Schema.String })),
  lastSuccessfulSync: Schema.NullOr(Schema.String),
  exercises: Schema.Record({ key: Schema.String, value: LedgerEntry })
})
export type Ledger = typeof LedgerContent.Type

export const LEDGER_VERSION = 1
export const emptyLedger: Ledger = { since: null, lastSuccessfulSync: null, exercises: {} }

export const isFinal = (state: ExerciseState): boolean => state === "delivered" || state === "skipped" || state === "no-file"

/** The UTC start of an exercise: Polar gives the local time and the offset in minutes. */
export const startOf = (exercise: Exercise): string | null => {
  if (exercise.start_time === undefined) return null
  const local = Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(exercise.start_time) ? exercise.start_time : `${exercise.start_time}Z`)
  if (Number.isNaN(local)) return null
  return new Date(local - (exercise.start_time_utc_offset ?? 0) * 60_000).toISOString()
}

/** When an entry happened, for ordering and for SINCE: its start, else its upload, else when it was first seen. */
export const timeOf = (entry: LedgerEntry): number =>
  Date.parse(entry.startTime ?? entry.uploadTime ?? entry.firstSeen) || Date.parse(entry.firstSeen)

export const newEntry = (exercise: Exercise, now: string): LedgerEntry => ({
  status: "pending",
  startTime: startOf(exercise),
  uploadTime: exercise.upload_time ?? null,
  sport: exercise.sport ?? null,
  detailedSport: exercise.detailed_sport_info ?? null,
  attempts: 0,
  firstSeen: now,
  lastAttempt: null,
  error: null,
  file: null
})

/** Whether an exercise's sport is among SPORTS (Polar's `sport` or `detailed_sport_info`, any case); all when empty. */
export const sportMatches = (entry: LedgerEntry, sports: ReadonlyArray<string>): boolean =>
  sports.length === 0 ||
  sports.some((s) =>
    [entry.sport, entry.detailedSport].some((value) => value !== null && value.toLowerCase() === s.toLowerCase())
  )

/** Entries still owed a download, oldest first. */
export const candidatesOf = (ledger: Ledger, maxAttempts: number): Array<readonly [string, LedgerEntry]> =>
  Object.entries(ledger.exercises)
    .filter(([, e]) => !isFinal(e.status) && e.attempts < maxAttempts)
    .sort(([a, x], [b, y]) => timeOf(x) - timeOf(y) || a.localeCompare(b))

export type LedgerCounts = Record<ExerciseState, number>

export const countsOf = (ledger: Ledger): LedgerCounts => {
  const counts: LedgerCounts = { pending: 0, delivered: 0, skipped: 0, failed: 0, "no-file": 0 }
  for (const entry of Object.values(ledger.exercises)) counts[entry.status]++
  return counts
}

/** The ledger with one entry replaced; entries are kept sorted by id so that the file reads and diffs well. */
export const withEntry = (ledger: Ledger, id: string, entry: LedgerEntry): Ledger => ({
  ...ledger,
  exercises: Object.fromEntries(Object.entries({ ...ledger.exercises, [id]: entry }).sort(([a], [b]) => a.localeCompare(b)))
})

export class PolarLedger extends Effect.Service<PolarLedger>()("connectors/polar/PolarLedger", {
  effect: Effect.gen(function*() {
    const config = yield* PolarConfig
    return yield* makeStateFile(LedgerContent, {
      file: path.join(config.stateDir, "ledger.json"),
      version: LEDGER_VERSION,
      initial: emptyLedger
    })
  }),
  dependencies: [PolarConfig.Default]
}) {}
