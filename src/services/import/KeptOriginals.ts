import * as SqlClient from "@effect/sql/SqlClient"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as fs from "node:fs"
import * as path from "node:path"
import { pipeline } from "node:stream/promises"
import * as zlib from "node:zlib"
import { inChannel } from "../platform/Logs.ts"
import { StoragePaths } from "../platform/StoragePaths.ts"
import { isGzipped } from "./files/ActivityFileName.ts"
import { FileImportRepo } from "./FileImportRepo.ts"
import { OriginalsDisk } from "./OriginalsDisk.ts"
import { ReadingMarks } from "./ReadingMarks.ts"
import { contentHashOf, fileHolds, SameBytes } from "./SameBytes.ts"
import { WatchDirectory } from "./WatchDirectory.ts"

/**
 * The kept originals (`files/originals`) are the source of truth: the database is computed
 * from them, and can be again. No code path deletes an original that no row names:
 *
 * - beside each original, `files/original-names/<same name>` holds the name of the file it was
 *   (`2023-rides/morning.fit`), written before the original itself;
 * - an original leaves only with its last row: it is set aside (renamed to a dot-name) before
 *   the rows go, removed once they are gone, put back if they stay; a stop in between is put
 *   right at the next start by what the rows say;
 * - at start, an original that no row names is an activity the database lost (a restored
 *   backup older than the originals, a database missing or empty): it goes back into the watch
 *   folder under its name and is imported again, with its row. Only a copy whose import a stop
 *   interrupted (the same bytes still wait in the watch folder under that name), or the same
 *   bytes as an original a row keeps, are not imported twice; one that stopped the daemon once
 *   (a poison-pill mark beside it, ReadingMarks) goes back marked, to be set aside again, not read.
 *
 * A failed import's original may be kept compressed (`.gz` added to a name the file did not
 * have): `restoreTo` gives back the bytes that were dropped.
 */

/** The original of a file could not be copied into storage: the file stays in the watch folder, to be tried again. */
export class OriginalNotKept extends Data.TaggedError("OriginalNotKept")<{
  readonly filename: string
  /** the file system's words (`EACCES: permission denied, ...`) */
  readonly reason: string
}> {}

/** An original an import kept: its name under `files/originals`, and whether this import made it (else another row's, shared). */
export interface KeptCopy {
  readonly name: string
  readonly own: boolean
}

/** Prefix of an original set aside while its rows are deleted. */
const REMOVING = ".removing-"

/** Whether the original `kept` holds the file `filename` compressed by the import (a failure kept small). */
export const compressedByImport = (kept: string, filename: string): boolean => isGzipped(kept) && !isGzipped(filename)

