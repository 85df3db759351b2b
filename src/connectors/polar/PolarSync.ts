import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { gunzipSync } from "node:zlib"
import type { RateLimited } from "../kit/RateLimit.ts"
import type { JsonFileError } from "../kit/JsonFile.ts"
import { type DeliveryError, makeDelivery } from "../kit/Delivery.ts"
import { candidatesOf, type Ledger, type LedgerEntry, newEntry, PolarLedger, sportMatches, timeOf, withEntry } from "./Ledger.ts"
import { PolarAuthorization } from "./PolarAuthorization.ts"
import { type FileFormat, MAX_FILE_BYTES, PolarClient } from "./PolarClient.ts"
import { PolarConfig } from "./PolarConfig.ts"
import { CloudError } from "../kit/CloudError.ts"
import type { StoredToken } from "./PolarTokens.ts"
import { resolveSince } from "./Since.ts"

/**
 * One sync cycle: list the exercises Polar offers, record the new ones (`pending`, or
 * `skipped` when older than SINCE or not among SPORTS), then download the oldest ones still
 * owed, at most MAX_DOWNLOADS_PER_CYCLE with DOWNLOAD_DELAY_SECONDS between them (the rest is
 * the backlog): the .fit file, else the FALLBACK_FORMAT file, else the exercise is `no-file`.
 * A failed download counts an attempt (up to MAX_ATTEMPTS) and the cycle goes on; a rate
 * limit or a refused token ends the cycle. The ledger is written after every exercise,
 * together with its delivery (one uninterruptible step), so a stop at any moment leaves it
 * consistent with the watch folder. A dry run lists what it would do and writes nothing.
 */

export interface CycleReport {
  readonly listed: number
  readonly delivered: number
  readonly failed: number
  readonly skipped: number
  readonly withoutFile: number
  readonly backlog: number
}

/** Nobody has authorized, or Polar refused the stored token and nobody has authorized since. */
export class NotAuthorized extends Data.TaggedError("NotAuthorized")<{ readonly message: string }> {}

/** Failures that concern the whole account, not one exercise: the cycle stops on them. */
const isAccountFailure = (error: CloudError): boolean =>
  error.reason === "Unauthorized" || error.reason === "ConsentRequired"

export type CycleError = NotAuthorized | CloudError | RateLimited | JsonFileError | DeliveryError

const emptyReport: CycleReport = { listed: 0, delivered: 0, failed: 0, skipped: 0, withoutFile: 0, backlog: 0 }

/** Polar describes its TCX as gzipped: the watch folder takes plain files. */
const unpacked = (bytes: Uint8Array): Uint8Array =>
  bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes, { maxOutputLength: MAX_FILE_BYTES }) : bytes

