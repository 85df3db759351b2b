import { SqlClient } from "@effect/sql"
import { Cause, Clock, Data, Duration, Effect, Either } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { promisify } from "node:util"
import * as zlib from "node:zlib"
import type { EncodedActivityDraft } from "../../schema/ActivityDraft.ts"
import { importSourceOfFormat } from "../../schema/ActivityDraft.ts"
import type { FileImportSource } from "../../schema/ApiModels.ts"
import { formatOf, isGzipped, isZipName } from "./ActivityFileName.ts"
import { ExportMetadata } from "./ExportMetadata.ts"
import { ParseWorker } from "./ParseWorker.ts"
import type { ActivityFileError } from "./parsers/ActivityFileError.ts"
import { ActivityRepo, newActivityId } from "../activities/ActivityRepo.ts"
import { FileImportRepo, newFileImportId, type StoredStatus } from "./FileImportRepo.ts"
import { inChannel } from "../platform/Logs.ts"
import { StoragePaths } from "../platform/StoragePaths.ts"
import { isStorageFull } from "./isStorageFull.ts"
import { repairNote } from "./parsers/repairSamples.ts"
import { KeptOriginals } from "./KeptOriginals.ts"
import { OriginalsDisk } from "./OriginalsDisk.ts"
import { linkRaceLegs } from "./RaceLegs.ts"
import { type QueuedFile, WatchDirectory } from "./WatchDirectory.ts"
import { type FileIdentity, identityOf, sameIdentity } from "./FileIdentity.ts"
import { looksTruncated } from "./looksTruncated.ts"
import { AppConfig } from "../platform/AppConfig.ts"

/**
 * Imports one file of the watch folder: it ends as an activity (`success`), a duplicate
 * (`skipped`) or a failure with its reason (`failed`). Two stages: `prepare` (read, hash,
 * parse in the worker; writes nothing) may run ahead, `commit` decides against what is
 * committed by then and runs one file at a time. The row and the activity are written in one
 * transaction; the original bytes are kept first; the file leaves the watch folder only after
 * the commit. A crash at any point leaves the file in place, and the restart recognises a file
 * whose row was already committed. `abandon` records a file that could not be stored at all
 * (the ImportWorker's retries ran out) as `failed`, `refuseArchive` a zip that was not unpacked.
 *
 * Only regular files are read, opened without following a link; a link, a pipe, a socket or a
 * device gets one `failed` row saying so and stays where it is. A file that changes while it
 * is imported (size, modification time or inode) is not taken out of the folder: the watch
 * folder offers it again once it holds still. A file that fails while it is young and looks
 * cut short (a copy that paused longer than the settle time) stays in the folder a while: if
 * it grows meanwhile it is imported again from its whole content, else it leaves then.
 *
 * No file leaves the folder without its complete copy in storage (a `skipped` file of the same
 * bytes as an activity has that activity's): a copy that cannot be made (a full disk, no
 * permission) fails with OriginalNotKept and the file stays. A file leaves by
 * `removeIfUnchanged`: what was renamed over its name meanwhile stays, to be imported.
 */

/** A young file that failed as truncated stays in the folder for this many settle times, in case it grows. */
export const FAILED_RECHECK_SETTLES = 10

/** The original of a file could not be copied into storage: the file stays in the watch folder, to be tried again. */
export class OriginalNotKept extends Data.TaggedError("OriginalNotKept")<{
  readonly filename: string
  /** the file system's words (`EACCES: permission denied, ...`) */
  readonly reason: string
}> {}

/** Larger files are refused before they are read (a 58 MB GPX already exhausts the parse worker's heap). */
export const MAX_IMPORT_FILE_BYTES = 64 * 1024 * 1024

/**
 * The bytes of files read ahead and not yet parsed, in MiB: a bulk import reads the next files
 * while the parse workers are busy, and this bounds what waits in memory (a file takes a MiB
 * for each started MiB of its size; the largest file fits on its own).
 */
export const READ_AHEAD_MIB = 96
/** Duplicate rule: starts within 60 s and overlaps at least 80 % in time. */
export const DUPLICATE_START_WINDOW_MS = 60_000
export const DUPLICATE_MIN_OVERLAP = 0.8

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

