import Database from "better-sqlite3"
import { Effect } from "effect"
import * as path from "node:path"
import { isCandidateName } from "../../src/services/import/WatchDirectory.ts"
import type { ChildDaemon } from "./ChildDaemon.ts"
import { listFiles, type Root } from "./ImportHarness.ts"

/**
 * Helpers of the tests that SIGKILL a daemon (a child process over a temporary root) in the
 * middle of an import and read what it left straight from SQLite.
 */

export const databaseFile = (root: Root) => path.join(root.storageDir, "database", "waymark.sqlite")

/** The `n` a query answers, read from the daemon's database; 0 while it is being created. */
export const count = (root: Root, query: string): number => {
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

/** Polls `condition` every 2 ms (a kill must land between two steps); dies with the daemon's output if it exits or time runs out. */
export const until = (what: string, daemon: ChildDaemon, condition: () => boolean, timeoutMs = 120_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    while (!condition()) {
      if (daemon.hasExited()) return yield* Effect.dieMessage(`the daemon exited while waiting for ${what}:\n${daemon.output()}`)
      if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}:\n${daemon.output()}`)
      yield* Effect.sleep("2 millis")
    }
  })

/** The files waiting at the top of the watch folder. */
export const waiting = (root: Root) => listFiles(root.watchDir).filter(isCandidateName)
