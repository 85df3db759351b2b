import * as Effect from "effect/Effect"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { StoragePaths } from "../platform/StoragePaths.ts"

/** Activity images under `STORAGE_DIR/files/activities/<uuid>.<ext>`, typed by their bytes. */
export type ImageType = "jpg" | "png" | "webp"

export const sniffImage = (head: Uint8Array): ImageType | null => {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "jpg"
  if (head.length >= 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((b, i) => head[i] === b)) return "png"
  if (head.length >= 12 && Buffer.from(head.subarray(0, 4)).toString("latin1") === "RIFF" && Buffer.from(head.subarray(8, 12)).toString("latin1") === "WEBP") return "webp"
  return null
}

export const CONTENT_TYPES: Record<string, string> = {
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  gif: "image/gif",
  avif: "image/avif"
}

/** Where the image files are served, under APP_URL. */
export const IMAGES_URL_PATH = "/files/activities"

/** The public address of an image file: `APP_URL/files/activities/<uuid>.<ext>`. */
export const imageUrl = (appUrl: string, fileName: string): string => `${appUrl}${IMAGES_URL_PATH}/${fileName}`

/** `<uuid>.<ext>` and nothing else: the only names the image route serves. */
export const IMAGE_FILE_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(jpg|jpeg|png|webp|gif|avif)$/

export class ImageStore extends Effect.Service<ImageStore>()("services/activities/ImageStore", {
  effect: Effect.gen(function*() {
    const paths = yield* StoragePaths

    /** Moves a received file into the store; returns the image id and file name. */
    const keep = Effect.fn("ImageStore.keep")(function*(tempPath: string, type: ImageType) {
      const uuid = randomUUID()
      const fileName = `${uuid}.${type}`
      yield* Effect.try(() => fs.renameSync(tempPath, path.join(paths.imagesDir, fileName)))
      return { imageId: `activityImage-${uuid}`, fileName }
    })

    /** Stores downloaded bytes (external platform photos). */
    const write = Effect.fn("ImageStore.write")(function*(bytes: Uint8Array) {
      const type = sniffImage(bytes.subarray(0, 16))
      if (type === null) return null
      const temp = path.join(paths.imagesDir, `.${randomUUID()}.part`)
      yield* Effect.try(() => fs.writeFileSync(temp, bytes))
      return yield* keep(temp, type)
    })

    const remove = Effect.fn("ImageStore.remove")(function*(fileName: string) {
      yield* Effect.sync(() => fs.rmSync(path.join(paths.imagesDir, path.basename(fileName)), { force: true }))
    })

    const filePath = (fileName: string) => path.join(paths.imagesDir, path.basename(fileName))

    return { keep, write, remove, filePath, dir: paths.imagesDir } as const
  }),
  dependencies: [StoragePaths.Default]
}) {}
