import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as path from "node:path"

export class BackupError extends Schema.TaggedError<BackupError>()("BackupError", {
  message: Schema.String
}) {}

export interface BackupResult {
  readonly target: string
  readonly bytes: number
  readonly activities: number
  readonly fileImports: number
  /** when the copied state was read */
  readonly takenAt: Date
}

const fail = (message: string) => new BackupError({ message })

const reason = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

/** Flushes a file or folder to disk, so that a rename over it survives a power cut. */
const fsyncPath = (p: string) => {
  const fd = fs.openSync(p, "r")
  try {
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * A consistent copy of the database while the daemon may be writing to it, through SQLite's
 * online backup API: the pages are copied in one step, inside one read transaction, so the
 * copy is the database as of one commit (a WAL reader never blocks the daemon's writers).
 * The copy is written beside the target, checked (`integrity_check`), switched to a rollback
 * journal so that it is one self-contained file, flushed and only then renamed to `target`;
 * an existing `target` is never replaced.
 */
export const backupDatabase = Effect.fn("DatabaseBackup.backup")(function*(databaseFile: string, target: string) {
  const destination = path.resolve(target)
  yield* Effect.annotateCurrentSpan({ "backup.target": destination })
  if (!fs.existsSync(databaseFile)) {
    return yield* fail(`there is no database at ${databaseFile}: is STORAGE_DIR the daemon's storage folder?`)
  }
  if (fs.existsSync(destination)) {
    return yield* fail(`${destination} already exists: choose a new file name, a backup is never overwritten`)
  }
  yield* Effect.try({
    try: () => fs.mkdirSync(path.dirname(destination), { recursive: true }),
    catch: (cause) => fail(`cannot create the folder ${path.dirname(destination)}: ${reason(cause)}`)
  })
  const partial = path.join(path.dirname(destination), `.${path.basename(destination)}.part`)
  const removePartial = Effect.sync(() => {
    for (const suffix of ["", "-journal", "-wal", "-shm"]) fs.rmSync(`${partial}${suffix}`, { force: true })
  })
  yield* removePartial

  const source = yield* Effect.acquireRelease(
    Effect.try({
      try: () => {
        const db = new Database(databaseFile, { readonly: true, fileMustExist: true })
        db.pragma("busy_timeout = 5000")
        return db
      },
      catch: (cause) => fail(`cannot open the database ${databaseFile}: ${reason(cause)}`)
    }),
    (db) => Effect.sync(() => db.close())
  )
  const takenAt = new Date()
  yield* Effect.tryPromise({
    // a step of every remaining page: the copy is never restarted by the daemon's writes
    try: () => source.backup(partial, { progress: () => 0x7fffffff }),
    catch: (cause) => fail(`the copy of the database failed: ${reason(cause)}`)
  }).pipe(Effect.tapError(() => removePartial))

  const counts = yield* Effect.try({
    try: () => {
      const copy = new Database(partial, { fileMustExist: true })
      try {
        const integrity = copy.pragma("integrity_check", { simple: true })
        if (integrity !== "ok") throw new Error(`the copy fails its integrity check: ${String(integrity)}`)
        copy.pragma("journal_mode = DELETE")
        return {
          activities: (copy.prepare("SELECT COUNT(*) AS n FROM activities").get() as { n: number }).n,
          fileImports: (copy.prepare("SELECT COUNT(*) AS n FROM file_imports").get() as { n: number }).n
        }
      } finally {
        copy.close()
      }
    },
    catch: (cause) => fail(reason(cause))
  }).pipe(Effect.tapError(() => removePartial))

  yield* Effect.try({
    try: () => {
      fsyncPath(partial)
      try {
        // a link never replaces a file that appeared meanwhile
        fs.linkSync(partial, destination)
        fs.rmSync(partial)
      } catch (cause) {
        if ((cause as NodeJS.ErrnoException).code === "EEXIST") throw new Error(`${destination} appeared meanwhile; the copy is not written`)
        // file systems without hard links (FAT, some network shares)
        fs.renameSync(partial, destination)
      }
      fsyncPath(path.dirname(destination))
    },
    catch: (cause) => fail(`cannot write ${destination}: ${reason(cause)}`)
  }).pipe(Effect.tapError(() => removePartial))

  return { target: destination, bytes: fs.statSync(destination).size, takenAt, ...counts } satisfies BackupResult
}, Effect.scoped)
