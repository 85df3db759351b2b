import Database from "better-sqlite3"
import { expect } from "@effect/vitest"
import { Effect, type Scope } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { isCandidateName } from "../../src/services/import/WatchDirectory.ts"
import type { ChildDaemon } from "./ChildDaemon.ts"
import { listFiles, type Root } from "./ImportHarness.ts"

/**
 * Helpers of the tests that SIGKILL a daemon (a child process over a temporary root) in the
 * middle of an import and read what it left straight from SQLite.
 */

export const databaseFile = (root: Root) => path.join(root.storageDir, "database", "waymark.sqlite")

/**
 * The connection `count` reads through while `until` polls: opening the database for each
 * poll cost ten times the query (about 0.4 ms every 2 ms, a fifth of a core taken from the
 * daemon under test). Kept for one database file (the same file: a database replaced under its
 * name is opened again), closed when the last wait ends; outside a wait each count opens its own.
 */
interface Reader {
  readonly file: string
  readonly ino: number
  readonly db: Database.Database
  readonly statements: Map<string, Database.Statement>
}
let waits = 0
let reader: Reader | null = null
const closeReader = () => {
  const open = reader
  reader = null
  open?.db.close()
}
const readerOf = (file: string): Reader => {
  const ino = fs.statSync(file).ino
  if (reader !== null && (reader.file !== file || reader.ino !== ino)) closeReader()
  return reader ??= { file, ino, db: new Database(file, { readonly: true, fileMustExist: true }), statements: new Map() }
}

/** The `n` a query answers, read from the daemon's database; 0 while it is being created. */
export const count = (root: Root, query: string): number => {
  if (waits === 0) {
    try {
      const db = new Database(databaseFile(root), { readonly: true, fileMustExist: true })
      try {
        return (db.prepare(query).get() as { n: number }).n
      } finally {
        db.close()
      }
    } catch {
      return 0 // the database is being created
    }
  }
  try {
    const kept = readerOf(databaseFile(root))
    let statement = kept.statements.get(query)
    if (statement === undefined) kept.statements.set(query, statement = kept.db.prepare(query))
    return (statement.get() as { n: number }).n
  } catch {
    closeReader()
    return 0 // the database is being created
  }
}

/** Polls `condition` every 2 ms (a kill must land between two steps); dies with the daemon's output if it exits or time runs out. */
export const until = (what: string, daemon: ChildDaemon, condition: () => boolean, timeoutMs = 120_000) =>
  Effect.acquireUseRelease(
    Effect.sync(() => waits++),
    () =>
      Effect.gen(function*() {
        const deadline = Date.now() + timeoutMs
        while (!condition()) {
          if (daemon.hasExited()) return yield* Effect.dieMessage(`the daemon exited while waiting for ${what}:\n${daemon.output()}`)
          if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}:\n${daemon.output()}`)
          yield* Effect.sleep("2 millis")
        }
      }),
    () =>
      Effect.sync(() => {
        if (--waits === 0) closeReader()
      })
  )

/** The files waiting at the top of the watch folder. */
export const waiting = (root: Root) => listFiles(root.watchDir).filter(isCandidateName)

/**
 * Drops the archive `zip` into the watch folder as `name` and SIGKILLs the daemon twice over:
 * first as soon as its read is over and it is being unpacked into the folder (`kept` answers
 * true: what the export says is kept, its files about to enter the folder; a kill while the
 * archive is read sets it aside, as a file that may have stopped the daemon), then,
 * daemon after daemon, right after the n-th new activity (at once or a few milliseconds later),
 * calling `check` after each kill (it answers how many activities are stored). Answers how many
 * kills landed before the last of `total` activities: the caller wants several, or it proved
 * nothing.
 */
/**
 * Whether the daemon over `root` is reading an archive: a whole poison-pill mark is in
 * `files/reading/` (one still being written, `.part`, is dropped at the next start).
 */
export const archiveBeingRead = (root: Root): boolean => {
  const dir = path.join(root.storageDir, "files", "reading")
  return fs.existsSync(dir) && fs.readdirSync(dir).some((name) => !name.endsWith(".part"))
}

export const killWhileImporting = <E>(options: {
  readonly root: Root
  readonly start: () => Effect.Effect<ChildDaemon, E, Scope.Scope>
  readonly zip: Uint8Array
  readonly name: string
  readonly total: number
  readonly kept: () => boolean
  readonly check: (moment: string) => number
}) =>
  Effect.gen(function*() {
    const { root, start, total } = options
    const activitiesNow = () => count(root, "SELECT COUNT(*) AS n FROM activities")
    let daemon = yield* start()
    fs.writeFileSync(path.join(root.watchDir, `.${options.name}.part`), options.zip)
    fs.renameSync(path.join(root.watchDir, `.${options.name}.part`), path.join(root.watchDir, options.name))
    yield* until("the export unpacked", daemon, options.kept)
    expect(yield* daemon.kill("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" })
    options.check("while the export was unpacked")
    // right after the n-th new activity row: between its commit and whatever follows it. Not
    // while the archive is read again to let in the entries the first kill kept out: a kill
    // then is a kill amid a read, which sets the archive aside as a poison pill (its own test)
    let killedBetween = 0
    for (const [n, delayMs] of [[1, 0], [1, 5], [2, 0]] as const) {
      daemon = yield* start()
      const from = activitiesNow()
      if (from >= total) break
      yield* until(`${n} more activities, no archive being read`, daemon, () => activitiesNow() >= Math.min(total, from + n) && !archiveBeingRead(root))
      if (delayMs > 0) yield* Effect.sleep(delayMs)
      expect(yield* daemon.kill("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" })
      if (options.check(`${delayMs} ms after ${n} more activities (from ${from})`) < total) killedBetween++
    }
    return killedBetween
  })

/**
 * What is wrong with the activities stored (by their start, UTC ms) against what an export says
 * (`exported`, by the start of each): each must be one of the export's, there once, described as
 * `described` gives it (`[found, wanted]`, compared as JSON); `label` names one in the problems.
 */
export const storedProblems = <S extends { readonly start_time: number }, E>(
  stored: ReadonlyArray<S>,
  exported: ReadonlyMap<number, E>,
  label: (e: E) => string,
  described: (s: S, e: E) => readonly [unknown, unknown]
): Array<string> => {
  const problems: Array<string> = []
  const seen = new Set<number>()
  for (const activity of stored) {
    const expected = exported.get(activity.start_time)
    if (expected === undefined) {
      problems.push(`an activity of ${activity.start_time} that the export does not hold`)
      continue
    }
    if (seen.has(activity.start_time)) problems.push(`"${label(expected)}" is there twice`)
    seen.add(activity.start_time)
    const [found, wanted] = described(activity, expected)
    if (JSON.stringify(found) !== JSON.stringify(wanted)) problems.push(`"${label(expected)}" is ${JSON.stringify(found)}, the export says ${JSON.stringify(wanted)}`)
  }
  return problems
}

/** A problem for each file that has more than one of `rows` (an import row written twice). */
export const filesWithManyRows = (rows: ReadonlyArray<{ readonly filename: string }>): Array<string> => {
  const rowsByName = new Map<string, number>()
  for (const row of rows) rowsByName.set(row.filename, (rowsByName.get(row.filename) ?? 0) + 1)
  return [...rowsByName].flatMap(([name, n]) => (n > 1 ? [`"${name}" has ${n} import rows`] : []))
}
