import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import {
  BadRequest,
  GpxNotAvailable,
  ImportModeNotFiles,
  type InsufficientStorage,
  type InternalError,
  NotFound,
  UnsupportedFileType
} from "../../schema/ApiErrors.ts"
import { Activity, ActivityUpdate } from "../../schema/ApiModels.ts"
import { checkActivityFileName } from "../../services/import/files/ActivityFileName.ts"
import { type ActivityPatch, ActivityRepo } from "../../services/activities/ActivityRepo.ts"
import { ActivityRemoval } from "../../services/activities/ActivityRemoval.ts"
import { AppConfig } from "../../services/platform/AppConfig.ts"
import { GearRepo } from "../../services/activities/GearRepo.ts"
import { asciiFallback, gpxFilename, writeGpx } from "../../services/activities/GpxWriter.ts"
import { ImageStore, sniffImage } from "../../services/activities/ImageStore.ts"
import { ActivityReprocess } from "../../services/import/ActivityReprocess.ts"
import { ImportQueue } from "../../services/import/ImportQueue.ts"
import { WatchDirectory } from "../../services/import/WatchDirectory.ts"
import { WaymarkApi } from "../Api.ts"
import { jsonResponder } from "../encode/jsonResponder.ts"
import { checkMultipartHeaders, storeFailure, withReceivedFile } from "../FilePart.ts"
import { activityNotFound, HotReads } from "../HotReads.ts"
import { decodeBody, readJsonObject } from "../JsonBody.ts"

const decodeUpdate = decodeBody(ActivityUpdate)
const updatableFields = Object.keys(ActivityUpdate.fields)
const activityJson = jsonResponder(Activity)

