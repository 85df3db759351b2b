import * as SqlClient from "@effect/sql/SqlClient"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import { StoragePaths } from "./StoragePaths.ts"

/**
 * A second connection to the database, for the API's reads: synchronous prepared statements,
 * called without a fiber per query (the SqlClient compiles each statement, traces it and takes
 * the writer's permit, which costs more than the query itself on the read path). It never
 * writes (`query_only`); in WAL mode it reads the last committed state, beside the writer and
 * never waiting for it.
 */

/** `?, ?, ?` for a list of `n` values in a statement. */
export const placeholders = (n: number) => Array.from({ length: n }, () => "?").join(", ")

/** Distinct statement texts kept prepared: the list's filters and page sizes make a few hundred at most. */
const MAX_STATEMENTS = 512

export class ReadConnection extends Effect.Service<ReadConnection>()("services/platform/ReadConnection", {
  scoped: Effect.gen(function*() {
    const paths = yield* StoragePaths
    // opened once the writer has created and migrated the database
    yield* SqlClient.SqlClient
    const db = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const db = new Database(paths.databaseFile, { fileMustExist: true })
        db.pragma("query_only = ON")
        db.pragma("busy_timeout = 1000")
        return db
      }),
      (db) => Effect.sync(() => db.close())
    )
    const statements = new Map<string, Database.Statement>()
    const prepare = (sql: string) => {
      let statement = statements.get(sql)
      if (statement === undefined) {
        if (statements.size >= MAX_STATEMENTS) statements.clear()
        statement = db.prepare(sql).raw(true)
        statements.set(sql, statement)
      }
      return statement
    }
    const dataVersion = db.prepare("PRAGMA data_version").pluck()

    return {
      /** The rows of a query, each an array of its columns' values. Throws an SqliteError. */
      rows: (sql: string, params: ReadonlyArray<string | number>): Array<Array<unknown>> =>
        prepare(sql).all(...params) as Array<Array<unknown>>,
      /**
       * Changes whenever another connection commits: what was read before may then be stale.
       */
      dataVersion: (): number => dataVersion.get() as number,
      /** Makes a deterministic function of JavaScript callable from this connection's SQL. */
      defineFunction: (name: string, fn: (...args: Array<unknown>) => unknown): void => {
        db.function(name, { deterministic: true, varargs: true }, fn as (...args: Array<unknown>) => number)
      }
    } as const
  })
}) {}
