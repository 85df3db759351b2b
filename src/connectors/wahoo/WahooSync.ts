import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeDelivery } from "../kit/Delivery.ts"
import { RateLimited } from "../kit/RateLimit.ts"
import { WahooClient } from "./WahooClient.ts"
import { type TimeWindow, WahooConfig, windowLength } from "./WahooConfig.ts"
import { CloudError } from "../kit/CloudError.ts"
import { fileNameOf, fileUrlOf, startOf, type Workout } from "./WahooSchemas.ts"
import { type Coverage, makeSyncHistory, type SyncHistory, type SyncResult } from "./SyncHistory.ts"

/**
 * One sync: workouts listed newest first, page by page; each one in the window that is not
 * in the history is downloaded into the watch folder as `<date>_workout_<id>.fit` (written
 * as `.tmp`, then renamed) and recorded at once. Paging stops at the end of the window, at
 * the end of the list, or after a page that reached an already downloaded workout inside the
 * span a finished sync went through (the rest of that page is still checked: it costs no
 * request, and a workout uploaded late sorts below newer ones). A workout without a file is
 * asked about again by the next syncs, and given up after MAX_FILE_ATTEMPTS of them.
 *
 * With VERIFY_FILES_ON_DISK a workout counts as downloaded only while its file is still in
 * the watch folder (off by default: the daemon removes what it imports).
 *
 * One sync at a time: `run` answers None when one is already running.
 */

export const PAGE_SIZE = 50
export const MAX_FILE_ATTEMPTS = 3

const iso = (ms: number) => new Date(ms).toISOString()

/** Whether everything from `start` down to the cutoff was handled by a finished sync. */
const isStopPoint = (coverage: Coverage | null, start: Date | undefined, cutoff: Option.Option<number>): boolean => {
  if (coverage === null || start === undefined) return false
  if (start.getTime() > Date.parse(coverage.until)) return false
  if (coverage.since === null) return true
  return Option.isSome(cutoff) && Date.parse(coverage.since) <= cutoff.value
}

/** The span covered after a sync that ran to its end. */
const coverageAfter = (
  previous: Coverage | null,
  startedAt: number,
  end: "window" | "list" | "known",
  cutoff: Option.Option<number>
): Coverage => {
  const until = iso(Math.max(startedAt, previous === null ? 0 : Date.parse(previous.until)))
  switch (end) {
    case "list":
      return { since: null, until }
    case "known":
      return { since: previous?.since ?? null, until }
    case "window": {
      const since = Option.getOrElse(cutoff, () => 0)
      // the previous span joins on when it reaches the cutoff
      const joined = previous !== null && Date.parse(previous.until) >= since
      if (joined && previous.since === null) return { since: null, until }
      const earliest = joined ? Math.min(since, Date.parse(previous.since!)) : since
      return { since: iso(earliest), until }
    }
  }
}

