import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as fs from "node:fs"
import type { EncodedActivityDraft } from "../../schema/ActivityDraft.ts"
import { importSourceOfFormat } from "../../schema/ActivityDraft.ts"
import type { FileImportSource } from "../../schema/ApiModels.ts"
import { formatOf, isZipName } from "./files/ActivityFileName.ts"
import { gunzipActivityFile } from "./archives/GzipFile.ts"
import { ExportMetadata } from "./archives/ExportMetadata.ts"
import { type FileIdentity, identityOf, notRegularReason, readIfPresent, sameIdentity, statIfPresent } from "./files/FileOnDisk.ts"
import { newFileImportId } from "./FileImportRepo.ts"
import { looksTruncated } from "./looksTruncated.ts"
import { ParseWorker } from "./ParseWorker.ts"
import type { ActivityFileError } from "./parsers/ActivityFileError.ts"
import { contentHashOf, SameBytes } from "./SameBytes.ts"
import type { QueuedFile } from "./WatchDirectory.ts"

/**
 * The first stage of an import, which may run ahead of the commits: an entry of the watch
 * folder read (only a regular file, opened without following a link nor waiting on a pipe),
 * hashed and, unless its bytes were imported already (SameBytes), parsed by the parse worker.
 * Writes nothing. What the disk says of the file (what it is, whether it is still the version
 * read) is FileOnDisk's.
 */

/** Larger files are refused before they are read (a 58 MB GPX already exhausts the parse worker's heap). */
export const MAX_IMPORT_FILE_BYTES = 64 * 1024 * 1024

/**
 * The bytes of files read ahead and not yet parsed, in MiB: a bulk import reads the next files
 * while the parse workers are busy, and this bounds what waits in memory (a file takes a MiB
 * for each started MiB of its size; the largest file fits on its own).
 */
export const READ_AHEAD_MIB = 96

/** What the worker made of a file: its activities, or the reason it failed (and whether the file looks cut short). */
export type Parsed =
  | { readonly _tag: "Parsed"; readonly drafts: ReadonlyArray<EncodedActivityDraft> }
  | { readonly _tag: "Failed"; readonly message: string; readonly truncated: boolean }

/** The import row's fields known once the file is read. */
export interface ImportRowStart {
  readonly id: string
  readonly filename: string
  readonly source: FileImportSource
  readonly importedOn: number
  readonly sourceSize: number
  readonly sourceMtime: number
}

/** A file read, hashed and parsed, not yet decided nor written. */
export interface PreparedImport {
  readonly file: QueuedFile
  readonly row: ImportRowStart
  /** empty when the file was too large to read */
  readonly contentHash: string
  /** what the file was when read: it leaves the folder only if it is still that */
  readonly identity: FileIdentity
  /** Unparsed: the bytes were known already, so parsing looked useless; Refused: not a regular file, never read */
  readonly outcome: Parsed | { readonly _tag: "Unparsed" } | { readonly _tag: "Refused"; readonly message: string }
  /** time the worker spent on the file alone, when it parsed it */
  readonly parseMillis: number | null
}

/** The source of an import row of any entry of the watch folder, by its name. */
export const sourceOfName = (filename: string): FileImportSource => {
  const format = formatOf(filename)
  return format !== null ? importSourceOfFormat(format) as FileImportSource : isZipName(filename) ? "zipFile" : "otherFile"
}

/** The start of the import row of the file `filename` as `stat` found it. */
export const rowOf = (filename: string, source: FileImportSource, stat: fs.Stats) =>
  Effect.map(Clock.currentTimeMillis, (now): ImportRowStart => ({
    id: newFileImportId(),
    filename,
    source,
    importedOn: now,
    sourceSize: stat.size,
    sourceMtime: Math.trunc(stat.mtimeMs)
  }))