/** What the worker made of a file: its activities, or the reason it failed (and whether the file looks cut short). */
type Parsed =
  | { readonly _tag: "Parsed"; readonly drafts: ReadonlyArray<EncodedActivityDraft> }
  | { readonly _tag: "Failed"; readonly message: string; readonly truncated: boolean }

/** The source of an import row of any entry of the watch folder, by its name. */
const sourceOfName = (filename: string): FileImportSource => {
  const format = formatOf(filename)
  return format !== null ? importSourceOfFormat(format) as FileImportSource : isZipName(filename) ? "zipFile" : "otherFile"
}

/** Why an entry of the watch folder that is not a regular file is not read. */
const notRegularReason = (stat: fs.Stats): string =>
  stat.isSymbolicLink()
    ? "a symbolic link is not imported: copy the file itself into the watch folder"
    : stat.isFIFO()
    ? "a named pipe (FIFO) is not imported: copy a regular file into the watch folder"
    : stat.isSocket()
    ? "a socket is not imported: copy a regular file into the watch folder"
    : stat.isBlockDevice() || stat.isCharacterDevice()
    ? "a device is not imported: copy a regular file into the watch folder"
    : "only regular files are imported: copy a regular file into the watch folder"

/** A file read, hashed and parsed, not yet decided nor written. */
export interface PreparedImport {
  readonly file: QueuedFile
  readonly row: {
    readonly id: string
    readonly filename: string
    readonly source: FileImportSource
    readonly importedOn: number
    readonly sourceSize: number
    readonly sourceMtime: number
  }
  /** empty when the file was too large to read */
  readonly contentHash: string
  /** what the file was when read: it leaves the folder only if it is still that */
  readonly identity: FileIdentity
  /** Unparsed: the bytes were known already, so parsing looked useless; Refused: not a regular file, never read */
  readonly outcome: Parsed | { readonly _tag: "Unparsed" } | { readonly _tag: "Refused"; readonly message: string }
  /** time the worker spent on the file alone, when it parsed it */
  readonly parseMillis: number | null
}

const gunzip = promisify(zlib.gunzip)

/** The reason a gzipped file cannot be unpacked, in words for the person who sent it. */
const gunzipProblem = (filename: string, error: unknown): string => {
  const code = (error as NodeJS.ErrnoException).code
  if (code === "ERR_BUFFER_TOO_LARGE") {
    return `"${filename}" is too large to import once unpacked (more than ${MAX_IMPORT_FILE_BYTES} bytes).`
  }
  if (code === "Z_BUF_ERROR") return `"${filename}" is cut short: the gzip file is truncated. Download or copy it again.`
  return `"${filename}" is not a gzip file, though its name ends in .gz: rename it without .gz, or compress it again.`
}

/** The activity file's bytes: unpacked when its name ends in .gz; a gzip that ends early fails as truncated. */
const unpack = (filename: string, bytes: Uint8Array): Effect.Effect<Uint8Array, { readonly message: string; readonly truncated: boolean }> =>
  isGzipped(filename)
    ? Effect.tryPromise({
      try: () => gunzip(bytes, { maxOutputLength: MAX_IMPORT_FILE_BYTES }),
      catch: (error) => ({
        message: gunzipProblem(filename, error),
        truncated: bytes.length === 0 || (error as NodeJS.ErrnoException).code === "Z_BUF_ERROR"
      })
    })
    : Effect.succeed(bytes)

const interval = (d: { readonly startTime: number; readonly elapsedTimeInSeconds: number }) => ({
  start: d.startTime,
  end: d.startTime + Math.max(1, d.elapsedTimeInSeconds) * 1000
})

export const overlapRatio = (a: { start: number; end: number }, b: { start: number; end: number }): number => {
  const shared = Math.min(a.end, b.end) - Math.max(a.start, b.start)
  if (shared <= 0) return 0
  return shared / Math.max(a.end - a.start, b.end - b.start)
}

