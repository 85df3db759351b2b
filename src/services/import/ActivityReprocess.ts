import * as SqlClient from "@effect/sql/SqlClient"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as zlib from "node:zlib"
import type { EncodedActivityDraft } from "../../schema/ActivityDraft.ts"
import { ActivityFields, type SqlValue } from "../../schema/ActivityFields.ts"
import { ActivityRepo } from "../activities/ActivityRepo.ts"
import { PERSONAL_COLUMNS } from "../activities/ActivityRow.ts"
import { StoragePaths } from "../platform/StoragePaths.ts"
import { formatOf, isGzipped } from "./files/ActivityFileName.ts"
import { ParseWorker } from "./ParseWorker.ts"

export class ReprocessError extends Data.TaggedError("ReprocessError")<{ readonly message: string }> {}

/**
 * The start of an activity, and what is kept when it is computed again (as stored): what a
 * person set on it (and which of it was set by hand), and the race it is a leg of (which names
 * the other legs' activities).
 */
const START_AND_KEPT = `SELECT start_time, start_date_local, ${[...PERSONAL_COLUMNS, ...ActivityFields.multisport.columns, "edited"].join(", ")} FROM activities WHERE id = ?`

/** The draft of a file that is this activity: the one starting closest to it (a file may hold several). */
const closestTo = (drafts: ReadonlyArray<EncodedActivityDraft>, startTime: number) =>
  drafts.reduce<EncodedActivityDraft | undefined>(
    (best, d) => (best === undefined || Math.abs(d.startTime - startTime) < Math.abs(best.startTime - startTime) ? d : best),
    undefined
  )

/**
 * Computes activities again from the original files kept at import (after an upgrade that
 * improves parsing or metrics, or once its sport was changed by hand). The user's edits stay:
 * name, description, sport, gear and commute, and the activity is computed as the sport it has
 * now (moving time, splits, best efforts and records are the sport's); so do images, the import
 * log and the race it is a leg of. An activity without a kept original (one from Strava, or
 * imported before originals were kept) is reported and left as it is.
 */
export class ActivityReprocess extends Effect.Service<ActivityReprocess>()("services/import/ActivityReprocess", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const activities = yield* ActivityRepo
    const files = yield* ParseWorker
    const paths = yield* StoragePaths

    /** Ids of every activity that has a kept original (every leg of a multisport file), oldest first. */
    const allWithOriginals = Effect.map(
      sql<{ id: string }>`SELECT a.id FROM activities a
        WHERE EXISTS (SELECT 1 FROM file_imports f WHERE f.original_file IS NOT NULL
          AND (f.activity_id = a.id OR EXISTS (SELECT 1 FROM json_each(f.activity_ids) j WHERE j.value = a.id)))
        ORDER BY a.start_time`,
      (rows) => rows.map((r) => r.id)
    ).pipe(Effect.orDie)

    /** `interactive`: a person waits for it (a sport changed by hand), see ParseWorker.parse. */
    const one = Effect.fn("ActivityReprocess.one")(function*(id: string, interactive = false) {
      const current = (yield* sql.unsafe<Record<string, SqlValue>>(START_AND_KEPT, [id]).pipe(Effect.orDie))[0]
      if (current === undefined) return yield* new ReprocessError({ message: `Activity "${id}" not found.` })
      // the rows that name it first go with the row replaced, and are put back; a later leg of a
      // multisport file is named in its file's row among the others
      const imports = yield* sql<Record<string, unknown> & { original_file: string | null }>`SELECT * FROM file_imports WHERE activity_id = ${id}`.pipe(Effect.orDie)
      const naming = yield* sql<{ original_file: string | null }>`SELECT original_file FROM file_imports
        WHERE original_file IS NOT NULL AND (activity_id = ${id} OR EXISTS (SELECT 1 FROM json_each(activity_ids) j WHERE j.value = ${id}))`.pipe(Effect.orDie)
      const original = naming[0]?.original_file
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
      const { start_time: storedStart, start_date_local: storedLocal, ...kept } = current
      const startTime = ActivityFields.startTime.read(storedStart)
      const sport = ActivityFields.sportType.read(kept["sport_type"])
      const drafts = yield* files.parse(raw, format, original, sport, startTime, interactive).pipe(
        Effect.mapError((e) => new ReprocessError({ message: `Activity "${id}" left as it is: ${e.message}` }))
      )
      const draft = closestTo(drafts, startTime)
      if (draft === undefined) return yield* new ReprocessError({ message: `Activity "${id}" left as it is: its original holds no activity now.` })
      yield* sql.withTransaction(Effect.gen(function*() {
        // replacing the row removes its import rows by cascade: they are put back as they were
        yield* activities.replace(id, draft, null)
        if (imports.length > 0) yield* sql`INSERT INTO file_imports ${sql.insert(imports.map((row) => ({ ...row })))}`
        // an activity whose date is unknown keeps the stand-in it was imported with
        const start = draft.dateUnknown ? { start_time: storedStart ?? null, start_date_local: storedLocal ?? null } : {}
        yield* sql`UPDATE activities SET ${sql.update({ ...kept, ...start })} WHERE id = ${id}`
      })).pipe(Effect.orDie)
    })

    return { allWithOriginals, one } as const
  })
}) {}
