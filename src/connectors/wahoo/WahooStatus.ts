import * as Clock from "effect/Clock"
import * as Cron from "effect/Cron"
import * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { type ConnectorHealth, connectorHealth } from "../kit/ConnectorHealth.ts"
import { windowsStatus } from "../kit/RateLimit.ts"
import { Download, recentDownloads, SyncResult, WithoutFile } from "./SyncHistory.ts"
import { WahooClient } from "./WahooClient.ts"
import { TIME_WINDOWS, WahooConfig } from "./WahooConfig.ts"
import { WahooScheduler } from "./WahooScheduler.ts"
import { WahooSync } from "./WahooSync.ts"

/** `GET /api/status`, and what the dashboard shows. */
export const Status = Schema.Struct({
  authenticated: Schema.Boolean,
  /** Why the stored authorization stopped working, when it did. */
  auth_error: Schema.NullOr(Schema.String),
  cron_expr: Schema.String,
  time_window: Schema.Literal(...TIME_WINDOWS),
  is_syncing: Schema.Boolean,
  last_sync_time: Schema.NullOr(Schema.String),
  next_sync_time: Schema.NullOr(Schema.String),
  /** Set while waiting out a rate limit. */
  backoff_seconds: Schema.Number,
  last_result: Schema.NullOr(SyncResult),
  /** Why the last scheduled or requested sync did not finish; cleared by one that does. */
  last_error: Schema.NullOr(Schema.String),
  total_downloaded: Schema.Number,
  last_sync_history: Schema.Array(Download),
  without_file: Schema.Array(WithoutFile),
  rate_limits: Schema.Array(Schema.Struct({
    window: Schema.String,
    usage: Schema.Number,
    limit: Schema.Number,
    remaining: Schema.Number,
    resetSeconds: Schema.Number
  }))
})
export type Status = typeof Status.Type

export const RECENT_DOWNLOADS = 20

/** What the status page and /healthz both read: the sync's history, the poller's state, the account's. */
const observed = Effect.gen(function*() {
  const client = yield* WahooClient
  const sync = yield* WahooSync
  const scheduler = yield* WahooScheduler
  return {
    config: yield* WahooConfig,
    client,
    sync,
    scheduler,
    history: yield* sync.history,
    poller: yield* scheduler.status,
    problem: yield* client.authProblem,
    connected: yield* client.connected
  }
})

export const currentStatus = Effect.gen(function*() {
  const { client, config, connected, history, poller, problem, sync } = yield* observed
  const now = yield* Clock.currentTimeMillis
  const status: Status = {
    authenticated: connected,
    auth_error: Option.getOrNull(problem),
    cron_expr: config.syncCron,
    time_window: config.timeWindow,
    is_syncing: (yield* sync.isSyncing) || poller.phase === "running",
    last_sync_time: history.last_sync,
    next_sync_time: Option.getOrNull(Option.map(poller.nextRunAt, (d) => new Date(d.epochMillis).toISOString())),
    backoff_seconds: poller.phase === "backingOff" ? Math.round(Duration.toSeconds(poller.backoff)) : 0,
    last_result: history.last_result,
    last_error: Option.getOrNull(poller.lastError),
    total_downloaded: Object.keys(history.downloaded).length,
    last_sync_history: recentDownloads(history, RECENT_DOWNLOADS),
    without_file: Object.values(history.without_file),
    rate_limits: windowsStatus(yield* client.rateLimits, now)
  }
  return status
})

/**
 * `GET /healthz`, as every connector answers it: an account must be connected with tokens
 * Wahoo has not refused, and a sync must have completed within three intervals of SYNC_CRON.
 */
export const currentHealth = Effect.gen(function*() {
  const { config, connected, history, poller, problem, scheduler } = yield* observed
  const recorded = history.last_sync !== null && history.last_result?.status !== "error" ? [Date.parse(history.last_sync)] : []
  return connectorHealth({
    now: yield* Clock.currentTimeMillis,
    startedAt: scheduler.startedAt,
    authorization: connected ? "ok" : Option.isSome(problem) ? "revoked" : "required",
    authorizationProblem: Option.getOrElse(problem, () => "nobody has connected a Wahoo account yet: open the dashboard and use the Connect button"),
    completedSyncs: [...recorded, ...Option.toArray(Option.map(poller.lastSuccessAt, DateTime.toEpochMillis))],
    interval: (reference) => {
      const next = Cron.next(config.cron, new Date(reference))
      return Cron.next(config.cron, next).getTime() - next.getTime()
    }
  }) satisfies ConnectorHealth
})
