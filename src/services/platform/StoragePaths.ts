import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { AppConfig } from "./AppConfig.ts"

/** Every folder the service writes to, derived from STORAGE_DIR and WATCH_DIR, created at start. */
export class StoragePaths extends Effect.Service<StoragePaths>()("services/platform/StoragePaths", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const paths = {
      storageDir: config.storageDir,
      databaseFile: path.join(config.storageDir, "database", "waymark.sqlite"),
      logsDir: path.join(config.storageDir, "files", "logs"),
      imagesDir: path.join(config.storageDir, "files", "activities"),
      originalsDir: path.join(config.storageDir, "files", "originals"),
      /** beside each kept original, under the same name, the name of the file it was (KeptOriginals) */
      originalNamesDir: path.join(config.storageDir, "files", "original-names"),
      /** the photos of an export's activities, from the unpacking to their activity's commit (ExportImages) */
      exportImagesDir: path.join(config.storageDir, "files", "export-images"),
      /** the archives (zips) dropped into the watch folder, each until the last of its files is imported (KeptArchives) */
      archivesDir: path.join(config.storageDir, "files", "archives"),
      /** a mark for each file of the watch folder being read, from before its read until its outcome is committed (ReadingMarks) */
      readingDir: path.join(config.storageDir, "files", "reading"),
      /** beside a kept original, under the same name, why it is never read again: the daemon stopped while reading it (ReadingMarks) */
      poisonPillsDir: path.join(config.storageDir, "files", "poison-pills"),
      watchDir: config.watchDir,
      uploadsDir: path.join(config.watchDir, ".uploads")
    }
    // what the database file was before this program opened it (opening creates it): a database
    // missing or empty beside kept originals is rebuilt from them, and said (KeptOriginals)
    const databaseAtStart: "present" | "missing" | "empty" = (() => {
      try {
        return fs.statSync(paths.databaseFile).size === 0 ? "empty" : "present"
      } catch {
        return "missing"
      }
    })()
    yield* Effect.try({
      try: () => {
        for (const dir of [path.dirname(paths.databaseFile), paths.logsDir, paths.imagesDir, paths.originalsDir, paths.originalNamesDir, paths.exportImagesDir, paths.archivesDir, paths.readingDir, paths.poisonPillsDir, paths.uploadsDir]) {
          fs.mkdirSync(dir, { recursive: true })
        }
      },
      catch: (cause) => new Error(`cannot create the storage folders: ${String(cause)}`)
    }).pipe(Effect.orDie)
    return { ...paths, databaseAtStart }
  }),
  dependencies: [AppConfig.Default]
}) {}
