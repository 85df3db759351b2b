import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import {
  BadRequestWire,
  ErrorBody,
  FileTooLargeWire,
  GpxNotAvailableWire,
  ImportModeNotFilesWire,
  InsufficientStorageWire,
  InternalErrorWire,
  InvalidTokenWire,
  MissingFileWire,
  NotFoundWire,
  PayloadTooLargeWire,
  UnsupportedFileTypeWire,
  UnsupportedMediaTypeWire
} from "../schema/ApiErrors.ts"
import {
  Activity,
  ActivityImage,
  ActivityList,
  ActivityUpdate,
  FileImportList,
  FileUpload,
  GearList,
  Status,
  UploadAccepted,
  Weight,
  WeightInput,
  WeightList
} from "../schema/ApiModels.ts"
import { CalendarDate } from "../schema/CalendarDate.ts"
import { ActivitySearchParams, FileImportSearchParams } from "../schema/QueryParams.ts"
import { Authorization } from "./Authorization.ts"
import { HotRead } from "./HotRead.ts"
import { rewriteOpenApi } from "./OpenApiDocument.ts"

/** The JSON API, declared once; the OpenAPI document is generated from it. */

const activityId = HttpApiSchema.param("activityId", Schema.String.annotations({ description: "Prefixed id, starts with activity-" }))
const imageId = HttpApiSchema.param("imageId", Schema.String.annotations({ description: "Prefixed id, starts with activityImage-" }))
const weightDate = HttpApiSchema.param("on", CalendarDate("on"))

const multipartFile = HttpApiSchema.Multipart(FileUpload)

export class SystemGroup extends HttpApiGroup.make("system")
  .add(
    HttpApiEndpoint.get("status", "/status")
      .addSuccess(Status)
      .annotate(HotRead, "system.status")
      .annotate(OpenApi.Summary, "Check the connection, the URL and the key")
  )
  .middleware(Authorization)
  .annotate(OpenApi.Title, "Status") {}

export class ActivitiesGroup extends HttpApiGroup.make("activities")
  .add(
    HttpApiEndpoint.post("upload", "/activity/upload")
      .setPayload(multipartFile)
      .addSuccess(UploadAccepted, { status: 202 })
      .addError(MissingFileWire)
      .addError(ImportModeNotFilesWire)
      .addError(FileTooLargeWire)
      .addError(UnsupportedMediaTypeWire)
      .addError(UnsupportedFileTypeWire)
      .annotate(OpenApi.Summary, "Queue a .fit, .tcx or .gpx file for import")
  )
  .add(
    HttpApiEndpoint.get("search", "/activities")
      .setUrlParams(ActivitySearchParams)
      .addSuccess(ActivityList)
      .addError(BadRequestWire)
      .annotate(HotRead, "activities.search")
      .annotate(OpenApi.Summary, "Search activities, newest first")
  )
  .add(
    HttpApiEndpoint.get("get")`/activities/${activityId}`
      .addSuccess(Activity)
      .addError(NotFoundWire)
      .annotate(HotRead, "activities.get")
      .annotate(OpenApi.Summary, "One activity")
  )
  .add(
    HttpApiEndpoint.patch("update")`/activities/${activityId}`
      .setPayload(ActivityUpdate)
      .addSuccess(Activity)
      .addError(BadRequestWire)
      .addError(NotFoundWire)
      .addError(ImportModeNotFilesWire)
      .annotate(OpenApi.Summary, "Change name, sport type, description or gear")
  )
  .add(
    HttpApiEndpoint.del("delete")`/activities/${activityId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFoundWire)
      .addError(ImportModeNotFilesWire)
      .annotate(OpenApi.Summary, "Delete an activity with its streams, laps, splits, best efforts, images and import log")
  )
  .add(
    HttpApiEndpoint.get("gpx")`/activities/${activityId}/gpx`
      .addSuccess(HttpApiSchema.Text({ contentType: "application/gpx+xml" }))
      .addError(NotFoundWire)
      .addError(GpxNotAvailableWire)
      .annotate(OpenApi.Summary, "The route as a GPX 1.1 document (attachment)")
  )
  .add(
    HttpApiEndpoint.post("addImage")`/activities/${activityId}/images`
      .setPayload(multipartFile)
      .addSuccess(ActivityImage, { status: 201 })
      .addError(MissingFileWire)
      .addError(NotFoundWire)
      .addError(ImportModeNotFilesWire)
      .addError(FileTooLargeWire)
      .addError(UnsupportedMediaTypeWire)
      .addError(UnsupportedFileTypeWire)
      .annotate(OpenApi.Summary, "Add a jpg, png or webp image to an activity")
  )
  .add(
    HttpApiEndpoint.del("removeImage")`/activities/${activityId}/images/${imageId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFoundWire)
      .addError(ImportModeNotFilesWire)
      .annotate(OpenApi.Summary, "Remove an image from an activity and delete its file")
  )
  .middleware(Authorization)
  .annotate(OpenApi.Title, "Activities") {}

export class FileImportsGroup extends HttpApiGroup.make("fileImports")
  .add(
    HttpApiEndpoint.get("search", "/file-imports")
      .setUrlParams(FileImportSearchParams)
      .addSuccess(FileImportList)
      .addError(BadRequestWire)
      .annotate(HotRead, "fileImports.search")
      .annotate(OpenApi.Summary, "Queued files first, then the outcome of every file import, newest first")
  )
  .middleware(Authorization)
  .annotate(OpenApi.Title, "File imports") {}

export class GearGroup extends HttpApiGroup.make("gear")
  .add(HttpApiEndpoint.get("list", "/gear").addSuccess(GearList).annotate(OpenApi.Summary, "All gear, active first"))
  .middleware(Authorization)
  .annotate(OpenApi.Title, "Gear") {}

export class AthleteGroup extends HttpApiGroup.make("athlete")
  .add(
    HttpApiEndpoint.get("weights", "/athlete/weights")
      .addSuccess(WeightList)
      .annotate(OpenApi.Summary, "Weight measurements, newest first")
  )
  .add(
    HttpApiEndpoint.post("saveWeight", "/athlete/weights")
      .setPayload(WeightInput)
      .addSuccess(Weight)
      .addError(BadRequestWire)
      .addError(UnsupportedMediaTypeWire)
      .annotate(OpenApi.Summary, "Create or replace the measurement of a calendar date")
  )
  .add(
    HttpApiEndpoint.del("deleteWeight")`/athlete/weights/${weightDate}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(BadRequestWire)
      .annotate(OpenApi.Summary, "Delete the measurement of a date, if there is one")
  )
  .middleware(Authorization)
  .annotate(OpenApi.Title, "Athlete") {}

export class WaymarkApi extends HttpApi.make("waymark")
  .add(SystemGroup)
  .add(ActivitiesGroup)
  .add(FileImportsGroup)
  .add(GearGroup)
  .add(AthleteGroup)
  .addError(InvalidTokenWire)
  .addError(PayloadTooLargeWire)
  .addError(InsufficientStorageWire)
  .addError(InternalErrorWire)
  // bearer auth is declared per group: a middleware of the HttpApi itself wraps the whole
  // router in v3, including the public routes (/api/openapi.yaml, /files/*)
  .prefix("/api/v1")
  .annotateContext(OpenApi.annotations({
    title: "Waymark HTTP API",
    version: "v1",
    description: "Self-hosted activity tracking: activities imported from FIT, TCX and GPX files or from Strava.",
    transform: rewriteOpenApi
  }))
  .annotate(HttpApi.AdditionalSchemas, [ErrorBody]) {}
