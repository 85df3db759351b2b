import { MAX_IMPORT_MESSAGE_LENGTH, truncateText } from "../../schema/ActivityLimits.ts"
import type { SqlValue } from "../../schema/ActivityFields.ts"
import type { FileImportSource, FileImportStatus } from "../../schema/ApiModels.ts"
import type { NewFileImport } from "./FileImportRepo.ts"

/**
 * A row of the import log (`file_imports`), declared once: each field with the columns it is
 * stored in, how a new row's value is written to them and, for a field the API shows, how the
 * stored values read back. The insert, the columns a page selects and the row reader all follow
 * from it; a new field is an entry here plus the migration that adds its columns.
 */

/** A reason quoting the file (a name, a number of a million digits) stays readable and small. */
export const capped = (message: string | null) => (message === null ? null : truncateText(message, MAX_IMPORT_MESSAGE_LENGTH))

const isoSeconds = (epochMs: number) => {
  const date = new Date(Math.floor(epochMs / 1000) * 1000)
  return Number.isNaN(date.getTime()) ? null : date.toISOString().replace(".000Z", "Z")
}

export interface FileImportField<A, C extends ReadonlyArray<string>> {
  readonly columns: C
  /** the field as the API reads it, from its columns' stored values in order; null for a field the API does not show */
  readonly read: ((...values: { readonly [I in keyof C]: unknown }) => A) | null
  readonly write: (row: NewFileImport) => { readonly [K in C[number]]: SqlValue }
}

/** A field stored in the column `name` from the new row's `key`, written as it is unless `write` says otherwise. */
const column = <const N extends string, K extends keyof NewFileImport, A = never>(
  name: N,
  key: K,
  read: ((value: unknown) => A) | null,
  write: (value: NewFileImport[K]) => SqlValue = (value) => value as SqlValue
): FileImportField<A, readonly [N]> => ({
  columns: [name],
  read,
  write: (row) => ({ [name]: write(row[key]) }) as { readonly [C in N]: SqlValue }
})

/** Every field of an import log row; those the API shows in the order of its FileImport. */
export const FileImportFields = {
  id: column("id", "id", (v) => v as string),
  filename: column("filename", "filename", (v) => v as string),
  source: column("source", "source", (v) => v as FileImportSource),
  status: column("status", "status", (v) => v as FileImportStatus),
  // rows stored before messages were capped are cut when served
  errorMessage: column("error_message", "errorMessage", (v) => capped(v as string | null), capped),
  /** every activity the file made, in the file's order (rows stored before multisport files name their one activity only) */
  activityIds: {
    columns: ["activity_id", "activity_ids"] as const,
    read: (activityId: unknown, activityIds: unknown): Array<string> =>
      typeof activityIds === "string" ? JSON.parse(activityIds) as Array<string> : typeof activityId === "string" ? [activityId] : [],
    write: (row: NewFileImport) => ({
      activity_id: row.activityId,
      activity_ids: row.activityId === null ? null : JSON.stringify(row.activityIds ?? [row.activityId])
    })
  },
  notes: column("notes", "notes", (v) => capped(v as string | null), (notes) => capped(notes ?? null)),
  importedOn: column("imported_on", "importedOn", (v) => isoSeconds(v as number)),
  contentHash: column("content_hash", "contentHash", null),
  sourceSize: column("source_size", "sourceSize", null),
  sourceMtime: column("source_mtime", "sourceMtime", null),
  originalFile: column("original_file", "originalFile", null)
} as const

type Fields = typeof FileImportFields
type ShownName = { readonly [K in keyof Fields]: Fields[K]["read"] extends null ? never : K }[keyof Fields]

/** A stored row as the API reads it, before the activities that no longer exist are left out of it. */
export type StoredFileImport = { readonly [K in ShownName]: ReturnType<NonNullable<Fields[K]["read"]>> }

const fields = Object.entries(FileImportFields) as Array<[string, FileImportField<unknown, ReadonlyArray<string>>]>
const shown = fields.filter(([, field]) => field.read !== null)

/** The columns a row is read from, in the order `storedFileImportOf` takes their values. */
export const FILE_IMPORT_COLUMNS: ReadonlyArray<string> = shown.flatMap(([, field]) => field.columns)

/** The row read as an array of FILE_IMPORT_COLUMNS' values. */
export const storedFileImportOf = (values: ReadonlyArray<unknown>): StoredFileImport => {
  const out: Record<string, unknown> = {}
  let position = 0
  for (const [name, field] of shown) {
    out[name] = field.read!(...values.slice(position, position + field.columns.length))
    position += field.columns.length
  }
  return out as StoredFileImport
}

/** The columns of a new row, as the table stores them. */
export const fileImportColumns = (row: NewFileImport): Record<string, SqlValue> => {
  const out: Record<string, SqlValue> = {}
  for (const [, field] of fields) Object.assign(out, field.write(row))
  return out
}
