import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { StoragePaths } from "../platform/StoragePaths.ts"

/**
 * Poison-pill marks: what keeps a file that stopped the daemon from stopping it again. Before
 * the daemon reads a file of the watch folder in its own thread (an archive: its directory,
 * its metadata, its entries), it writes a mark naming it (`files/reading/`); the mark goes
 * once the read's outcome is committed (the archive staged, or its `failed` row written). A
 * mark found at start names a file that was being read when the process died (a crash, running
 * out of memory, a kill): that file is set aside with a `failed` row saying so instead of being
 * read again (ImportService.recoverAtStart), and a mark kept beside its original
 * (`files/poison-pills/<original>`) keeps it from being read again should its row be lost and
 * the original put back into the folder (KeptOriginals.recover). Activity files are parsed in
 * worker threads, whose death the daemon survives, and carry no mark.
 */

/** A live mark: the file of the watch folder it names. */
export interface ReadingMark {
  readonly mark: string
  readonly filename: string
}

export class ReadingMarks extends Effect.Service<ReadingMarks>()("services/import/ReadingMarks", {
  effect: Effect.gen(function*() {
    const paths = yield* StoragePaths

    const markOf = (filename: string) => path.join(paths.readingDir, createHash("sha256").update(filename).digest("hex").slice(0, 32))

    /** Writes the mark of `filename` (its name in the file, written whole before it is named). */
    const mark = (filename: string): void => {
      const file = markOf(filename)
      fs.writeFileSync(`${file}.part`, filename)
      fs.renameSync(`${file}.part`, file)
    }

    /** Runs `read` (the read of the file `filename` and the commit of its outcome) under its mark. */
    const reading = <A, E, R>(filename: string, read: Effect.Effect<A, E, R>) =>
      Effect.acquireUseRelease(
        Effect.sync(() => mark(filename)),
        () => read,
        () => Effect.sync(() => fs.rmSync(markOf(filename), { force: true }))
      )

    /** The marks a stop left: files that were being read when the process died (marks cut short are dropped). */
    const found = (): Array<ReadingMark> => {
      const marks: Array<ReadingMark> = []
      for (const name of fs.readdirSync(paths.readingDir)) {
        const file = path.join(paths.readingDir, name)
        if (name.endsWith(".part")) {
          fs.rmSync(file, { force: true })
          continue
        }
        try {
          marks.push({ mark: file, filename: fs.readFileSync(file, "utf8") })
        } catch {
          // gone meanwhile
        }
      }
      return marks
    }

    /** Drops a live mark once what it names is set aside (or is gone). */
    const clear = (found: ReadingMark): void => fs.rmSync(found.mark, { force: true })

    /** Keeps, beside the original `kept`, why it is never read again. */
    const keepBeside = (kept: string, reason: string): void => fs.writeFileSync(path.join(paths.poisonPillsDir, path.basename(kept)), reason)

    /** Whether the original `kept` stopped the daemon once (see keepBeside). */
    const isPoisonPill = (kept: string): boolean => fs.existsSync(path.join(paths.poisonPillsDir, path.basename(kept)))

    /** Drops the mark beside `kept` (its original is gone, or put back to be set aside anew). */
    const dropBeside = (kept: string): void => fs.rmSync(path.join(paths.poisonPillsDir, path.basename(kept)), { force: true })

    /** Drops the marks beside originals that are gone (removed with their last row). */
    const sweepBeside = (): void => {
      for (const name of fs.readdirSync(paths.poisonPillsDir)) {
        if (!fs.existsSync(path.join(paths.originalsDir, name))) fs.rmSync(path.join(paths.poisonPillsDir, name), { force: true })
      }
    }

    return { reading, mark, found, clear, keepBeside, isPoisonPill, dropBeside, sweepBeside } as const
  }),
  dependencies: [StoragePaths.Default]
}) {}
