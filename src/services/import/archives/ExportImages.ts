import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { type ImageType, sniffImage } from "../../activities/ImageStore.ts"
import { StoragePaths } from "../../platform/StoragePaths.ts"

/**
 * The photos an export gives its activities, from the unpacking to the commit of each
 * activity's import: each is copied out of the archive into `files/export-images/<uuid>.<ext>`
 * (typed by its bytes; what is no jpg, png or webp is left out) before its activity's metadata
 * is kept (ExportMetadata names it). The commit links it into the images' folder under the same
 * name, writes its row with the activity, then removes the staged copy: a stop before the commit
 * leaves the staged copy for the next attempt (the link is made again, or found made); a stop
 * after it leaves a staged copy that nothing names. `sweep` removes those, and the images'
 * folder's copies of them that no row names.
 */

/** A staged image: `<uuid>.<ext>`, the name its activity image gets too. */
const STAGED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(jpg|png|webp)$/

/** The id of the activity image a staged image becomes. */
export const imageIdOf = (staged: string) => `activityImage-${staged.slice(0, staged.indexOf("."))}`

export class ExportImages extends Effect.Service<ExportImages>()("services/import/ExportImages", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const paths = yield* StoragePaths
    const dir = paths.exportImagesDir

    /** Copies the file `from` (an image unpacked from an archive) into the staged images; its name there, null when it is no image. */
    const stage = Effect.fn("ExportImages.stage")(function*(from: string) {
      return yield* Effect.sync(() => {
        const head = Buffer.alloc(16)
        const fd = fs.openSync(from, "r")
        let type: ImageType | null
        try {
          type = sniffImage(head.subarray(0, fs.readSync(fd, head, 0, head.length, 0)))
        } finally {
          fs.closeSync(fd)
        }
        if (type === null) return null
        const name = `${randomUUID()}.${type}`
        const temp = path.join(dir, `.${name}.part`)
        fs.copyFileSync(from, temp)
        fs.renameSync(temp, path.join(dir, name))
        return name
      })
    })

    /** Links each staged image into the images' folder under its own name (found there already after a stop: kept); the ones there. */
    const publish = Effect.fn("ExportImages.publish")(function*(staged: ReadonlyArray<string>) {
      return yield* Effect.sync(() =>
        staged.filter((name) => {
          if (!STAGED.test(name)) return false
          try {
            fs.linkSync(path.join(dir, name), path.join(paths.imagesDir, name))
          } catch (e) {
            const code = (e as NodeJS.ErrnoException).code
            if (code === "ENOENT") return false // staged by an import that a stop interrupted, and swept since
            if (code === "EXDEV" || code === "EPERM") fs.copyFileSync(path.join(dir, name), path.join(paths.imagesDir, name))
            else if (code !== "EEXIST") throw e
          }
          return true
        })
      )
    })

    /** Removes staged images (their activity's rows are committed, or their metadata forgotten). */
    const remove = Effect.fn("ExportImages.remove")(function*(staged: ReadonlyArray<string>) {
      yield* Effect.sync(() => {
        for (const name of staged) if (STAGED.test(name)) fs.rmSync(path.join(dir, name), { force: true })
      })
    })

    /**
     * Removes what a stop left: copies cut short, staged images that no kept metadata names
     * (`named`), and their links in the images' folder that no activity image names.
     */
    const sweep = Effect.fn("ExportImages.sweep")(function*(named: ReadonlySet<string>) {
      const unnamed = yield* Effect.sync(() => {
        const found: Array<string> = []
        for (const name of fs.readdirSync(dir)) {
          if (name.startsWith(".")) fs.rmSync(path.join(dir, name), { force: true })
          else if (!named.has(name)) found.push(name)
        }
        return found
      })
      for (const name of unnamed) {
        const rows = yield* sql`SELECT 1 FROM activity_images WHERE file_name = ${name} LIMIT 1`.pipe(Effect.orDie)
        yield* Effect.sync(() => {
          if (rows.length === 0) fs.rmSync(path.join(paths.imagesDir, name), { force: true })
          fs.rmSync(path.join(dir, name), { force: true })
        })
      }
    })

    return { stage, publish, remove, sweep } as const
  })
}) {}