export const ActivitiesHttpLive = HttpApiBuilder.group(WaymarkApi, "activities", (handlers) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const activities = yield* ActivityRepo
    const removal = yield* ActivityRemoval
    const gear = yield* GearRepo
    const images = yield* ImageStore
    const watch = yield* WatchDirectory
    const queue = yield* ImportQueue
    const hot = yield* HotReads
    const reprocess = yield* ActivityReprocess

    const requireFilesMode = (message: string) =>
      config.importMode === "files" ? Effect.void : Effect.fail(new ImportModeNotFiles({ message }))

    const requireActivity = (id: string) =>
      Effect.flatMap(activities.exists(id), (found) => (found ? Effect.void : Effect.fail(activityNotFound(id))))

    const imageLimits = { maxFileSize: config.uploadMaxFileSize, maxPostSize: config.postMaxSize, watchFolder: false }
    const limits = { ...imageLimits, watchFolder: true, maxArchiveSize: config.archiveMaxSize }

    const patchFrom = (body: Record<string, unknown>) =>
      Effect.gen(function*() {
        if (Object.keys(body).length === 0) {
          return yield* new BadRequest({ message: `The request body must contain at least one of: ${updatableFields.join(", ")}.` })
        }
        const update = yield* decodeUpdate(body)
        const patch: { -readonly [K in keyof ActivityPatch]: ActivityPatch[K] } = {}
        if (update.name !== undefined) patch.name = update.name
        if (update.sportType !== undefined) patch.sportType = update.sportType
        if (update.description !== undefined) patch.description = update.description ?? ""
        if (update.excludeFromRecords !== undefined) patch.excludeFromRecords = update.excludeFromRecords
        if (update.gearId !== undefined) {
          const gearId = update.gearId ?? ""
          if (gearId !== "" && (!gearId.startsWith("gear-") || !(yield* gear.exists(gearId)))) {
            return yield* new BadRequest({ message: `Gear "${gearId}" not found.` })
          }
          patch.gearId = gearId === "" ? null : gearId
        }
        return patch
      })

    return handlers
      .handleRaw("upload", ({ request }) =>
        Effect.gen(function*() {
          yield* checkMultipartHeaders(request, limits)
          yield* requireFilesMode("Activity files can only be uploaded when running in file import mode.")
          const stored = yield* withReceivedFile(request, {
            ...limits,
            tempDir: watch.uploadsDir,
            checkName: (name) =>
              Either.match(checkActivityFileName(name), {
                onLeft: (message) => Effect.fail(new UnsupportedFileType({ message })),
                onRight: () => Effect.void
              })
          }, (file) => {
            const { name } = Either.getOrThrow(checkActivityFileName(file.name))
            return watch.deliver(file.tempPath, name).pipe(Effect.mapError(storeFailure))
          })
          // the file is complete (linked in at once): no need to wait for the watcher to see it settle
          yield* queue.offer(stored)
          yield* Effect.logInfo(`upload queued as ${stored}`)
          return HttpServerResponse.unsafeJson(
            { status: "queued", message: `File queued for import as "${stored}".` },
            { status: 202 }
          )
        })
      )
      .handle("search", hot.handler("activities.search"))
      .handle("get", hot.handler("activities.get"))
      .handleRaw("update", ({ path: { activityId }, request }) =>
        Effect.gen(function*() {
          yield* requireFilesMode("Activities can only be updated when running in file import mode.")
          yield* requireActivity(activityId)
          const body = yield* readJsonObject(request, { onWrongContentType: "badRequest" }).pipe(
            Effect.catchTag("UnsupportedMediaType", (e) => Effect.fail(new BadRequest({ message: e.message })))
          )
          const patch = yield* patchFrom(body)
          const before = patch.sportType === undefined ? null : yield* activities.findById(activityId)
          yield* activities.update(activityId, patch, { byAthlete: true })
          // what depends on the sport (moving time, splits, best efforts and records, cadence) is
          // computed again at once from the kept original; an activity without one keeps its figures
          if (before !== null && before.sportType !== patch.sportType) {
            yield* reprocess.one(activityId, true).pipe(
              Effect.catchTag("ReprocessError", (e) => Effect.logInfo(`sport of ${activityId} changed, figures kept: ${e.message}`))
            )
          }
          const updated = yield* activities.findById(activityId)
          if (updated === null) return yield* activityNotFound(activityId)
          return activityJson(updated)
        })
      )
      .handle("delete", ({ path: { activityId } }) =>
        Effect.gen(function*() {
          yield* requireFilesMode("Activities can only be deleted when running in file import mode.")
          yield* requireActivity(activityId)
          yield* removal.remove(activityId)
        })
      )
      .handle("gpx", ({ path: { activityId } }) =>
        Effect.gen(function*() {
          const track = yield* activities.track(activityId)
          if (track === null) return yield* activityNotFound(activityId)
          if (!track.hasGpx || track.streams === null) {
            return yield* new GpxNotAvailable({ message: `Activity "${activityId}" has no GPS or time data to export as GPX.` })
          }
          // the activity's totals travel in the track's statistics
          const stats = yield* activities.findById(activityId)
          const xml = writeGpx({
            name: track.name,
            sportType: track.sportType,
            description: track.description,
            startTime: track.startTime,
            streams: track.streams,
            ...(stats !== null ? { stats } : {})
          })
          const filename = gpxFilename(track.startDateLocal, track.name)
          return HttpServerResponse.text(xml, {
            contentType: "application/gpx+xml; charset=utf-8",
            headers: {
              "content-disposition": `attachment; filename="${asciiFallback(filename)}"; filename*=UTF-8''${encodeURIComponent(filename)}`
            }
          })
        })
      )
      .handleRaw("addImage", ({ path: { activityId }, request }) =>
        Effect.gen(function*() {
          yield* checkMultipartHeaders(request, imageLimits)
          yield* requireFilesMode("Images can only be added to activities when running in file import mode.")
          yield* requireActivity(activityId)
          const kept = yield* withReceivedFile(request, { ...imageLimits, tempDir: images.dir, checkName: () => Effect.void }, (file) => {
            const type = sniffImage(file.head)
            if (type === null) return Effect.fail<UnsupportedFileType | InternalError | InsufficientStorage>(new UnsupportedFileType({ message: "The file is not a jpg, png or webp image." }))
            return images.keep(file.tempPath, type).pipe(Effect.mapError(storeFailure))
          })
          const image = yield* activities.addImage(activityId, kept.imageId, kept.fileName).pipe(
            Effect.onError(() => images.remove(kept.fileName))
          )
          return HttpServerResponse.unsafeJson(image, { status: 201 })
        })
      )
      .handle("removeImage", ({ path: { activityId, imageId } }) =>
        Effect.gen(function*() {
          yield* requireFilesMode("Images can only be removed from activities when running in file import mode.")
          yield* requireActivity(activityId)
          const image = yield* activities.findImage(activityId, imageId)
          if (image === null) return yield* new NotFound({ message: `Image "${imageId}" not found.` })
          yield* activities.removeImage(imageId)
          yield* images.remove(image.file_name)
        })
      )
  })
)
