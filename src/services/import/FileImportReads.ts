import { Effect } from "effect"
import { MAX_IMPORT_MESSAGE_LENGTH, truncateText } from "../../schema/ActivityLimits.ts"
import type { FileImport, FileImportSource } from "../../schema/ApiModels.ts"
import { placeholders, ReadConnection } from "../platform/ReadConnection.ts"
import { makeVersionedCache } from "../platform/VersionedCache.ts"

/**
 * The import log as the API reads it, as a plain synchronous function over the ReadConnection:
 * the HTTP handler calls it through FileImportRepo, and DirectRoutes calls it without a fiber.
 */

export interface FileImportRow {
  readonly id: string
  readonly filename: string
  readonly source: string
  readonly status: string
  readonly error_message: string | null
  readonly activity_id: string | null
  /** JSON array of the activities the file made, or null */
  readonly activity_ids: string | null
  readonly notes: string | null
  readonly imported_on: number
}

const isoSeconds = (epochMs: number) => {
  const date = new Date(Math.floor(epochMs / 1000) * 1000)
  return Number.isNaN(date.getTime()) ? null : date.toISOString().replace(".000Z", "Z")
}

/** A reason quoting the file (a name, a number of a million digits) stays readable and small. */
export const capped = (message: string | null) => (message === null ? null : truncateText(message, MAX_IMPORT_MESSAGE_LENGTH))

const idsOf = (row: FileImportRow): Array<string> =>
  row.activity_ids !== null ? JSON.parse(row.activity_ids) as Array<string> : row.activity_id !== null ? [row.activity_id] : []

/**
 * `existing` tells which of the activities a row names still exist (any of a multisport file
 * may have been deleted): only those are named, `activityId` being the first of them, or null.
 */
export const toFileImport = (row: FileImportRow, existing: (id: string) => boolean = () => true): FileImport => {
  const activityIds = idsOf(row).filter(existing)
  return {
    id: row.id,
    filename: row.filename,
    source: row.source as FileImportSource,
    status: row.status as FileImport["status"],
    // rows stored before messages were capped are cut when served
    errorMessage: capped(row.error_message),
    activityId: activityIds[0] ?? null,
    activityIds,
    notes: capped(row.notes),
    importedOn: isoSeconds(row.imported_on)
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
      sql: `SELECT id, filename, source, status, error_message, activity_id, activity_ids, notes, imported_on FROM ${listed}${where}
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
      const stored = db.rows(page.sql, page.params).map(([id, filename, source, status, error_message, activity_id, activity_ids, notes, imported_on]) =>
        ({ id, filename, source, status, error_message, activity_id, activity_ids, notes, imported_on }) as FileImportRow
      )
      // every activity a row names is looked up: any of a multisport file may have been deleted
      const named = [...new Set(stored.flatMap(idsOf))]
      const existing = named.length === 0
        ? new Set<string>()
        : new Set(db.rows(`SELECT id FROM activities WHERE id IN (${placeholders(named.length)})`, named).map(([id]) => id as string))
      const rows = stored.map((row) => toFileImport(row, (id) => existing.has(id)))
      return { rows, total }
    }

    return { search } as const
  })
}) {}
