import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import { KeptOriginals } from "../import/KeptOriginals.ts"
import { ActivityRepo, type DeletedActivity } from "./ActivityRepo.ts"
import { ImageStore } from "./ImageStore.ts"

/**
 * Deleting an activity, the one way for every caller (the API, the Strava import): its rows
 * (streams, laps, splits, best efforts, images, import rows, by cascade) in one transaction,
 * then the files they named: image files and kept original files. The images go after the
 * commit, so a crash in between leaves an orphan file, never a row pointing at a missing one;
 * a file that cannot be removed is logged and left. The originals are set aside before the
 * commit and removed after it (KeptOriginals): a crash in between is put right at the next
 * start, and a deleted activity never comes back as an original no row names.
 */
export class ActivityRemoval extends Effect.Service<ActivityRemoval>()("services/activities/ActivityRemoval", {
  effect: Effect.gen(function*() {
    const activities = yield* ActivityRepo
    const images = yield* ImageStore
    const sql = yield* SqlClient.SqlClient
    const kept = yield* KeptOriginals

    const removeFile = (file: string) =>
      Effect.try(() => fs.rmSync(file, { force: true })).pipe(
        Effect.catchAll((e) => Effect.logWarning(`could not remove ${file}: ${String(e.error)}`))
      )

    /** Removes the activity and its files; answers the files it named (none when it did not exist). */
    const remove = Effect.fn("ActivityRemoval.remove")(function*(activityId: string) {
      const originals = yield* sql<{ original_file: string }>`SELECT original_file FROM file_imports
        WHERE activity_id = ${activityId} AND original_file IS NOT NULL`.pipe(Effect.orDie)
      const removed: DeletedActivity = yield* kept.removingRows(originals.map((o) => o.original_file), activities.remove(activityId))
      for (const fileName of removed.imageFiles) yield* removeFile(images.filePath(fileName))
      return removed
    })

    return { remove } as const
  })
}) {}
