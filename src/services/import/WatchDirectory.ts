import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { FileFormat } from "../../schema/ParsedActivity.ts"
import { formatOf, isZipName, splitExtension } from "./ActivityFileName.ts"
import { StoragePaths } from "../platform/StoragePaths.ts"

/**
 * The watch folder: files waiting to be imported. Non-recursive; dot-files, `.part` and
 * `.tmp` files and subfolders are not imports; files of other types stay untouched.
 */
export interface QueuedFile {
  readonly filename: string
  readonly format: FileFormat
  readonly path: string
  readonly mtimeMs: number
}

export const isCandidateName = (name: string): boolean =>
  !name.startsWith(".") && !/\.(part|tmp)$/i.test(name) && (formatOf(name) !== null || isZipName(name))

export class WatchDirectory extends Effect.Service<WatchDirectory>()("services/import/WatchDirectory", {
  effect: Effect.gen(function*() {
    const paths = yield* StoragePaths

    /** Supported files present in the watch folder, oldest first. */
    const queued = Effect.fn("WatchDirectory.queued")(function*() {
      const entries = yield* Effect.sync(() => {
        try {
          return fs.readdirSync(paths.watchDir, { withFileTypes: true })
        } catch {
          return []
        }
      })
      const files: Array<QueuedFile> = []
      for (const entry of entries) {
        // a zip is unpacked when it arrives, not listed: a zip left here is one that could not be unpacked
        if (!entry.isFile() || !isCandidateName(entry.name) || isZipName(entry.name)) continue
        const full = path.join(paths.watchDir, entry.name)
        try {
          files.push({ filename: entry.name, format: formatOf(entry.name)!, path: full, mtimeMs: fs.statSync(full).mtimeMs })
        } catch {
          // removed meanwhile
        }
      }
      return files.sort((a, b) => a.mtimeMs - b.mtimeMs || a.filename.localeCompare(b.filename))
    })

    /**
     * Moves a received upload into the watch folder under `name`, or `name-1`, `name-2`, ...
     * when taken. A hard link never overwrites, so two uploads can't take the same name.
     */
    const deliver = Effect.fn("WatchDirectory.deliver")(function*(tempPath: string, name: string) {
      return yield* Effect.try(() => {
        const [stem, ext] = splitExtension(name)
        for (let i = 0; i < 10_000; i++) {
          const candidate = i === 0 ? name : `${stem}-${i}${ext}`
          try {
            fs.linkSync(tempPath, path.join(paths.watchDir, candidate))
            fs.rmSync(tempPath, { force: true })
            return candidate
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
          }
        }
        throw new Error(`no free name for ${name}`)
      })
    })

    return { queued, deliver, uploadsDir: paths.uploadsDir, watchDir: paths.watchDir } as const
  }),
  dependencies: [StoragePaths.Default]
}) {}
