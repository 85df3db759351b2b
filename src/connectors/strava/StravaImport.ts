import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { isSportType } from "../../schema/SportType.ts"
import { ActivityRepo } from "../../services/activities/ActivityRepo.ts"
import { ActivityRemoval } from "../../services/activities/ActivityRemoval.ts"
import { GearRepo, platformGearId } from "../../services/activities/GearRepo.ts"
import { ImageStore } from "../../services/activities/ImageStore.ts"
import { inChannel } from "../../services/platform/Logs.ts"
import { type DetailedActivity, type Photo, type RateLimitSnapshot, StravaClient, StravaError } from "./StravaClient.ts"
import { activityIdOf, toActivityDraft } from "./StravaMapping.ts"
import { encodeDraft } from "../../services/activities/StreamsCodec.ts"
import { validateActivity } from "../../services/activities/validateActivity.ts"

/**
 * The externalApi import: a full run lists every activity
 * of the athlete, imports the new ones (detail, streams, photos, gear), refreshes the summary
 * fields of the known ones and deletes the ones no longer listed (never all of them at once);
 * a partial run imports (or re-imports) the given Strava ids. Runs never overlap: the import,
 * the webhook drain and the CLI share one lock.
 *
 * A run never fails: a rate limit ends it with a logged reason, a refused token (401) or an
 * inactive application (403) ends it and sets `status` to Blocked until a run succeeds.
 * Progress lines go to the `daemon` channel.
 */

/** New activities fetched in full per run. */
export const MAX_NEW_ACTIVITIES_PER_RUN = 250

export type BlockedReason = "Unauthorized" | "Inactive" | "NotConfigured"

export type ImportStatus =
  | { readonly _tag: "Ready" }
  | { readonly _tag: "Blocked"; readonly reason: BlockedReason; readonly message: string; readonly since: number }

export type ImportOutcome = "completed" | "rateLimited" | "blocked" | "failed"

export interface ImportReport {
  readonly outcome: ImportOutcome
  /** a one-line summary, also logged */
  readonly message: string
  readonly imported: number
  readonly updated: number
  readonly deleted: number
  readonly skipped: number
  readonly failed: number
  readonly photos: number
}

export interface ImportRequest {
  readonly full: boolean
  readonly ids?: ReadonlyArray<number> | undefined
}

/** Failures that end a run (the rest skip one activity, photo or gear and go on). */
const endsRun = (e: StravaError) =>
  e.reason === "RateLimited" || e.reason === "Unauthorized" || e.reason === "Inactive" || e.reason === "NotConfigured"

const isNotFound = (e: StravaError) => e.reason === "ApiError" && e.status === 404

const log = (message: string) => Effect.logInfo(message).pipe(inChannel("daemon"))
const warn = (message: string) => Effect.logWarning(message).pipe(inChannel("daemon"))

/** `15min 12/200, daily 40/2000` for the overall windows (prefix "") or the read ones ("read-"). */
const usageOf = (snapshot: RateLimitSnapshot, prefix: "" | "read-") => {
  const n = (x: number | undefined) => (x === undefined ? "?" : String(x))
  const window = (name: string) => {
    const w = snapshot.windows.find((w) => w.name === `${prefix}${name}`)
    return `${name} ${n(w?.usage)}/${n(w?.limit)}`
  }
  return `${window("15min")}, ${window("daily")}`
}

/** The full-size URL of a photo: `urls["5000"]`, else the largest size offered. */
export const photoUrlOf = (photo: Photo): string | null => {
  const urls = photo.urls ?? {}
  if (urls["5000"] !== undefined && urls["5000"] !== "") return urls["5000"]
  const sizes = Object.keys(urls).sort((a, b) => Number(b) - Number(a))
  return sizes.length > 0 ? urls[sizes[0]!] ?? null : null
}

