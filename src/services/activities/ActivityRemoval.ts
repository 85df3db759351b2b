import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { StoragePaths } from "../platform/StoragePaths.ts"
import { ActivityRepo, type DeletedActivity } from "./ActivityRepo.ts"
import { ImageStore } from "./ImageStore.ts"

/**
 * Deleting an activity, the one way for every caller (the API, the Strava import): its rows
 * (streams, laps, splits, best efforts, images, import rows, by cascade) in one transaction,
 * then the files they named: image files and kept original files. The files go after the
 * commit, so a crash in between leaves an orphan file, never a row pointing at a missing one;
 * a file that cannot be removed is logged and left.
 */
export class ActivityRemoval extends Effect.Service<ActivityRemoval>()("services/activities/ActivityRemoval", {
  effect: Effect.gen(function*() {
    const activities = yield* ActivityRepo
    const images = yield* ImageStore
    const paths = yield* StoragePaths

    const removeFile = (file: string) =>
      Effect.try(() => fs.rmSync(file, { force: true })).pipe(
        Effect.catchAll((e) => Effect.logWarning(`could not remove ${file}: ${String(e.error)}`))
      )

    /** Removes the activity and its files; answers the files it named (none when it did not exist). */
    const remove = Effect.fn("ActivityRemoval.remove")(function*(activityId: string) {
      const removed: DeletedActivity = yield* activities.remove(activityId)
      for (const fileName of removed.imageFiles) yield* removeFile(images.filePath(fileName))
      for (const original of removed.originalFiles) yield* removeFile(path.join(paths.originalsDir, path.basename(original)))
      return removed
    })

    return { remove } as const
  })
}) {}