export class ImportReader extends Effect.Service<ImportReader>()("services/import/ImportReader", {
  effect: Effect.gen(function*() {
    const files = yield* ParseWorker
    const exported = yield* ExportMetadata
    const sameBytes = yield* SameBytes
    const readAhead = yield* Effect.makeSemaphore(READ_AHEAD_MIB)

    /** The worker's outcome for the file's bytes `contentHash`, and the time it spent on it. */
    const parse = (bytes: Uint8Array, contentHash: string, file: QueuedFile) =>
      Effect.gen(function*() {
        const content = yield* Effect.either(gunzipActivityFile(file.filename, bytes, MAX_IMPORT_FILE_BYTES))
        if (Either.isLeft(content)) {
          return { millis: null, outcome: { _tag: "Failed", message: content.left.message, truncated: content.left.truncated } as Parsed }
        }
        // the sport the athlete chose (an export's) is the file's from the start
        const sport = yield* exported.sportOf(file.filename, contentHash)
        const { millis, result } = yield* files.parseTimed(content.right, file.format, file.filename, sport ?? undefined)
        return {
          millis,
          outcome: Either.match(result, {
            onLeft: (e: ActivityFileError): Parsed => ({ _tag: "Failed", message: e.message, truncated: looksTruncated(file.format, content.right) }),
            onRight: (drafts): Parsed => ({ _tag: "Parsed", drafts })
          })
        }
      })

    const fileRow = (file: QueuedFile, stat: fs.Stats) => rowOf(file.filename, importSourceOfFormat(file.format) as FileImportSource, stat)

    /**
     * Reads and hashes the file and, unless its bytes were already imported, has the worker
     * parse it. Writes nothing. Null when the file is gone meanwhile.
     */
    const prepare = Effect.fn("ImportReader.prepare")(function*(file: QueuedFile) {
      const stat = yield* statIfPresent(file.path)
      if (stat === null) return null // gone meanwhile
      if (!stat.isFile()) {
        const outcome = { _tag: "Refused", message: `"${file.filename}": ${notRegularReason(stat)}.` } as const
        return { file, row: yield* fileRow(file, stat), identity: identityOf(stat), contentHash: "", outcome, parseMillis: null } satisfies PreparedImport
      }
      if (stat.size > MAX_IMPORT_FILE_BYTES) {
        const outcome: Parsed = {
          _tag: "Failed",
          message: `"${file.filename}" is too large to import (${stat.size} bytes; at most ${MAX_IMPORT_FILE_BYTES}).`,
          truncated: false
        }
        return { file, row: yield* fileRow(file, stat), identity: identityOf(stat), contentHash: "", outcome, parseMillis: null } satisfies PreparedImport
      }
      // the bytes are held from the read until the worker has them parsed
      return yield* readAhead.withPermits(Math.min(READ_AHEAD_MIB, Math.max(1, Math.ceil(stat.size / 1048576))))(Effect.gen(function*() {
        const read = yield* readIfPresent(file.path)
        if (read === null) return null
        const { bytes } = read
        const row = yield* fileRow(file, read.stat)
        const identity = identityOf(read.stat)
        const contentHash = contentHashOf(bytes)
        // not worth parsing: this very file was committed before a crash, or the same bytes are
        // imported already (the commit asks again, after the files before it)
        const known = yield* sameBytes.known(row, contentHash)
        if (known.committed !== null || known.activity !== null) return { file, row, identity, contentHash, outcome: { _tag: "Unparsed" }, parseMillis: null } satisfies PreparedImport
        const { millis, outcome } = yield* parse(bytes, contentHash, file)
        return { file, row, identity, contentHash, outcome, parseMillis: millis } satisfies PreparedImport
      }))
    })

    /** The file parsed now (its bytes were known when it was prepared, and no longer are); null when it changed since. */
    const parseNow = Effect.fn("ImportReader.parseNow")(function*(prepared: PreparedImport) {
      const read = yield* readIfPresent(prepared.file.path)
      if (read === null || !sameIdentity(identityOf(read.stat), prepared.identity)) return null
      return (yield* parse(read.bytes, prepared.contentHash, prepared.file)).outcome
    })

    /**
     * The file as the commit finds it: `ahead` when it is still what was read, else read again
     * (it was replaced under the same name, or grew); null when it is gone meanwhile.
     */
    const current = Effect.fn("ImportReader.current")(function*(ahead: PreparedImport) {
      const stat = yield* statIfPresent(ahead.file.path)
      if (stat === null) return null
      const unchanged = stat.isFile() === (ahead.outcome._tag !== "Refused") && sameIdentity(identityOf(stat), ahead.identity)
      return unchanged ? ahead : yield* prepare(ahead.file)
    })

    return { prepare, parseNow, current } as const
  }),
  dependencies: [SameBytes.Default]
}) {}