export class StravaImport extends Effect.Service<StravaImport>()("connectors/strava/StravaImport", {
  effect: Effect.gen(function*() {
    const client = yield* StravaClient
    const activities = yield* ActivityRepo
    const gearRepo = yield* GearRepo
    const images = yield* ImageStore
    const removal = yield* ActivityRemoval
    const sql = yield* SqlClient.SqlClient
    const lock = yield* Effect.makeSemaphore(1)
    const statusRef = yield* Ref.make<ImportStatus>({ _tag: "Ready" })

    interface Counters {
      imported: number
      updated: number
      deleted: number
      skipped: number
      failed: number
      photos: number
    }

    /** Deletes one activity, its rows and its files, as the API does. */
    const removeActivity = (activityId: string) => removal.remove(activityId)

    /** `gear-<id>` of type imported, fetched once per run; false when it cannot be had. */
    const makeGearCache = () => {
      const known = new Map<string, boolean>()
      return (stravaGearId: string) =>
        Effect.gen(function*() {
          const cached = known.get(stravaGearId)
          if (cached !== undefined) return cached
          const id = platformGearId(stravaGearId)
          const ok = yield* client.getGear(stravaGearId).pipe(
            Effect.flatMap((gear) =>
              gearRepo.upsert({ id, name: gear.name, type: "imported", isRetired: gear.retired === true }).pipe(Effect.as(true))
            ),
            Effect.catchIf((e) => !endsRun(e), (e) =>
              warn(`gear ${stravaGearId} could not be imported: ${e.message}`).pipe(Effect.zipRight(gearRepo.exists(id))))
          )
          known.set(stravaGearId, ok)
          return ok
        })
    }

    const importPhotos = (activityId: string, stravaId: number, counters: Counters) =>
      Effect.gen(function*() {
        const photos = yield* client.getPhotos(stravaId)
        const stored = yield* activities.imageExternalIds(activityId)
        for (const photo of photos) {
          const url = photoUrlOf(photo)
          if (url === null) continue
          const externalId = photo.unique_id ?? url
          if (stored.has(externalId)) continue
          const outcome = yield* client.downloadPhoto(url).pipe(
            Effect.flatMap((bytes) => images.write(bytes)),
            Effect.either
          )
          if (outcome._tag === "Left") {
            const error = outcome.left
            if (error instanceof StravaError && endsRun(error)) return yield* error
            yield* warn(`photo ${externalId} of activity ${stravaId} could not be downloaded: ${error.message}`)
            continue
          }
          if (outcome.right === null) {
            yield* warn(`photo ${externalId} of activity ${stravaId} is not a supported image; skipped`)
            continue
          }
          yield* activities.addImage(activityId, outcome.right.imageId, outcome.right.fileName, externalId)
          stored.add(externalId)
          counters.photos++
        }
      })

    /** Fetches and stores one activity (insert, or replace keeping its images). */
    const importOne = (
      stravaId: number,
      existingId: string | undefined,
      ensureGear: (id: string) => Effect.Effect<boolean, StravaError>,
      counters: Counters
    ) =>
      Effect.gen(function*() {
        const found = yield* client.getActivity(stravaId).pipe(
          Effect.map(Option.some<DetailedActivity>),
          Effect.catchIf(isNotFound, () => Effect.succeed(Option.none<DetailedActivity>()))
        )
        if (Option.isNone(found)) {
          if (existingId !== undefined) {
            yield* removeActivity(existingId)
            counters.deleted++
            yield* log(`activity ${stravaId} no longer exists on Strava: deleted ${existingId}`)
          } else {
            counters.skipped++
            yield* log(`activity ${stravaId} not found on Strava; skipped`)
          }
          return
        }
        const detail = found.value
        if (!isSportType(detail.sport_type)) {
          counters.skipped++
          return yield* log(`activity ${stravaId} has an unknown sport type "${detail.sport_type}"; skipped`)
        }
        const streams = yield* client.getStreams(stravaId).pipe(Effect.catchIf(isNotFound, () => Effect.succeed({})))
        const mapped = toActivityDraft(detail, streams)
        if (mapped._tag === "UnknownSport") {
          counters.skipped++
          return
        }
        let draft = mapped.draft
        if (detail.gear_id !== undefined && detail.gear_id !== "" && !(yield* ensureGear(detail.gear_id))) {
          draft = { ...draft, gearId: null }
        }
        // the same check as a file's activity: an impossible one is not stored
        const checked = validateActivity(draft)
        if (checked._tag === "Impossible") {
          counters.failed++
          return yield* Effect.logError(`activity ${stravaId} cannot be imported: ${checked.reason}`).pipe(inChannel("daemon"))
        }
        const activityId = existingId ?? activityIdOf(stravaId)
        const stored = encodeDraft(checked.draft)
        yield* sql.withTransaction(
          existingId !== undefined
            ? activities.replace(activityId, stored, String(stravaId))
            : activities.insert(activityId, stored, String(stravaId))
        ).pipe(Effect.orDie)
        if (existingId !== undefined) counters.updated++
        else counters.imported++
        yield* log(`${existingId !== undefined ? "updated" : "imported"} activity ${stravaId} "${detail.name}" as ${activityId}`)
        if ((detail.total_photo_count ?? 0) > 0) yield* importPhotos(activityId, stravaId, counters)
      }).pipe(
        Effect.catchIf((e) => !endsRun(e), (e) =>
          Effect.gen(function*() {
            counters.failed++
            yield* Effect.logError(`activity ${stravaId} could not be imported: ${e.message}`).pipe(inChannel("daemon"))
          }))
      )

    const runUnlocked = (request: ImportRequest) =>
      Effect.gen(function*() {
        const counters: Counters = { imported: 0, updated: 0, deleted: 0, skipped: 0, failed: 0, photos: 0 }
        const ensureGear = makeGearCache()
        const what = request.full ? "full import" : `import of ${(request.ids ?? []).length} activities`
        yield* log(`Strava ${what} started`)

        const body = Effect.gen(function*() {
          const held = yield* activities.externalIds()
          if (request.full) {
            const summaries = yield* client.listAllActivities()
            yield* log(`${summaries.length} activities listed on Strava; ${held.size} stored`)
            const fresh: Array<number> = []
            for (const summary of summaries) {
              const existingId = held.get(String(summary.id))
              if (existingId === undefined) {
                if (!isSportType(summary.sport_type)) {
                  counters.skipped++
                  yield* log(`activity ${summary.id} has an unknown sport type "${summary.sport_type}"; skipped`)
                } else {
                  fresh.push(summary.id)
                }
                continue
              }
              // known activity: refresh the summary fields (a custom gear stays when Strava has none)
              const gearOk = summary.gear_id !== undefined && summary.gear_id !== "" ? yield* ensureGear(summary.gear_id) : false
              yield* activities.update(existingId, {
                name: summary.name,
                ...(isSportType(summary.sport_type) ? { sportType: summary.sport_type } : {}),
                ...(gearOk && summary.gear_id !== undefined ? { gearId: platformGearId(summary.gear_id) } : {})
              })
            }
            if (fresh.length > MAX_NEW_ACTIVITIES_PER_RUN) {
              yield* log(
                `${fresh.length} new activities: importing ${MAX_NEW_ACTIVITIES_PER_RUN} now, the rest in the next runs`
              )
            }
            // oldest first, so that a run cut short by a rate limit resumes where it stopped
            const batch = fresh.slice(0, MAX_NEW_ACTIVITIES_PER_RUN).reverse()
            for (const [i, id] of batch.entries()) {
              yield* importOne(id, undefined, ensureGear, counters)
              if ((i + 1) % 25 === 0) yield* log(`${i + 1}/${batch.length} new activities processed`)
            }
            // deletions: only after a complete listing, and never every stored activity at once
            const listed = new Set(summaries.map((s) => String(s.id)))
            const gone = [...held].filter(([externalId]) => !listed.has(externalId))
            if (gone.length > 0 && gone.length === held.size) {
              yield* warn(
                `Strava lists ${summaries.length} activities and none of the ${held.size} stored ones: deleting nothing (refusing to delete every activity)`
              )
            } else {
              for (const [externalId, activityId] of gone) {
                yield* removeActivity(activityId)
                counters.deleted++
                yield* log(`activity ${externalId} is no longer on Strava: deleted ${activityId}`)
              }
            }
          } else {
            for (const id of new Set(request.ids ?? [])) {
              yield* importOne(id, held.get(String(id)), ensureGear, counters)
            }
          }
        })

        const summary = () =>
          `${counters.imported} imported, ${counters.updated} updated, ${counters.deleted} deleted, ${counters.skipped} skipped, ${counters.failed} failed, ${counters.photos} photos`
        const report = (outcome: ImportOutcome, message: string): ImportReport => ({ outcome, message, ...counters })

        return yield* body.pipe(
          Effect.zipRight(Effect.gen(function*() {
            yield* Ref.set(statusRef, { _tag: "Ready" })
            const message = `Strava ${what} finished: ${summary()}`
            yield* log(message)
            const limits = yield* client.rateLimits
            if (Option.isSome(limits)) {
              yield* log(`Strava rate limits: overall ${usageOf(limits.value, "")}; read ${usageOf(limits.value, "read-")}`)
            }
            return report("completed", message)
          })),
          Effect.catchAll((error) =>
            Effect.gen(function*() {
              switch (error.reason) {
                case "RateLimited": {
                  const message = `Strava ${what} stopped: ${error.message}; it resumes on the next run (${summary()})`
                  yield* warn(message)
                  return report("rateLimited", message)
                }
                case "Unauthorized":
                case "Inactive":
                case "NotConfigured": {
                  const since = yield* Clock.currentTimeMillis
                  yield* Ref.set(statusRef, { _tag: "Blocked", reason: error.reason, message: error.message, since })
                  const message = `Strava ${what} stopped: ${error.message} (${summary()})`
                  yield* Effect.logError(message).pipe(inChannel("daemon"))
                  return report("blocked", message)
                }
                default: {
                  const message = `Strava ${what} failed: ${error.message} (${summary()})`
                  yield* Effect.logError(message).pipe(inChannel("daemon"))
                  return report("failed", message)
                }
              }
            })
          )
        )
      })

    /** One import run under the shared lock (waits for a running one to finish). */
    const run = Effect.fn("StravaImport.run")(function*(request: ImportRequest) {
      yield* Effect.annotateCurrentSpan({ full: request.full, ids: (request.ids ?? []).length })
      return yield* lock.withPermits(1)(runUnlocked(request))
    })

    /** Deletes the activities with these external (Strava) ids; call under the lock. */
    const deleteExternal = Effect.fn("StravaImport.deleteExternal")(function*(externalIds: ReadonlyArray<string>) {
      const held = yield* activities.externalIds()
      let deleted = 0
      for (const externalId of new Set(externalIds)) {
        const activityId = held.get(externalId)
        if (activityId === undefined) continue
        yield* removeActivity(activityId)
        deleted++
        yield* log(`activity ${externalId} was deleted on Strava: deleted ${activityId}`)
      }
      return deleted
    })

    return {
      run,
      /** the import without taking the lock (for callers already holding it) */
      runUnlocked: (request: ImportRequest) => runUnlocked(request).pipe(Effect.withSpan("StravaImport.runUnlocked")),
      deleteExternal,
      /** Runs `effect` holding the import lock; None (without running it) when the lock is taken. */
      tryWithLock: <A, E, R>(effect: Effect.Effect<A, E, R>) => lock.withPermitsIfAvailable(1)(effect),
      withLock: <A, E, R>(effect: Effect.Effect<A, E, R>) => lock.withPermits(1)(effect),
      status: Ref.get(statusRef)
    } as const
  })
}) {}