export class KeptOriginals extends Effect.Service<KeptOriginals>()("services/import/KeptOriginals", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const paths = yield* StoragePaths
    const watch = yield* WatchDirectory
    const fileImports = yield* FileImportRepo
    const marks = yield* ReadingMarks
    const sameBytes = yield* SameBytes

    const fileOf = (kept: string) => path.join(paths.originalsDir, path.basename(kept))
    const nameFileOf = (kept: string) => path.join(paths.originalNamesDir, path.basename(kept))
    const asideOf = (kept: string) => path.join(paths.originalsDir, `${REMOVING}${path.basename(kept)}`)

    /** Records the name of the file whose original is about to be kept as `kept` (synchronous: the import's copy follows it). */
    const recordName = (kept: string, filename: string): void => fs.writeFileSync(nameFileOf(kept), filename)

    /** The name of the file `kept` was, when recorded. */
    const nameOf = (kept: string): string | null => {
      try {
        const name = fs.readFileSync(nameFileOf(kept), "utf8")
        return name === "" ? null : name
      } catch {
        return null
      }
    }

    /** Removes a kept copy that no row names (one never committed, or whose last row is gone), and its name. */
    const discard = (kept: string): void => {
      fs.rmSync(fileOf(kept), { force: true })
      fs.rmSync(nameFileOf(kept), { force: true })
    }

    /**
     * Copies `source` (the file `filename`) into storage as `<id>.<extension>`, its name
     * recorded beside it first; a copy that cannot be made dies, leaving no partial copy. A
     * failure's original is kept gzipped, unless it is a compressed file or an archive already,
     * and shares the original of an earlier failure of the same bytes: what failed costs at
     * most about what was dropped.
     */
    const keep = Effect.fn("KeptOriginals.keep")(function*(
      source: string,
      id: string,
      extension: string,
      filename: string,
      failure?: { readonly contentHash: string }
    ) {
      if (failure !== undefined && failure.contentHash !== "") {
        const shared = yield* sameBytes.failedOriginal(failure.contentHash)
        if (shared !== null && fs.existsSync(fileOf(shared))) return { name: shared, own: false } satisfies KeptCopy
      }
      const disk = yield* OriginalsDisk
      // the extension is `fit.gz`, `zip`, ...: a compressed file or an archive is kept as it is
      const compress = failure !== undefined && !/(^|\.)(gz|zip)$/i.test(extension)
      const name = `${id}.${extension}${compress ? ".gz" : ""}`
      const temp = path.join(paths.originalsDir, `.${name}.part`)
      const made = Effect.gen(function*() {
        yield* Effect.sync(() => recordName(name, filename))
        if (compress) yield* Effect.promise(() => disk.compressFile(source, temp))
        else yield* Effect.sync(() => disk.copyFile(source, temp))
        yield* Effect.sync(() => fs.renameSync(temp, fileOf(name)))
      })
      // a full disk leaves a partial copy behind
      yield* made.pipe(Effect.tapDefect(() =>
        Effect.sync(() => {
          fs.rmSync(temp, { force: true })
          discard(name)
        })
      ))
      return { name, own: true } satisfies KeptCopy
    })

    /** `keep`, failing with OriginalNotKept (the file then stays in the watch folder) when the copy cannot be made. */
    const keepOrStay = (source: string, id: string, extension: string, filename: string, failure?: { readonly contentHash: string }) =>
      keep(source, id, extension, filename, failure).pipe(
        Effect.catchAllDefect((defect) => Effect.fail(new OriginalNotKept({ filename, reason: defect instanceof Error ? defect.message : String(defect) })))
      )

    /** Removes the copy an import made, which no row names (`own` false: another row's, left alone). */
    const dropCopy = (copy: KeptCopy | null) =>
      Effect.sync(() => {
        if (copy !== null && copy.own) discard(copy.name)
      })

    const isNamed = (kept: string) =>
      Effect.map(sql<{ n: number }>`SELECT 1 AS n FROM file_imports WHERE original_file = ${kept} LIMIT 1`.pipe(Effect.orDie), (rows) => rows.length > 0)

    /**
     * Runs `remove` (a deletion of rows) with the originals `kept` set aside; once it is done,
     * each original no row names any more is removed and the others are put back (an original
     * shared by two failed rows of the same bytes stays with the other). Should `remove` fail,
     * every one is put back.
     */
    const removingRows = <A, E, R>(kept: ReadonlyArray<string>, remove: Effect.Effect<A, E, R>) =>
      Effect.gen(function*() {
        const aside = yield* Effect.sync(() =>
          kept.filter((name) => {
            try {
              fs.renameSync(fileOf(name), asideOf(name))
              return true
            } catch {
              return false // not there: nothing to keep or remove
            }
          })
        )
        const putBack = (name: string) => Effect.sync(() => fs.renameSync(asideOf(name), fileOf(name)))
        const exit = yield* Effect.exit(remove)
        for (const name of aside) {
          if (Exit.isFailure(exit) || (yield* isNamed(name))) {
            yield* putBack(name)
          } else {
            yield* Effect.sync(() => {
              fs.rmSync(asideOf(name), { force: true })
              fs.rmSync(nameFileOf(name), { force: true })
            })
          }
        }
        return yield* exit
      })

    /** Writes the bytes of the file `filename` kept as `kept` to `target` (unpacked when the import compressed them). */
    const restoreTo = (kept: string, filename: string, target: string) =>
      Effect.promise(() =>
        compressedByImport(kept, filename)
          ? pipeline(fs.createReadStream(fileOf(kept)), zlib.createGunzip(), fs.createWriteStream(target, { flags: "wx" }))
          : fs.promises.copyFile(fileOf(kept), target, fs.constants.COPYFILE_EXCL)
      )

    /** The bytes of the file as dropped, from its kept original. */
    const bytesOf = (kept: string, filename: string) =>
      Effect.promise(async () => {
        const stored = await fs.promises.readFile(fileOf(kept))
        return compressedByImport(kept, filename) ? zlib.gunzipSync(stored) : stored
      })

    /** Whether a regular file of the watch folder waits under `filename`. */
    const waits = (filename: string) => Effect.sync(() => fs.lstatSync(path.join(paths.watchDir, filename), { throwIfNoEntry: false })?.isFile() === true)

    /** Whether a row keeps an original of these bytes that is there. */
    const keptByARow = (contentHash: string) =>
      Effect.map(sameBytes.keptOriginals(contentHash), (kept) => kept.some((name) => fs.existsSync(fileOf(name))))

    /**
     * Puts right what a stop left in the originals folder, then has every original that no row
     * names imported again (see the class). Runs at start, before the import takes files.
     */
    const recover = Effect.fn("KeptOriginals.recover")(function*() {
      const named = yield* fileImports.originalFiles()
      const orphans = yield* Effect.sync(() => {
        const found: Array<{ readonly kept: string; readonly mtimeMs: number }> = []
        for (const entry of fs.readdirSync(paths.originalsDir, { withFileTypes: true })) {
          if (!entry.isFile()) continue
          if (entry.name.startsWith(REMOVING)) {
            // a removal a stop cut short: what the rows say decides
            const kept = entry.name.slice(REMOVING.length)
            if (named.has(kept)) {
              fs.renameSync(asideOf(kept), fileOf(kept))
            } else {
              fs.rmSync(asideOf(kept), { force: true })
              fs.rmSync(nameFileOf(kept), { force: true })
            }
          } else if (entry.name.startsWith(".")) {
            // a copy cut short (`.<name>.part`): never a kept original
            fs.rmSync(path.join(paths.originalsDir, entry.name), { force: true })
          } else if (!named.has(entry.name)) {
            found.push({ kept: entry.name, mtimeMs: fs.statSync(fileOf(entry.name)).mtimeMs })
          }
        }
        // names whose original was never written (a copy that did not start)
        for (const name of fs.readdirSync(paths.originalNamesDir)) {
          if (!fs.existsSync(fileOf(name))) fs.rmSync(nameFileOf(name), { force: true })
        }
        // imported again in the order they were first imported
        return found.sort((a, b) => a.mtimeMs - b.mtimeMs || a.kept.localeCompare(b.kept))
      })
      yield* Effect.sync(marks.sweepBeside)
      if (orphans.length === 0) return 0
      const rows = (yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM file_imports`.pipe(Effect.orDie))[0]?.n ?? 0
      let again = 0
      let interrupted = 0
      for (const { kept } of orphans) {
        const filename = nameOf(kept) ?? kept
        const bytes = yield* bytesOf(kept, filename)
        const hash = contentHashOf(bytes)
        const waiting = yield* waits(filename)
        const poisonPill = marks.isPoisonPill(kept)
        // an import a stop interrupted (its file still waits), or bytes a row keeps already
        if ((waiting && fileHolds(path.join(paths.watchDir, filename), hash)) || (yield* keptByARow(hash))) {
          yield* Effect.sync(() => {
            // the file that waits stopped the daemon: set aside again, not read
            if (poisonPill && waiting) marks.mark(filename)
            marks.dropBeside(kept)
            discard(kept)
          })
          interrupted++
          continue
        }
        const temp = path.join(paths.uploadsDir, `.recover-${kept}`)
        yield* Effect.sync(() => {
          fs.rmSync(temp, { force: true })
          fs.mkdirSync(path.dirname(path.join(paths.watchDir, filename)), { recursive: true })
        })
        yield* restoreTo(kept, filename, temp)
        // marked before it enters the folder: a file that stopped the daemon is set aside again, never read
        const placed = yield* watch.deliver(temp, filename).pipe(
          Effect.tap((placed) => Effect.sync(() => poisonPill && marks.mark(placed))),
          Effect.ensuring(Effect.sync(() => fs.rmSync(temp, { force: true }))),
          Effect.orDie
        )
        // its bytes wait in the watch folder now, to be imported and kept anew
        yield* Effect.sync(() => {
          marks.dropBeside(kept)
          discard(kept)
        })
        if (placed !== undefined) again++
      }
      // said as it is: the database is rebuilt only when it was missing or empty at start
      if (paths.databaseAtStart !== "present" && again > 0) {
        yield* Effect.logError(
          `The database ${paths.databaseFile} was ${paths.databaseAtStart} at start while ${paths.originalsDir} holds ${orphans.length} original files: ` +
            `the database is rebuilt from them (${again} put back into the watch folder, each imported again); ` +
            `if the database is elsewhere (a wrong STORAGE_DIR, a volume not mounted), stop the daemon and put it back.`
        ).pipe(inChannel("daemon"))
      } else if (again > 0) {
        yield* Effect.logWarning(
          `${again} original files in ${paths.originalsDir} had no import row while the database holds ${rows} ` +
            `(imports a stop cut short after their copy was kept, or a database restored from an older backup): each is put back into the watch folder and imported again.`
        ).pipe(inChannel("daemon"))
      }
      if (interrupted > 0) {
        yield* Effect.logInfo(
          `${interrupted} original files in ${paths.originalsDir} were copies kept by imports a stop cut short (their file still waits in the watch folder, or a row keeps the same bytes): removed, nothing is imported twice.`
        ).pipe(inChannel("daemon"))
      }
      return again
    })

    return { keep, keepOrStay, dropCopy, nameOf, removingRows, restoreTo, recover } as const
  }),
  dependencies: [SameBytes.Default]
}) {}
