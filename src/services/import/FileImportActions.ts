import * as SqlClient from "@effect/sql/SqlClient"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { StoragePaths } from "../platform/StoragePaths.ts"
import { ImportQueue } from "./ImportQueue.ts"
import { KeptOriginals } from "./KeptOriginals.ts"
import { WatchDirectory } from "./WatchDirectory.ts"

/**
 * What the athlete can do with a row of the import log: import a failed file again from its
 * kept original, or remove a failed or skipped row with its original (a successful import goes
 * with its activity). A row's original is set aside while its row is deleted and removed once
 * no row names it (KeptOriginals): never a row without its file, never an original lost.
 */

/** Why an action on an import row cannot be done. */
export class FileImportActionError extends Data.TaggedError("FileImportActionError")<{
  readonly reason: "notFound" | "wrongStatus" | "noOriginal"
  readonly message: string
}> {}

interface Row {
  readonly id: string
  readonly filename: string
  readonly status: string
  readonly original_file: string | null
}

export class FileImportActions extends Effect.Service<FileImportActions>()("services/import/FileImportActions", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const paths = yield* StoragePaths
    const watch = yield* WatchDirectory
    const queue = yield* ImportQueue
    const kept = yield* KeptOriginals

    const find = (id: string) =>
      Effect.flatMap(
        sql<Row>`SELECT id, filename, status, original_file FROM file_imports WHERE id = ${id}`.pipe(Effect.orDie),
        (rows) => rows.length === 0 ? Effect.fail(new FileImportActionError({ reason: "notFound", message: `File import "${id}" not found.` })) : Effect.succeed(rows[0]!)
      )

    const originalPath = (row: Row) => (row.original_file === null ? null : path.join(paths.originalsDir, path.basename(row.original_file)))

    /** Deletes the row, and its original unless another row shares it. */
    const removeRow = (row: Row) =>
      kept.removingRows(row.original_file === null ? [] : [row.original_file], sql`DELETE FROM file_imports WHERE id = ${row.id}`.pipe(Effect.orDie))

    /**
     * Puts the kept original of a failed import back into the watch folder under its file name
     * (with -1, -2, ... when taken) and queues it; the failed row and its original go, the
     * import writes a row of its own. The name it was queued under.
     */
    const retry = Effect.fn("FileImportActions.retry")(function*(id: string) {
      const row = yield* find(id)
      if (row.status !== "failed") {
        return yield* new FileImportActionError({ reason: "wrongStatus", message: `File import "${id}" is ${row.status}: only a failed import can be retried.` })
      }
      const original = originalPath(row)
      if (original === null || !fs.existsSync(original)) {
        return yield* new FileImportActionError({
          reason: "noOriginal",
          message: `File import "${id}" kept no original of "${row.filename}" to import again: put the file in the watch folder or upload it.`
        })
      }
      const temp = path.join(watch.uploadsDir, `.retry-${row.id}`)
      yield* Effect.sync(() => {
        // the failed file itself may still wait in the folder, in case it grows: the retry replaces it
        watch.takeHeld(row.filename)
        fs.mkdirSync(watch.uploadsDir, { recursive: true })
        fs.rmSync(temp, { force: true })
      })
      // the bytes as they were dropped (a failure's original may be kept compressed)
      yield* kept.restoreTo(row.original_file!, row.filename, temp)
      const queued = yield* watch.deliver(temp, row.filename).pipe(
        Effect.ensuring(Effect.sync(() => fs.rmSync(temp, { force: true }))),
        Effect.orDie
      )
      yield* removeRow(row)
      yield* queue.offer(queued)
      return queued
    })

    /** Removes a failed or skipped row and its kept original. */
    const remove = Effect.fn("FileImportActions.remove")(function*(id: string) {
      const row = yield* find(id)
      if (row.status === "success") {
        return yield* new FileImportActionError({
          reason: "wrongStatus",
          message: `File import "${id}" succeeded: it is removed with its activity (DELETE /api/v1/activities/{activityId}).`
        })
      }
      yield* removeRow(row)
    })

    return { retry, remove } as const
  })
}) {}
