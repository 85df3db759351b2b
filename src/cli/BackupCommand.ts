import { Args, Command } from "@effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as path from "node:path"
import { backupDatabase } from "../services/platform/DatabaseBackup.ts"
import { StoragePaths } from "../services/platform/StoragePaths.ts"

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`

/**
 * `app:backup <file>`: a consistent copy of the database, taken while the daemon runs. The
 * files the database names (images, original activity files) are plain files that are never
 * changed once written; they are copied with ordinary tools after this command, so that
 * every file a row of the copy names is there.
 */
export const backupCommand = Command.make("app:backup", { file: Args.text({ name: "file" }) }, ({ file }) =>
  Effect.gen(function*() {
    const paths = yield* StoragePaths
    const result = yield* backupDatabase(paths.databaseFile, file)
    const files = path.join(paths.storageDir, "files")
    yield* Console.log(
      [
        `Database copied to ${result.target} (${megabytes(result.bytes)}; ${result.activities} activities, ${result.fileImports} file imports), as of ${result.takenAt.toISOString()}.`,
        `Now copy the files it names, which it does not contain: ${path.join(files, "activities")} (images) and ${path.join(files, "originals")} (original activity files),`,
        `for example: rsync -a ${files}/activities ${files}/originals <backup folder>/files/`
      ].join("\n")
    )
  })
).pipe(Command.withDescription("Copy the database, consistently and while the daemon runs, into a new SQLite file (SQLite's backup API)"))
