import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import type { ActivityDraft } from "../schema/ActivityDraft.ts"
import { importSourceOfFormat } from "../schema/ActivityDraft.ts"
import type { FileImportSource } from "../schema/ApiModels.ts"
import { ActivityFiles } from "./ActivityFiles.ts"
import { ActivityRepo, newActivityId } from "./ActivityRepo.ts"
import { FileImportRepo, newFileImportId, type StoredStatus } from "./FileImportRepo.ts"
import { inChannel } from "./Logs.ts"
import { StoragePaths } from "./StoragePaths.ts"
import type { QueuedFile } from "./WatchDirectory.ts"

/**
 * Imports one file of the watch folder: it ends as an activity (`success`), a duplicate
 * (`skipped`) or a failure with its reason (`failed`). The row and the activity are written
 * in one transaction; the original bytes are kept first; the file leaves the watch folder
 * only after the commit. A crash at any point leaves the file in place, and the restart
 * recognises a file whose row was already committed.
 */

export const MAX_IMPORT_FILE_BYTES = 256 * 1024 * 1024
/** Duplicate rule: starts within 60 s and overlaps at least 80 % in time. */
export const DUPLICATE_START_WINDOW_MS = 60_000
export const DUPLICATE_MIN_OVERLAP = 0.8

export interface ImportOutcome {
  readonly fileImportId: string
  readonly status: StoredStatus
  readonly activityIds: ReadonlyArray<string>
  readonly errorMessage: string | null
}

const interval = (d: { readonly startTime: number; readonly elapsedTimeInSeconds: number }) => ({
  start: d.startTime,
  end: d.startTime + Math.max(1, d.elapsedTimeInSeconds) * 1000
})

export const overlapRatio = (a: { start: number; end: number }, b: { start: number; end: number }): number => {
  const shared = Math.min(a.end, b.end) - Math.max(a.start, b.start)
  if (shared <= 0) return 0
  return shared / Math.max(a.end - a.start, b.end - b.start)
}

export class ImportService extends Effect.Service<ImportService>()("services/ImportService", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const paths = yield* StoragePaths
    const files = yield* ActivityFiles
    const activities = yield* ActivityRepo
    const fileImports = yield* FileImportRepo

    const duplicateOf = (draft: ActivityDraft) =>
      Effect.gen(function*() {
        const span = interval(draft)
        const candidates = yield* activities.overlapping(span.start - DUPLICATE_START_WINDOW_MS, span.end)
        const match = candidates.find((c) =>
          Math.abs(c.start_time - draft.startTime) <= DUPLICATE_START_WINDOW_MS &&
          overlapRatio(span, { start: c.start_time, end: c.start_time + Math.max(1, c.elapsed_time) * 1000 }) >= DUPLICATE_MIN_OVERLAP
        )
        return match?.id ?? null
      })

    const keepOriginal = (source: string, id: string, format: string) =>
      Effect.sync(() => {
        const name = `${id}.${format}`
        const temp = path.join(paths.originalsDir, `.${name}.part`)
        fs.copyFileSync(source, temp)
        fs.renameSync(temp, path.join(paths.originalsDir, name))
        return name
      })

    const importFile = Effect.fn("ImportService.importFile")(function*(file: QueuedFile) {
      const stat = yield* Effect.sync(() => {
        try {
          return fs.statSync(file.path)
        } catch {
          return null
        }
      })
      if (stat === null || !stat.isFile()) return null // gone meanwhile
      const source: FileImportSource = importSourceOfFormat(file.format) as FileImportSource
      const now = yield* Clock.currentTimeMillis
      const id = newFileImportId()
      const base = {
        id,
        filename: file.filename,
        source,
        importedOn: now,
        sourceSize: stat.size,
        sourceMtime: Math.trunc(stat.mtimeMs)
      }
      const removeFromWatch = Effect.sync(() => fs.rmSync(file.path, { force: true }))

      if (stat.size > MAX_IMPORT_FILE_BYTES) {
        yield* fileImports.insert({
          ...base, status: "failed", contentHash: "", activityId: null, originalFile: null,
          errorMessage: `"${file.filename}" is too large to import (${stat.size} bytes; at most ${MAX_IMPORT_FILE_BYTES}).`
        })
        yield* removeFromWatch
        return { fileImportId: id, status: "failed", activityIds: [], errorMessage: "too large" } satisfies ImportOutcome
      }
      const bytes = yield* Effect.sync(() => fs.readFileSync(file.path))
      const contentHash = createHash("sha256").update(bytes).digest("hex")

      // crash recovery: this very file was committed before the process stopped
      const committed = yield* fileImports.findCommitted(file.filename, contentHash, base.sourceSize, base.sourceMtime)
      if (committed !== null) {
        yield* removeFromWatch
        yield* Effect.logInfo(`"${file.filename}" was already imported as ${committed}; removed from the watch folder`).pipe(inChannel("daemon"))
        return null
      }

      const finish = (status: StoredStatus, errorMessage: string | null, drafts: ReadonlyArray<ActivityDraft>) =>
        Effect.gen(function*() {
          const originalFile = status === "skipped" ? null : yield* keepOriginal(file.path, id, file.format)
          const activityIds = drafts.map(() => newActivityId())
          yield* sql.withTransaction(Effect.gen(function*() {
            for (const [i, draft] of drafts.entries()) yield* activities.insert(activityIds[i]!, draft)
            yield* fileImports.insert({
              ...base, status, errorMessage, contentHash, originalFile,
              activityId: activityIds[0] ?? null
            })
          })).pipe(
            Effect.orDie,
            Effect.tapDefect(() => Effect.sync(() => originalFile && fs.rmSync(path.join(paths.originalsDir, originalFile), { force: true })))
          )
          yield* removeFromWatch
          return { fileImportId: id, status, activityIds, errorMessage } satisfies ImportOutcome
        })

      const sameBytes = yield* fileImports.activityWithSameBytes(contentHash)
      if (sameBytes !== null) {
        return yield* finish("skipped", `Skipped: the same file was already imported as activity "${sameBytes}".`, [])
      }

      const parsed = yield* Effect.either(files.parse(new Uint8Array(bytes), file.format, file.filename))
      if (parsed._tag === "Left") return yield* finish("failed", parsed.left.message, [])
      const drafts = parsed.right
      if (drafts.length === 0) return yield* finish("failed", `"${file.filename}" contains no activity.`, [])

      const fresh: Array<ActivityDraft> = []
      let firstDuplicate: string | null = null
      for (const draft of drafts) {
        const duplicate = yield* duplicateOf(draft)
        if (duplicate === null) fresh.push(draft)
        else firstDuplicate ??= duplicate
      }
      if (fresh.length === 0) {
        return yield* finish("skipped", `Skipped: activity "${firstDuplicate}" already covers the same time (same start within 60 s).`, [])
      }
      return yield* finish("success", null, fresh)
    })

    /** Originals no row refers to (a crash between copying and committing). */
    const removeOrphanOriginals = Effect.fn("ImportService.removeOrphanOriginals")(function*() {
      const referenced = yield* fileImports.originalFiles()
      yield* Effect.sync(() => {
        for (const name of fs.readdirSync(paths.originalsDir)) {
          if (!referenced.has(name)) fs.rmSync(path.join(paths.originalsDir, name), { force: true })
        }
      })
    })

    return { importFile, removeOrphanOriginals } as const
  })
}) {}
