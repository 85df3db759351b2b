import Database from "better-sqlite3"
import { Effect } from "effect"
import fs from "node:fs"
import { syncBuiltinESMExports } from "node:module"

/**
 * A full disk, for the daemon running in this process: while armed, file writes fail with
 * ENOSPC the way the kernel reports it (node's fs.writeSync / fs.writeFileSync throw it,
 * fs.write / fs.writev call back with it), and
 * SQLite writes fail with SQLITE_FULL the way better-sqlite3 reports it. Reads keep working,
 * as they do on a full disk.
 */

export interface FullDiskOptions {
  /** file writes fail (default true) */
  readonly files?: boolean
  /** INSERT, UPDATE, DELETE and REPLACE statements fail (default true) */
  readonly database?: boolean
  /**
   * Bytes that still fit before file writes fail (default 0): fs.writeSync writes until they
   * are used, a write that crosses the limit writes what fits and answers how much (as the
   * kernel does), and the next one fails.
   */
  readonly room?: number
}

const enospc = (syscall: string) =>
  Object.assign(new Error(`ENOSPC: no space left on device, ${syscall}`), { code: "ENOSPC", errno: -28, syscall })

type StatementMethod = (this: { source: string }, ...args: Array<unknown>) => unknown

const statementPrototype = (() => {
  const db = new Database(":memory:")
  const prototype = Object.getPrototypeOf(db.prepare("SELECT 1")) as Record<"run" | "all", StatementMethod>
  db.close()
  return prototype
})()

const WRITE_STATEMENT = /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i

const arm = (options: FullDiskOptions) =>
  Effect.sync(() => {
    const restore: Array<() => void> = []
    if (options.files ?? true) {
      const { write, writev, writeSync, writeFileSync } = fs
      let room = options.room ?? 0
      fs.writeSync = ((fd: number, data: string | NodeJS.ArrayBufferView, offset?: unknown, length?: unknown) => {
        if (room <= 0) throw enospc("write")
        const bytes = typeof data === "string" ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength)
        const start = typeof data === "string" || typeof offset !== "number" ? 0 : offset
        const wanted = typeof data === "string" || typeof length !== "number" ? bytes.length - start : length
        const fits = Math.min(wanted, room)
        room -= fits
        return writeSync(fd, bytes, start, fits)
      }) as typeof fs.writeSync
      fs.writeFileSync = (() => {
        throw enospc("write")
      }) as typeof fs.writeFileSync
      // what a write stream calls (an upload's file)
      const failing = (...args: Array<unknown>) => {
        const callback = args.at(-1) as (error: Error) => void
        process.nextTick(() => callback(enospc("write")))
      }
      fs.write = failing as unknown as typeof fs.write
      fs.writev = failing as unknown as typeof fs.writev
      syncBuiltinESMExports()
      restore.push(() => {
        fs.write = write
        fs.writev = writev
        fs.writeSync = writeSync
        fs.writeFileSync = writeFileSync
        syncBuiltinESMExports()
      })
    }
    if (options.database ?? true) {
      for (const method of ["run", "all"] as const) {
        const original = statementPrototype[method]
        statementPrototype[method] = function(this: { source: string }, ...args: Array<unknown>) {
          if (WRITE_STATEMENT.test(this.source)) throw new Database.SqliteError("database or disk is full", "SQLITE_FULL")
          return original.apply(this, args)
        }
        restore.push(() => {
          statementPrototype[method] = original
        })
      }
    }
    return restore
  })

/** Runs `effect` on a full disk; space returns afterwards, whatever happened. */
export const withFullDisk = <A, E, R>(effect: Effect.Effect<A, E, R>, options: FullDiskOptions = {}) =>
  Effect.acquireUseRelease(arm(options), () => effect, (restore) => Effect.sync(() => restore.forEach((undo) => undo())))