export class WahooSync extends Effect.Service<WahooSync>()("connectors/wahoo/WahooSync", {
  scoped: Effect.gen(function*() {
    const config = yield* WahooConfig
    const client = yield* WahooClient
    const history = yield* makeSyncHistory(config.stateDir)
    const delivery = yield* makeDelivery({ dir: config.watchDir, onConflict: "skip", temporarySuffix: ".tmp" })
    const lock = yield* Effect.makeSemaphore(1)
    const syncing = yield* Ref.make(false)

    const isKnown = (state: SyncHistory, workout: Workout): boolean => {
      const entry = state.downloaded[String(workout.id)]
      if (entry === undefined) return false
      return !config.verifyFilesOnDisk || fs.existsSync(path.join(config.watchDir, entry.filename))
    }

    const download = (workout: Workout, url: string) =>
      Effect.gen(function*() {
        const name = fileNameOf(workout)
        const published = yield* delivery.deliver(name, client.downloadFile(url))
        const start = startOf(workout)
        const now = yield* Clock.currentTimeMillis
        const id = String(workout.id)
        yield* history.modify((state) => {
          const { [id]: _, ...withoutFile } = state.without_file
          return {
            ...state,
            without_file: withoutFile,
            downloaded: {
              ...state.downloaded,
              [id]: { id, starts: start === undefined ? null : start.toISOString(), filename: name, downloaded_at: iso(now) }
            }
          }
        })
        if (published._tag === "Exists") yield* Effect.logInfo(`${name} is already in the watch folder, waiting for its import`)
        else yield* Effect.logInfo(`downloaded ${name}`)
        return name
      }).pipe(Effect.withSpan("WahooSync.download", { attributes: { workout: String(workout.id) } }))

    /** Notes a workout listed without a file; answers whether it is given up now. */
    const noteWithoutFile = (workout: Workout) =>
      Effect.gen(function*() {
        const id = String(workout.id)
        const now = yield* Clock.currentTimeMillis
        const start = startOf(workout)
        const state = yield* history.modify((state) => {
          const previous = state.without_file[id]
          return {
            ...state,
            without_file: {
              ...state.without_file,
              [id]: {
                id,
                starts: start === undefined ? null : start.toISOString(),
                first_seen: previous?.first_seen ?? iso(now),
                attempts: (previous?.attempts ?? 0) + 1
              }
            }
          }
        })
        return state.without_file[id]!.attempts
      })

    const sync = (window: TimeWindow) =>
      Effect.gen(function*() {
        const startedAt = yield* Clock.currentTimeMillis
        const cutoff = Option.map(windowLength(window), (length) => startedAt - length)
        const downloaded: Array<string> = []
        const errors: Array<string> = []
        let skipped = 0
        let withoutFile = 0
        let failedDownloads = 0
        let processed = 0
        let end: "window" | "list" | "known" | undefined
        for (let page = 1; end === undefined; page++) {
          const { workouts } = yield* client.listWorkouts(page, PAGE_SIZE)
          const state = yield* history.get
          for (const workout of workouts) {
            const start = startOf(workout)
            if (Option.isSome(cutoff) && start !== undefined && start.getTime() < cutoff.value) {
              end = "window"
              break
            }
            processed++
            const id = String(workout.id)
            if (isKnown(state, workout)) {
              skipped++
              if (isStopPoint(state.coverage, start, cutoff)) end = "known"
              continue
            }
            const given = state.without_file[id]
            if (given !== undefined && given.attempts >= MAX_FILE_ATTEMPTS && fileUrlOf(workout) === undefined) {
              withoutFile++
              continue
            }
            const url = fileUrlOf(workout)
            if (url === undefined) {
              withoutFile++
              const attempts = yield* noteWithoutFile(workout)
              const label = fileNameOf(workout)
              errors.push(
                attempts >= MAX_FILE_ATTEMPTS
                  ? `${label}: Wahoo still has no file for this workout after ${attempts} syncs; it is no longer asked for`
                  : `${label}: Wahoo has no file for this workout yet; the next sync asks again`
              )
              continue
            }
            const result = yield* download(workout, url).pipe(
              Effect.map(Option.some),
              // a failed download is reported and retried by the next sync; a rate limit or a
              // refused authorization ends this one
              Effect.catchIf(
                (e): e is Exclude<typeof e, RateLimited> =>
                  !(e instanceof RateLimited) && !(e instanceof CloudError && (e.reason === "Unauthorized" || e.reason === "NotConnected")),
                (e) =>
                  Effect.as(
                    Effect.sync(() => {
                      failedDownloads++
                      errors.push(`${fileNameOf(workout)}: ${e.message}`)
                    }),
                    Option.none<string>()
                  )
              )
            )
            if (Option.isSome(result)) downloaded.push(result.value)
          }
          if (end === undefined && workouts.length < PAGE_SIZE) end = "list"
        }
        const finishedAt = yield* Clock.currentTimeMillis
        const outcome: SyncResult = {
          status: failedDownloads > 0 ? "partial_success" : "success",
          message: downloaded.length === 0
            ? failedDownloads > 0 ? `No new workout downloaded; ${failedDownloads} download(s) failed` : "No new workouts"
            : `Downloaded ${downloaded.length} new workout${downloaded.length === 1 ? "" : "s"}` +
              (failedDownloads > 0 ? `; ${failedDownloads} download(s) failed` : ""),
          new_downloads: downloaded.length,
          skipped,
          without_file: withoutFile,
          total_processed: processed,
          time_window: window,
          errors,
          downloaded,
          timestamp: iso(finishedAt)
        }
        yield* history.modify((state) => ({
          ...state,
          // a failed download leaves a gap: the span is not extended over it
          coverage: failedDownloads > 0 ? state.coverage : coverageAfter(state.coverage, startedAt, end!, cutoff),
          last_sync: iso(finishedAt),
          last_result: outcome
        }))
        yield* Effect.logInfo(`sync (${window}) finished: ${outcome.message}`)
        return outcome
      })

    /** Records a sync that could not finish as the last result, then fails with its error. */
    const recordFailure = (window: TimeWindow) => (error: { readonly message: string }) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const outcome: SyncResult = {
          status: "error",
          message: error.message,
          new_downloads: 0,
          skipped: 0,
          without_file: 0,
          total_processed: 0,
          time_window: window,
          errors: [],
          downloaded: [],
          timestamp: iso(now)
        }
        yield* history.modify((state) => ({ ...state, last_sync: iso(now), last_result: outcome })).pipe(
          Effect.catchAll((e) => Effect.logError(`the sync history could not be saved: ${e.message}`))
        )
      })

    /** Runs one sync unless one is running (None then). */
    const run = Effect.fn("WahooSync.run")(function*(window: TimeWindow) {
      return yield* lock.withPermitsIfAvailable(1)(
        Effect.acquireUseRelease(
          Ref.set(syncing, true),
          () => sync(window).pipe(Effect.tapError(recordFailure(window))),
          () => Ref.set(syncing, false)
        )
      )
    })

    return {
      run,
      isSyncing: Ref.get(syncing),
      history: history.get
    } as const
  })
}) {}
