import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { BadRequest, FileTooLarge, GpxNotAvailable, ImportModeNotFiles, MissingFile, NotFound, UnsupportedFileType, UnsupportedMediaType } from "../../schema/ApiErrors.ts"
import { Activity, ActivityImage, ActivityList, ActivityUpdate, FileUpload, UploadAccepted } from "../../schema/ApiModels.ts"
import { ActivitySearchParams } from "../../schema/QueryParams.ts"
import { activityId } from "../ApiParams.ts"
import { Authorization } from "../Authorization.ts"
import { BodyLimit, uploadBody } from "../BodyLimits.ts"
import { HotRead } from "../HotRead.ts"

/** Activities: the upload, the search, one activity, its changes, removal, GPX and images (part of WaymarkApi). */

const imageId = HttpApiSchema.param("imageId", Schema.String.annotations({ description: "Prefixed id, starts with activityImage-" }))

const multipartFile = HttpApiSchema.Multipart(FileUpload)

export class ActivitiesGroup extends HttpApiGroup.make("activities")
  .add(
    HttpApiEndpoint.post("upload", "/activity/upload")
      .setPayload(multipartFile)
      .addSuccess(UploadAccepted, { status: 202 })
      .addError(MissingFile.wire)
      .addError(ImportModeNotFiles.wire)
      .addError(FileTooLarge.wire)
      .addError(UnsupportedMediaType.wire)
      .addError(UnsupportedFileType.wire)
      .annotate(BodyLimit, uploadBody({ watchFolder: true, archives: true }))
      .annotate(OpenApi.Summary, "Queue a .fit, .tcx, .gpx, .kml or .kmz file, or a .zip of them, for import")
  )
  .add(
    HttpApiEndpoint.get("search", "/activities")
      .setUrlParams(ActivitySearchParams)
      .addSuccess(ActivityList)
      .addError(BadRequest.wire)
      .annotate(HotRead, HotRead.of({ name: "activities.search", invalidatedBy: "commit" }))
      .annotate(OpenApi.Summary, "Search activities, newest first")
  )
  .add(
    HttpApiEndpoint.get("get")`/activities/${activityId}`
      .addSuccess(Activity)
      .addError(NotFound.wire)
      .annotate(HotRead, HotRead.of({ name: "activities.get", invalidatedBy: "commit" }))
      .annotate(OpenApi.Summary, "One activity")
  )
  .add(
    HttpApiEndpoint.patch("update")`/activities/${activityId}`
      .setPayload(ActivityUpdate)
      .addSuccess(Activity)
      .addError(BadRequest.wire)
      .addError(NotFound.wire)
      .addError(ImportModeNotFiles.wire)
      .annotate(OpenApi.Summary, "Change name, sport type, description or gear")
  )
  .add(
    HttpApiEndpoint.del("delete")`/activities/${activityId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound.wire)
      .addError(ImportModeNotFiles.wire)
      .annotate(OpenApi.Summary, "Delete an activity with its streams, laps, splits, best efforts, images and import log")
  )
  .add(
    HttpApiEndpoint.get("gpx")`/activities/${activityId}/gpx`
      .addSuccess(HttpApiSchema.Text({ contentType: "application/gpx+xml" }))
      .addError(NotFound.wire)
      .addError(GpxNotAvailable.wire)
      .annotate(OpenApi.Summary, "The route as a GPX 1.1 document (attachment)")
  )
  .add(
    HttpApiEndpoint.post("addImage")`/activities/${activityId}/images`
      .setPayload(multipartFile)
      .addSuccess(ActivityImage, { status: 201 })
      .addError(MissingFile.wire)
      .addError(NotFound.wire)
      .addError(ImportModeNotFiles.wire)
      .addError(FileTooLarge.wire)
      .addError(UnsupportedMediaType.wire)
      .addError(UnsupportedFileType.wire)
      .annotate(BodyLimit, uploadBody({ watchFolder: false }))
      .annotate(OpenApi.Summary, "Add a jpg, png or webp image to an activity")
  )
  .add(
    HttpApiEndpoint.del("removeImage")`/activities/${activityId}/images/${imageId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound.wire)
      .addError(ImportModeNotFiles.wire)
      .annotate(OpenApi.Summary, "Remove an image from an activity and delete its file")
  )
  .middleware(Authorization)
  .annotate(OpenApi.Title, "Activities") {}
