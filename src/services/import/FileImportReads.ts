import * as Effect from "effect/Effect"
import type { FileImport } from "../../schema/ApiModels.ts"
import { placeholders, ReadConnection } from "../platform/ReadConnection.ts"
import { makeVersionedCache } from "../platform/VersionedCache.ts"
import { FILE_IMPORT_COLUMNS, type StoredFileImport, storedFileImportOf } from "./FileImportFields.ts"

/**
 * The import log as the API reads it, as a plain synchronous function over the ReadConnection:
 * the HTTP handler calls it through FileImportRepo, and DirectRoutes calls it without a fiber.
 */

/**
 * `existing` tells which of the activities a row names still exist (any of a multisport file
 * may have been deleted): only those are named, `activityId` being the first of them, or null.
 */
/** An activity a row names, as the log shows it. */
export interface NamedActivity {
  readonly name: string
  readonly sportType: string
}

/**
 * A stored row as the API serves it: `existing` says which of its activities still exist, with
 * their names (any of a multisport file may have been deleted).
 */
export const toFileImport = (stored: StoredFileImport, existing: (id: string) => NamedActivity | undefined): FileImport => {
  const activities = stored.activityIds.flatMap((id) => {
    const found = existing(id)
    return found === undefined ? [] : [{ id, name: found.name, sportType: found.sportType }]
  })
  const activityIds = activities.map((a) => a.id)
  return {
    id: stored.id,
    filename: stored.filename,
    source: stored.source,
    status: stored.status,
    errorMessage: stored.errorMessage,
    activityId: activityIds[0] ?? null,
    activityIds,
    activities,
    notes: stored.notes,
    importedOn: stored.importedOn
  }
}

export interface FileImportSearch {
  readonly filename?: string | undefined
  /** an empty list matches no stored row (only queued files were asked for) */
  readonly statuses?: ReadonlyArray<string> | undefined
  readonly sources?: ReadonlyArray<string> | undefined
  readonly offset: number
  readonly limit: number
}

/** The count and the page of a search of the import log, as statement texts and their parameters. */
export const fileImportStatements = (search: FileImportSearch) => {
  const conditions: Array<string> = []
  const params: Array<string | number> = []
  if (search.filename !== undefined) {
    conditions.push("filename = ?")
    params.push(search.filename)
  }
  if (search.statuses !== undefined) {
    const statuses = search.statuses.length > 0 ? search.statuses : ["-"]
    conditions.push(`status IN (${placeholders(statuses.length)})`)
    params.push(...statuses)
  }
  if (search.sources !== undefined && search.sources.length > 0) {
    conditions.push(`source IN (${placeholders(search.sources.length)})`)
    params.push(...search.sources)
  }
  const where = conditions.length > 0 ? ` WHERE ${conditions.join(" AND ")}` : ""
  // a page is read in the list's order, its filters tested on the index: without statistics
  // SQLite would fetch and sort every row of a status to return a few
  const listed = search.filename === undefined ? "file_imports INDEXED BY file_imports_list" : "file_imports"
  return {
    count: { sql: `SELECT COUNT(*) FROM file_imports${where}`, params },
    page: {
      sql: `SELECT ${FILE_IMPORT_COLUMNS.join(", ")} FROM ${listed}${where}
        ORDER BY imported_on DESC, rowid DESC LIMIT ? OFFSET ?`,
      params: [...params, search.limit, Math.max(0, search.offset)]
    }
  }
}

/** Totals kept per filter until the next commit. */
const MAX_COUNTS = 64

export class FileImportReads extends Effect.Service<FileImportReads>()("services/import/FileImportReads", {
  effect: Effect.gen(function*() {
    const db = yield* ReadConnection
    const counts = makeVersionedCache<number>({ version: db.dataVersion, capacity: MAX_COUNTS, weigh: () => 1 })

    const search = (params: FileImportSearch): { readonly rows: ReadonlyArray<FileImport>; readonly total: number } => {
      const { count, page } = fileImportStatements(params)
      const total = counts(`${count.sql}\u0000${count.params.join("\u0000")}`, () => Number(db.rows(count.sql, count.params)[0]![0]))!
      if (params.limit <= 0) return { rows: [], total }
      const stored = db.rows(page.sql, page.params).map(storedFileImportOf)
      // every activity a row names is looked up: any of a multisport file may have been deleted
      const named = [...new Set(stored.flatMap((row) => row.activityIds))]
      const existing = new Map<string, NamedActivity>(
        named.length === 0
          ? []
          : db.rows(`SELECT id, name, sport_type FROM activities WHERE id IN (${placeholders(named.length)})`, named)
            .map(([id, name, sportType]) => [id as string, { name: name as string, sportType: sportType as string }])
      )
      const rows = stored.map((row) => toFileImport(row, (id) => existing.get(id)))
      return { rows, total }
    }

    return { search } as const
  })
}) {}