export class ImportService extends Effect.Service<ImportService>()("services/import/ImportService", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const paths = yield* StoragePaths
    const files = yield* ParseWorker
    const exported = yield* ExportMetadata
    const activities = yield* ActivityRepo
    const fileImports = yield* FileImportRepo
    const watchDirectory = yield* WatchDirectory
    const recheckAfter = Duration.times((yield* AppConfig).watchSettle, FAILED_RECHECK_SETTLES)
    const readAhead = yield* Effect.makeSemaphore(READ_AHEAD_MIB)
    const kept = yield* KeptOriginals

    const duplicateOf = (draft: EncodedActivityDraft) =>
      Effect.gen(function*() {
        const span = interval(draft)
        const candidates = yield* activities.startingBetween(draft.startTime - DUPLICATE_START_WINDOW_MS, draft.startTime + DUPLICATE_START_WINDOW_MS)
        const match = candidates.find((c) =>
          Math.abs(c.start_time - draft.startTime) <= DUPLICATE_START_WINDOW_MS &&
          overlapRatio(span, { start: c.start_time, end: c.start_time + Math.max(1, c.elapsed_time) * 1000 }) >= DUPLICATE_MIN_OVERLAP
        )
        return match?.id ?? null
      })

    /** `"Col du Galibier" of 2026-07-14 at 10:02 (activity-…)`: the activity a person knows, and its id. */
    const describeActivity = (id: string) =>
      Effect.map(activities.findById(id), (activity) =>
        activity === null
          ? `"${id}"`
          : `"${activity.name}" of ${activity.startDateLocal.slice(0, 10)} at ${activity.startDateLocal.slice(11, 16)} ("${id}")`)

    /**
     * Copies `source` (the file `filename`) into storage as `<id>.<extension>`, its name
     * recorded beside it first (KeptOriginals); a copy that cannot be made dies, leaving no
     * partial copy. A failure's (`failed`) is kept gzipped, unless it is a compressed file or
     * an archive already, and shares the original of an earlier failure of the same bytes:
     * what failed costs at most about what was dropped. Answers the original's name and whether
     * this import made it (a shared one is never removed with this import).
     */
    const keepOriginal = (source: string, id: string, extension: string, filename: string, failure?: { readonly contentHash: string }) =>
      Effect.gen(function*() {
        if (failure !== undefined && failure.contentHash !== "") {
          const shared = yield* fileImports.failedOriginalOf(failure.contentHash)
          if (shared !== null && fs.existsSync(path.join(paths.originalsDir, shared))) return { name: shared, own: false }
        }
        const disk = yield* OriginalsDisk
        const compress = failure !== undefined && !/(\.gz|\.zip)$/i.test(extension)
        const name = `${id}.${extension}${compress ? ".gz" : ""}`
        const temp = path.join(paths.originalsDir, `.${name}.part`)
        const made = Effect.gen(function*() {
          yield* Effect.sync(() => kept.recordName(name, filename))
          if (compress) yield* Effect.promise(() => disk.compressFile(source, temp))
          else yield* Effect.sync(() => disk.copyFile(source, temp))
          yield* Effect.sync(() => fs.renameSync(temp, path.join(paths.originalsDir, name)))
        })
        // a full disk leaves a partial copy behind
        yield* made.pipe(Effect.tapDefect(() => Effect.sync(() => {
          fs.rmSync(temp, { force: true })
          kept.discard(name)
        })))
        return { name, own: true }
      })

    /** keepOriginal, failing with OriginalNotKept (the file then stays in the watch folder) when the copy cannot be made. */
    const keepOriginalOrStay = (filename: string, source: string, id: string, extension: string, failure?: { readonly contentHash: string }) =>
      keepOriginal(source, id, extension, filename, failure).pipe(
        Effect.catchAllDefect((defect) =>
          Effect.fail(new OriginalNotKept({ filename, reason: defect instanceof Error ? defect.message : String(defect) }))
        )
      )

    /** Removes the copy this import made, which no row names (`own` false: another row's, left alone). */
    const dropCopy = (original: { readonly name: string; readonly own: boolean } | null) =>
      Effect.sync(() => {
        if (original !== null && original.own) kept.discard(original.name)
      })

    /** The entry itself (a link is not followed); null when it is gone or is a folder. */
    const statIfPresent = (file: string) =>
      Effect.sync(() => {
        try {
          const stat = fs.lstatSync(file)
          return stat.isDirectory() ? null : stat
        } catch {
          return null
        }
      })

    /**
     * The bytes of a regular file and what it was when read (opened without following a link
     * nor waiting on a pipe); null when it is gone or is no longer a regular file.
     */
    const readIfPresent = (file: string) =>
      Effect.sync(() => {
        let fd: number
        try {
          fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK)
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code
          if (code === "ENOENT" || code === "ELOOP" || code === "ENXIO") return null
          throw e
        }
        try {
          const stat = fs.fstatSync(fd)
          return stat.isFile() ? { bytes: fs.readFileSync(fd), stat } : null
        } finally {
          fs.closeSync(fd)
        }
      })

    /** Whether the file is still the one read: a regular file of the same size, modification time and inode. */
    const stillSame = (file: string, identity: FileIdentity) =>
      Effect.map(statIfPresent(file), (stat) => stat !== null && stat.isFile() && sameIdentity(identityOf(stat), identity))

    /**
     * Takes an imported file out of the watch folder if it is still the file `identity`
     * describes (whose copy is in storage); a file renamed over its name meanwhile stays.
     */
    const removeFromWatch = Effect.fn("ImportService.removeFromWatch")(function*(filename: string, identity: FileIdentity) {
      const removal = yield* Effect.sync(() => watchDirectory.takeOut(filename, identity))
      if (removal._tag !== "Replaced") return
      yield* Effect.logInfo(
        `"${filename}" was replaced by another file while it was imported; the new one stays in the watch folder${
          removal.name === filename ? "" : ` as "${removal.name}"`
        } and is imported in turn`
      ).pipe(inChannel("daemon"))
      yield* watchDirectory.settleAgain(removal.name)
    })

    /** The worker's outcome for the file, and the time it spent on it. */
    const parse = (bytes: Uint8Array, file: QueuedFile) =>
      Effect.gen(function*() {
        const content = yield* Effect.either(unpack(file.filename, bytes))
        if (Either.isLeft(content)) {
          return { millis: null, outcome: { _tag: "Failed", message: content.left.message, truncated: content.left.truncated } as Parsed }
        }
        // the sport the athlete chose (a Strava export's) is the file's from the start
        const sport = yield* exported.sportOf(file.filename)
        const { millis, result } = yield* files.parseTimed(content.right, file.format, file.filename, sport)
        return {
          millis,
          outcome: Either.match(result, {
            onLeft: (e: ActivityFileError): Parsed => ({ _tag: "Failed", message: e.message, truncated: looksTruncated(file.format, content.right) }),
            onRight: (drafts): Parsed => ({ _tag: "Parsed", drafts })
          })
        }
      })

    const rowOf = (file: QueuedFile, stat: fs.Stats) =>
      Effect.map(Clock.currentTimeMillis, (now) => ({
        id: newFileImportId(),
        filename: file.filename,
        source: importSourceOfFormat(file.format) as FileImportSource,
        importedOn: now,
        sourceSize: stat.size,
        sourceMtime: Math.trunc(stat.mtimeMs)
      }))

    /**
     * The first stage of an import, which may run ahead of the previous file's commit: reads
     * and hashes the file and, unless its bytes were already imported, has the worker parse it.
     * Writes nothing. Null when the file is gone meanwhile.
     */
    const prepare = Effect.fn("ImportService.prepare")(function*(file: QueuedFile) {
      const stat = yield* statIfPresent(file.path)
      if (stat === null) return null // gone meanwhile
      if (!stat.isFile()) {
        const outcome = { _tag: "Refused", message: `"${file.filename}": ${notRegularReason(stat)}.` } as const
        return { file, row: yield* rowOf(file, stat), identity: identityOf(stat), contentHash: "", outcome, parseMillis: null } satisfies PreparedImport
      }
      if (stat.size > MAX_IMPORT_FILE_BYTES) {
        const outcome: Parsed = {
          _tag: "Failed",
          message: `"${file.filename}" is too large to import (${stat.size} bytes; at most ${MAX_IMPORT_FILE_BYTES}).`,
          truncated: false
        }
        return { file, row: yield* rowOf(file, stat), identity: identityOf(stat), contentHash: "", outcome, parseMillis: null } satisfies PreparedImport
      }
      // the bytes are held from the read until the worker has them parsed
      return yield* readAhead.withPermits(Math.min(READ_AHEAD_MIB, Math.max(1, Math.ceil(stat.size / 1048576))))(Effect.gen(function*() {
        const read = yield* readIfPresent(file.path)
        if (read === null) return null
        const { bytes } = read
        const row = yield* rowOf(file, read.stat)
        const identity = identityOf(read.stat)
        const contentHash = createHash("sha256").update(bytes).digest("hex")
        // not worth parsing: this very file was committed before a crash, or the same bytes are
        // imported already (commit checks both again, after the files before it)
        const known = (yield* fileImports.findCommitted(file.filename, contentHash, row.sourceSize, row.sourceMtime)) !== null ||
          (yield* fileImports.activityWithSameBytes(contentHash)) !== null
        if (known) return { file, row, identity, contentHash, outcome: { _tag: "Unparsed" }, parseMillis: null } satisfies PreparedImport
        const { millis, outcome } = yield* parse(bytes, file)
        return { file, row, identity, contentHash, outcome, parseMillis: millis } satisfies PreparedImport
      }))
    })

    /**
     * The second stage, one file at a time in queue order: decides success, skipped or failed
     * against what is committed by now, writes the row and its activities in one transaction
     * (the original kept first), then removes the file from the watch folder. A copy of the
     * original that cannot be made dies (the ImportWorker tries again): nothing is written.
     */
    const commit = Effect.fn("ImportService.commit")(function*(ahead: PreparedImport) {
      // the file may have been removed, or replaced under the same name, since it was read
      const current = yield* statIfPresent(ahead.file.path)
      if (current === null) return null
      const unchanged = current.isFile() === (ahead.outcome._tag !== "Refused") && sameIdentity(identityOf(current), ahead.identity)
      const prepared = unchanged ? ahead : yield* prepare(ahead.file)
      if (prepared === null) return null
      const { file, row, contentHash, identity, outcome } = prepared

      // a link or a pipe: refused once, left where it is
      if (outcome._tag === "Refused") return yield* refuseNotRegular(file.filename)
      // crash recovery, or a held file looked at again: this very file has its row already
      const committed = yield* fileImports.findCommitted(file.filename, contentHash, row.sourceSize, row.sourceMtime)
      if (committed !== null) {
        yield* removeFromWatch(file.filename, identity)
        yield* Effect.logInfo(`"${file.filename}" was already imported as ${committed}; removed from the watch folder`).pipe(inChannel("daemon"))
        return null
      }
      const changed = Effect.logInfo(`"${file.filename}" changed while it was imported; it is read again once it holds still`).pipe(
        inChannel("daemon"),
        Effect.as(null)
      )
      const extension = `${file.format}${isGzipped(file.filename) ? ".gz" : ""}`

      /**
       * Writes the row (and the activities): `keepCopy` false only for a file of the same bytes
       * as an existing activity, whose original is that activity's; `truncated` when a failure
       * looks like a file cut short, held in the folder while it is young.
       */
      const finish = (
        status: StoredStatus,
        errorMessage: string | null,
        drafts: ReadonlyArray<EncodedActivityDraft>,
        options: {
          readonly keepCopy: boolean
          readonly truncated: boolean
          /** legs of the file's race that duplicate activities stored before, with their ids */
          readonly storedLegs?: ReadonlyArray<{ readonly leg: EncodedActivityDraft; readonly id: string }>
        }
      ) =>
        Effect.gen(function*() {
          const original = options.keepCopy
            ? yield* keepOriginal(file.path, row.id, extension, file.filename, status === "failed" ? { contentHash } : undefined)
            : null
          const originalFile = original?.name ?? null
          // the original kept must be the bytes that were read: a file still being written is not taken
          if (original !== null && !(yield* stillSame(file.path, identity))) {
            yield* dropCopy(original)
            return yield* changed
          }
          const activityIds = drafts.map(() => newActivityId())
          // the legs of a race name each other
          const linked = linkRaceLegs(drafts.map((leg, i) => ({ leg, id: activityIds[i]! })), options.storedLegs)
          // SQLite may roll a transaction back by itself when the database is full; the ROLLBACK
          // that follows then fails too and would hide the full disk: keep that cause in front
          let full: Cause.Cause<unknown> | null = null
          yield* sql.withTransaction(Effect.gen(function*() {
            for (const [i, draft] of linked.entries()) yield* activities.insert(activityIds[i]!, draft)
            yield* fileImports.insert({
              ...row, status, errorMessage, contentHash, originalFile, activityId: activityIds[0] ?? null, activityIds,
              notes: repairNote(drafts.flatMap((draft) => draft.repairs ?? []))
            })
          }).pipe(Effect.tapErrorCause((cause) => Effect.sync(() => {
            if (isStorageFull(cause)) full = cause
          })))).pipe(
            Effect.catchAllCause((cause) => Effect.failCause(full === null ? cause : Cause.sequential(full, cause))),
            Effect.orDie,
            Effect.tapDefect(() => dropCopy(original))
          )
          const outcome: ImportOutcome = { fileImportId: row.id, status, activityIds, errorMessage }
          // what changed after the read is a new version of the file, imported as such once it holds still
          if (!(yield* stillSame(file.path, identity))) return yield* Effect.as(changed, outcome)
          if (status === "failed" && options.truncated && (yield* isYoung(identity))) return { ...outcome, held: { after: recheckAfter, identity } }
          yield* removeFromWatch(file.filename, identity)
          return outcome
        })

      if (outcome._tag === "Failed") return yield* finish("failed", outcome.message, [], { keepCopy: true, truncated: outcome.truncated })
      const sameBytes = yield* fileImports.activityWithSameBytes(contentHash)
      if (sameBytes !== null) {
        return yield* finish("skipped", `Skipped: the same file was already imported as the activity ${yield* describeActivity(sameBytes)}.`, [], {
          keepCopy: false,
          truncated: false
        })
      }
      // the activity with the same bytes was deleted meanwhile: parse now
      let parsed: Parsed
      if (outcome._tag === "Unparsed") {
        const read = yield* readIfPresent(file.path)
        if (read === null || !sameIdentity(identityOf(read.stat), identity)) return yield* changed
        parsed = (yield* parse(read.bytes, file)).outcome
      } else {
        parsed = outcome
      }
      if (parsed._tag === "Failed") return yield* finish("failed", parsed.message, [], { keepCopy: true, truncated: parsed.truncated })
      const drafts = parsed.drafts
      if (drafts.length === 0) return yield* finish("failed", `"${file.filename}" contains no activity.`, [], { keepCopy: true, truncated: false })

      const fresh: Array<EncodedActivityDraft> = []
      const storedLegs: Array<{ readonly leg: EncodedActivityDraft; readonly id: string }> = []
      let firstDuplicate: string | null = null
      for (const draft of drafts) {
        const duplicate = yield* duplicateOf(draft)
        if (duplicate === null) fresh.push(draft)
        else {
          firstDuplicate ??= duplicate
          storedLegs.push({ leg: draft, id: duplicate })
        }
      }
      if (fresh.length === 0) {
        // other bytes than the activity's (another device, another format): kept with its row
        return yield* finish(
          "skipped",
          `Skipped: the activity ${yield* describeActivity(firstDuplicate!)} already covers the same time (another recording of it, starting within 60 s).`,
          [],
          { keepCopy: true, truncated: false }
        )
      }
      return yield* finish("success", null, fresh, { keepCopy: true, truncated: false, storedLegs })
    })

    /** Whether a file of this identity was modified so recently that it may still be being written. */
    const isYoung = (identity: FileIdentity) =>
      Effect.map(Clock.currentTimeMillis, (now) => now - identity.mtimeMs < Duration.toMillis(recheckAfter))

    /**
     * Records a file that could not be stored (its import kept stopping on an unexpected error)
     * as `failed` with `message`, keeping its original bytes, and removes it from the watch
     * folder. Null when the file is gone meanwhile; OriginalNotKept when no copy can be made.
     */
    const abandon = Effect.fn("ImportService.abandon")(function*(file: QueuedFile, message: string) {
      return yield* recordFailed(file.filename, `${file.format}${isGzipped(file.filename) ? ".gz" : ""}`, message, false)
    })

    /**
     * Records a zip of the watch folder that was not unpacked as `failed` with `message`, keeps
     * it as its original and takes it out of the folder, so that it is not tried again; a young
     * zip that looks cut short (`truncated`) is held in the folder a while, in case it grows.
     */
    const refuseArchive = Effect.fn("ImportService.refuseArchive")(function*(filename: string, message: string, truncated: boolean) {
      return yield* recordFailed(filename, "zip", message, truncated)
    })

    /**
     * Records an entry of the watch folder that is not a regular file (a link, a pipe, ...),
     * whatever its name, as `failed`, once: it is never read, and stays where it is. Null when
     * it is a regular file or a folder, is gone, or was recorded already.
     */
    const refuseNotRegular = Effect.fn("ImportService.refuseNotRegular")(function*(filename: string) {
      const stat = yield* statIfPresent(path.join(paths.watchDir, filename))
      if (stat === null || stat.isFile()) return null
      if ((yield* fileImports.findCommitted(filename, "", stat.size, Math.trunc(stat.mtimeMs))) !== null) return null
      const message = `"${filename}": ${notRegularReason(stat)}.`
      const row = { ...yield* rowOf({ filename, format: "fit", path: "", mtimeMs: 0 }, stat), source: sourceOfName(filename) }
      yield* fileImports.insert({ ...row, status: "failed", errorMessage: message, contentHash: "", originalFile: null, activityId: null })
      const outcome: ImportOutcome = { fileImportId: row.id, status: "failed", activityIds: [], errorMessage: message }
      return outcome
    })

    const recordFailed = (filename: string, extension: string, message: string, truncated: boolean) =>
      Effect.gen(function*() {
        const file = path.join(paths.watchDir, filename)
        const stat = yield* statIfPresent(file)
        if (stat === null || !stat.isFile()) return null
        const read = stat.size > MAX_IMPORT_FILE_BYTES ? null : yield* readIfPresent(file).pipe(Effect.catchAllDefect(() => Effect.succeed(null)))
        const identity = identityOf(read?.stat ?? stat)
        const contentHash = read === null ? "" : createHash("sha256").update(read.bytes).digest("hex")
        const row = { ...yield* rowOf({ filename, format: "fit", path: file, mtimeMs: identity.mtimeMs }, read?.stat ?? stat), source: sourceOfName(filename) }
        // a held file looked at again, or recorded before a restart: its row and copy exist
        const committed = yield* fileImports.findCommitted(filename, contentHash, row.sourceSize, row.sourceMtime)
        if (committed !== null) {
          yield* removeFromWatch(filename, identity)
          return null
        }
        const original = yield* keepOriginalOrStay(filename, file, row.id, extension, { contentHash })
        if (!(yield* stillSame(file, identity))) {
          // still being written: recorded once it holds still
          yield* dropCopy(original)
          return null
        }
        yield* fileImports.insert({ ...row, status: "failed", errorMessage: message, contentHash, originalFile: original.name, activityId: null }).pipe(
          Effect.tapDefect(() => dropCopy(original))
        )
        const outcome: ImportOutcome = { fileImportId: row.id, status: "failed", activityIds: [], errorMessage: message }
        if (truncated && (yield* isYoung(identity))) return { ...outcome, held: { after: recheckAfter, identity } }
        yield* removeFromWatch(filename, identity)
        return outcome
      })

    /** Both stages at once: one file end to end. */
    const importFile = (file: QueuedFile) =>
      prepare(file).pipe(Effect.flatMap((prepared) => (prepared === null ? Effect.succeed(null) : commit(prepared))))

    return { prepare, commit, importFile, abandon, refuseArchive, refuseNotRegular, removeFromWatch } as const
  })
}) {}
