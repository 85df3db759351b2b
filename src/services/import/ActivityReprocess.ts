import { SqlClient } from "@effect/sql"
import { Data, Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as zlib from "node:zlib"
import type { EncodedActivityDraft } from "../../schema/ActivityDraft.ts"
import { ActivityFields, type SqlValue } from "../../schema/ActivityFields.ts"
import { ActivityRepo } from "../activities/ActivityRepo.ts"
import { PERSONAL_COLUMNS } from "../activities/ActivityRow.ts"
import { StoragePaths } from "../platform/StoragePaths.ts"
import { formatOf, isGzipped } from "./ActivityFileName.ts"
import { ParseWorker } from "./ParseWorker.ts"

export class ReprocessError extends Data.TaggedError("ReprocessError")<{ readonly message: string }> {}

/** The start of an activity, and what a person set on it (as stored), which is kept when it is computed again. */
const START_AND_PERSONAL = `SELECT start_time, ${PERSONAL_COLUMNS.join(", ")} FROM activities WHERE id = ?`

/** The draft of a file that is this activity: the one starting closest to it (a file may hold several). */
const closestTo = (drafts: ReadonlyArray<EncodedActivityDraft>, startTime: number) =>
  drafts.reduce<EncodedActivityDraft | undefined>(
    (best, d) => (best === undefined || Math.abs(d.startTime - startTime) < Math.abs(best.startTime - startTime) ? d : best),
    undefined
  )

/**
 * Computes activities again from the original files kept at import (after an upgrade that
 * improves parsing or metrics). The user's edits stay: name, description, sport, gear and
 * commute; so do images and the import log. An activity without a kept original (one from
 * Strava, or imported before originals were kept) is reported and left as it is.
 */
export class ActivityReprocess extends Effect.Service<ActivityReprocess>()("services/import/ActivityReprocess", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const activities = yield* ActivityRepo
    const files = yield* ParseWorker
    const paths = yield* StoragePaths

    /** Ids of every activity that has a kept original, oldest first. */
    const allWithOriginals = Effect.map(
      sql<{ id: string }>`SELECT a.id FROM activities a
        WHERE EXISTS (SELECT 1 FROM file_imports f WHERE f.activity_id = a.id AND f.original_file IS NOT NULL)
        ORDER BY a.start_time`,
      (rows) => rows.map((r) => r.id)
    ).pipe(Effect.orDie)

    const one = Effect.fn("ActivityReprocess.one")(function*(id: string) {
      const current = (yield* sql.unsafe<Record<string, SqlValue>>(START_AND_PERSONAL, [id]).pipe(Effect.orDie))[0]
      if (current === undefined) return yield* new ReprocessError({ message: `Activity "${id}" not found.` })
      const imports = yield* sql<Record<string, unknown> & { original_file: string | null }>`SELECT * FROM file_imports WHERE activity_id = ${id}`.pipe(Effect.orDie)
      const original = imports.find((row) => row.original_file !== null)?.original_file
      if (original === undefined || original === null) {
        return yield* new ReprocessError({ message: `Activity "${id}" has no kept original file (imported from Strava, or before originals were kept): left as it is.` })
      }
      const format = formatOf(original)
      const file = path.join(paths.originalsDir, original)
      if (format === null || !fs.existsSync(file)) {
        return yield* new ReprocessError({ message: `The original file of activity "${id}" (${original}) is missing from ${paths.originalsDir}: left as it is.` })
      }
      const raw = yield* Effect.try({
        try: () => {
          const bytes = fs.readFileSync(file)
          return new Uint8Array(isGzipped(original) ? zlib.gunzipSync(bytes) : bytes)
        },
        catch: (e) => new ReprocessError({ message: `The original file of activity "${id}" cannot be read: ${String(e)}.` })
      })
      const drafts = yield* files.parse(raw, format, original).pipe(
        Effect.mapError((e) => new ReprocessError({ message: `Activity "${id}" left as it is: ${e.message}` }))
      )
      const { start_time: startTime, ...personal } = current
      const draft = closestTo(drafts, ActivityFields.startTime.read(startTime))
      if (draft === undefined) return yield* new ReprocessError({ message: `Activity "${id}" left as it is: its original holds no activity now.` })
      yield* sql.withTransaction(Effect.gen(function*() {
        // replacing the row removes its import rows by cascade: they are put back as they were
        yield* activities.replace(id, draft, null)
        if (imports.length > 0) yield* sql`INSERT INTO file_imports ${sql.insert(imports.map((row) => ({ ...row })))}`
        yield* sql`UPDATE activities SET ${sql.update(personal)} WHERE id = ${id}`
      })).pipe(Effect.orDie)
    })

    return { allWithOriginals, one } as const
  })
}) {}