export class PolarSync extends Effect.Service<PolarSync>()("connectors/polar/PolarSync", {
  effect: Effect.gen(function*() {
    const config = yield* PolarConfig
    const client = yield* PolarClient
    const ledgerFile = yield* PolarLedger
    const authorization = yield* PolarAuthorization
    const lastCycle = yield* Ref.make(Option.none<CycleReport>())
    // the watch folder is prepared (created, probed, cleared of unfinished files) once, before the first delivery
    const delivery = yield* Effect.cached(makeDelivery({ dir: config.watchDir, onConflict: config.onConflict }))
    const iso = (ms: number) => new Date(ms).toISOString()

    /** The usable token, or why there is none. */
    const usableToken = Effect.gen(function*() {
      const token = yield* authorization.token.pipe(
        Effect.mapError((e) => new NotAuthorized({ message: `cannot read the stored token: ${e.message}` }))
      )
      const { authorizeUrl } = yield* authorization.view
      const open = authorizeUrl === null ? "run `login`" : `open ${authorizeUrl}`
      if (Option.isNone(token)) return yield* new NotAuthorized({ message: `authorization required: ${open}` })
      if (token.value.revoked !== null) {
        return yield* new NotAuthorized({ message: `Polar refused the stored token (${token.value.revoked.message}); ${open}` })
      }
      return token.value
    })

    /** Records what an account-level refusal means before it ends the cycle. */
    const noteAccountFailure = (token: StoredToken) => (error: CloudError | RateLimited) =>
      error._tag === "CloudError" && error.reason === "Unauthorized"
        ? authorization.markRevoked(token, error.message)
        : error._tag === "CloudError" && error.reason === "ConsentRequired"
        ? authorization.markConsentRequired(error.message)
        : Effect.void

    /** SINCE resolved once; again only when the setting changed since. */
    const sinceOf = (ledger: Ledger, now: number): Ledger =>
      ledger.since !== null && ledger.since.setting === config.since.setting
        ? ledger
        : { ...ledger, since: { setting: config.since.setting, resolved: iso(resolveSince(config.since, now)) } }

    /** Downloads the first format Polar has; None when it has none. */
    const fetchFile = (token: StoredToken, id: string) =>
      Effect.gen(function*() {
        const formats: Array<FileFormat> = config.fallbackFormat === "none" ? ["fit"] : ["fit", config.fallbackFormat]
        for (const format of formats) {
          const bytes = yield* client.downloadFile(token.accessToken, id, format)
          if (Option.isSome(bytes)) {
            const plain = yield* Effect.try({
              try: () => (format === "fit" ? bytes.value : unpacked(bytes.value)),
              catch: () => new CloudError({ reason: "InvalidResponse", message: `the ${format} file of ${id} is a damaged gzip stream` })
            })
            return Option.some({ name: `${id}.${format}`, bytes: plain })
          }
        }
        return Option.none<{ name: string; bytes: Uint8Array }>()
      })

    const cycle = Effect.fn("PolarSync.cycle")(function*(options: { readonly dryRun: boolean }) {
      const dryRun = options.dryRun
      const token = yield* usableToken
      const onAccountFailure = noteAccountFailure(token)

      const exercises = yield* client.listExercises(token.accessToken).pipe(Effect.tapError(onAccountFailure))
      yield* authorization.markOk
      const started = yield* Clock.currentTimeMillis
      let ledger = sinceOf(yield* ledgerFile.get, started)
      const since = Date.parse(ledger.since!.resolved)

      let skipped = 0
      for (const exercise of exercises) {
        if (ledger.exercises[exercise.id] !== undefined) continue
        const entry = newEntry(exercise, iso(started))
        const excluded = timeOf(entry) < since ? "older than SINCE" : !sportMatches(entry, config.sports) ? "not among SPORTS" : null
        if (excluded !== null) {
          skipped++
          yield* Effect.logDebug(`skipping exercise ${exercise.id}: ${excluded}`)
        }
        ledger = withEntry(ledger, exercise.id, excluded === null ? entry : { ...entry, status: "skipped" })
      }
      if (!dryRun) yield* ledgerFile.save(ledger)

      const candidates = candidatesOf(ledger, config.maxAttempts)
      const chosen = candidates.slice(0, config.maxDownloadsPerCycle)
      let report: CycleReport = { ...emptyReport, listed: exercises.length, skipped, backlog: candidates.length - chosen.length }
      yield* Ref.set(lastCycle, Option.some(report))

      if (dryRun) {
        for (const [id] of chosen) yield* Effect.logInfo(`dry run: would download exercise ${id} (${id}.fit, else ${config.fallbackFormat})`)
        yield* Effect.logInfo(`dry run: ${exercises.length} listed, ${chosen.length} to download, ${report.backlog} left for later cycles`)
        return report
      }

      for (const [index, [id, entry]] of chosen.entries()) {
        if (index > 0) yield* Effect.sleep(config.downloadDelay)
        const attemptAt = iso(yield* Clock.currentTimeMillis)
        const attempted: LedgerEntry = { ...entry, attempts: entry.attempts + 1, lastAttempt: attemptAt }
        const fetched = yield* Effect.either(fetchFile(token, id))
        if (fetched._tag === "Left") {
          const error = fetched.left
          if (error._tag === "RateLimited" || isAccountFailure(error)) {
            yield* onAccountFailure(error)
            report = { ...report, backlog: report.backlog + (chosen.length - index) }
            yield* Ref.set(lastCycle, Option.some(report))
            return yield* Effect.fail(error)
          }
          yield* Effect.logWarning(`exercise ${id}: download failed (attempt ${attempted.attempts} of ${config.maxAttempts}): ${error.message}`)
          ledger = withEntry(ledger, id, { ...attempted, status: "failed", error: error.message })
          yield* ledgerFile.save(ledger)
          report = { ...report, failed: report.failed + 1 }
        } else if (Option.isNone(fetched.right)) {
          yield* Effect.logInfo(`exercise ${id}: Polar has no file for it`)
          ledger = withEntry(ledger, id, { ...attempted, status: "no-file", error: null })
          yield* ledgerFile.save(ledger)
          report = { ...report, withoutFile: report.withoutFile + 1 }
        } else {
          const file = fetched.right.value
          // the file and its ledger entry land together: a stop in between would deliver it twice
          const delivered = yield* Effect.uninterruptible(Effect.gen(function*() {
            const published = yield* Effect.flatMap(delivery, (d) => d.deliver(file.name, file.bytes))
            const next = withEntry(ledger, id, { ...attempted, status: "delivered", error: null, file: file.name })
            yield* ledgerFile.save(next)
            return { published, next }
          })).pipe(Effect.either)
          if (delivered._tag === "Left") {
            // the watch folder or the state folder refuses writes: nothing later can succeed either
            yield* Ref.set(lastCycle, Option.some({ ...report, failed: report.failed + 1 }))
            return yield* Effect.fail(delivered.left)
          }
          ledger = delivered.right.next
          yield* Effect.logInfo(
            delivered.right.published._tag === "Exists"
              ? `exercise ${id}: ${file.name} is already in the watch folder; left as it is`
              : `exercise ${id}: delivered ${file.name}`
          )
          report = { ...report, delivered: report.delivered + 1 }
        }
        yield* Ref.set(lastCycle, Option.some(report))
      }

      ledger = { ...ledger, lastSuccessfulSync: iso(yield* Clock.currentTimeMillis) }
      yield* ledgerFile.save(ledger)
      yield* Effect.logInfo(
        `cycle done: ${report.listed} listed, ${report.delivered} delivered, ${report.failed} failed, ` +
          `${report.skipped} skipped, ${report.withoutFile} without file, ${report.backlog} in backlog`
      )
      return report
    })

    return {
      /** Prepares the watch folder now: a folder that cannot be written to fails at start, not at the first download. */
      prepare: Effect.asVoid(delivery),
      cycle: (options: { readonly dryRun: boolean }): Effect.Effect<CycleReport, CycleError> => cycle(options),
      lastCycle: Ref.get(lastCycle)
    } as const
  }),
  dependencies: [PolarConfig.Default, PolarClient.Default, PolarLedger.Default, PolarAuthorization.Default]
}) {}
