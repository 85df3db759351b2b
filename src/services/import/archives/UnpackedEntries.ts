import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { StoragePaths } from "../../platform/StoragePaths.ts"
import { type FileIdentity, identityOf, sameIdentity } from "../files/FileOnDisk.ts"

/**
 * The journal of a zip's unpacking into the watch folder: each activity file it lets in is
 * written here (the entry's place in the zip, the name it gets, the hash of its bytes), in the
 * transaction that keeps what the export says of it and before the file enters the folder, and
 * the zip's rows go once the zip has left the folder. A zip found still there after a stop
 * (read again from its bytes) lets in only the entries this does not name, and those it names
 * that never reached the folder: the unpacking resumes where it stopped, none of its files twice,
 * none lost. A zip is named by its path under the folder and its identity (size, modification
 * time, inode): the same bytes dropped again later are another unpacking.
 */

/** An entry a zip let into the folder (or was about to). */
export interface UnpackedEntry {
  /** the entry's place in the zip (StagedZip's `at`) */
  readonly entry: string
  /** the archive its files are of (ExportMetadata's `archive`) */
  readonly archive: string
  /** its name in the watch folder */
  readonly filename: string
  readonly contentHash: string
}

/** The zip `filename` of the watch folder as it was read. */
export const zipKey = (filename: string, identity: FileIdentity): string => `${identity.size}:${identity.mtimeMs}:${identity.ino}:${filename}`

const identityOfKey = (key: string): { readonly identity: FileIdentity; readonly filename: string } | null => {
  const match = /^(\d+):([\d.]+):(\d+):(.*)$/s.exec(key)
  return match === null ? null : { identity: { size: Number(match[1]), mtimeMs: Number(match[2]), ino: Number(match[3]) }, filename: match[4]! }
}

export class UnpackedEntries extends Effect.Service<UnpackedEntries>()("services/import/UnpackedEntries", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const watchDir = (yield* StoragePaths).watchDir

    /** The entries the zip `zip` let in before, by their place in it. */
    const of = Effect.fn("UnpackedEntries.of")(function*(zip: string) {
      const rows = yield* sql<{ entry: string; archive: string; filename: string; content_hash: string }>`
        SELECT entry, archive, filename, content_hash FROM unpacked_entries WHERE zip = ${zip}`
      return new Map(rows.map((row) => [row.entry, { entry: row.entry, archive: row.archive, filename: row.filename, contentHash: row.content_hash }]))
    }, Effect.orDie)

    /** Records entries about to enter the folder (within the caller's transaction). */
    const record = Effect.fn("UnpackedEntries.record")(function*(zip: string, entries: ReadonlyArray<UnpackedEntry>) {
      for (const e of entries) {
        yield* sql`INSERT OR REPLACE INTO unpacked_entries ${sql.insert({ zip, entry: e.entry, archive: e.archive, filename: e.filename, content_hash: e.contentHash })}`
      }
    }, Effect.orDie)

    /** The entry entered the folder under another name than the one recorded (another file took it meanwhile). */
    const rename = Effect.fn("UnpackedEntries.rename")(function*(zip: string, entry: string, filename: string) {
      yield* sql`UPDATE unpacked_entries SET filename = ${filename} WHERE zip = ${zip} AND entry = ${entry}`
    }, Effect.orDie)

    /** The zip left the folder: its unpacking is over. */
    const forget = Effect.fn("UnpackedEntries.forget")(function*(zip: string) {
      yield* sql`DELETE FROM unpacked_entries WHERE zip = ${zip}`
    }, Effect.orDie)

    /** At start: forgets the unpackings of zips no longer in the folder as they were (a stop between a zip's removal and `forget`). */
    const sweep = Effect.fn("UnpackedEntries.sweep")(function*() {
      const zips = yield* sql<{ zip: string }>`SELECT DISTINCT zip FROM unpacked_entries`
      for (const { zip } of zips) {
        const key = identityOfKey(zip)
        const stat = key === null ? undefined : fs.lstatSync(path.join(watchDir, key.filename), { throwIfNoEntry: false })
        if (key === null || stat === undefined || !stat.isFile() || !sameIdentity(identityOf(stat), key.identity)) yield* forget(zip)
      }
    }, Effect.orDie)

    return { of, record, rename, forget, sweep } as const
  })
}) {}
