import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import {
  BadRequest,
  ErrorBody,
  FileTooLarge,
  GearIsImported,
  GpxNotAvailable,
  ImportModeNotFiles,
  InsufficientStorage,
  FileImportStatusConflict,
  InternalError,
  InvalidToken,
  MissingFile,
  NotFound,
  OriginalNotAvailable,
  PayloadTooLarge,
  UnsupportedFileType,
  UnsupportedMediaType
} from "../schema/ApiErrors.ts"
import { ImportProgress } from "../schema/ImportProgressModels.ts"
import {
  Activity,
  ActivityImage,
  ActivityList,
  ActivityUpdate,
  FileImportList,
  FileUpload,
  Gear,
  GearDetail,
  GearList,
  Status,
  UploadAccepted,
  Weight,
  WeightInput,
  WeightList
} from "../schema/ApiModels.ts"
import { CalendarDate } from "../schema/CalendarDate.ts"
import { GearCreate, GearUpdate } from "../schema/GearInput.ts"
import { BestEffortList, LapList, LengthList, SplitList, Streams } from "../schema/ActivityDetailModels.ts"
import {
  ActivitySearchParams,
  FileImportSearchParams,
  HeatmapParams,
  SportTypeParams,
  StatsFilterParams,
  StreamsParams,
  TotalsParams
} from "../schema/QueryParams.ts"
import { EddingtonAnswer, Heatmap, RecordList, TotalList } from "../schema/StatsModels.ts"
import { ActivityAnalysis, PowerCurveAnswer, Thresholds, ThresholdsInput, ThresholdsList, TrainingLoadAnswer, TrainingLoadParams } from "../schema/TrainingModels.ts"
import { AthleteYearGroup } from "./AthleteYearApi.ts"
import { Authorization } from "./Authorization.ts"
import { GearComponentsGroup } from "./GearComponentsApi.ts"
import { SegmentsGroup } from "./SegmentsApi.ts"
import { BodyLimit, uploadBody } from "./BodyLimits.ts"
import { HotRead } from "./HotRead.ts"
import { rewriteOpenApi } from "./OpenApiDocument.ts"
import { SharingGroup } from "./SharingApi.ts"

/** The JSON API, declared once; the OpenAPI document is generated from it. */

const activityId = HttpApiSchema.param("activityId", Schema.String.annotations({ description: "Prefixed id, starts with activity-" }))
const fileImportId = HttpApiSchema.param("fileImportId", Schema.String.annotations({ description: "Prefixed id, starts with fileImport-" }))
const imageId = HttpApiSchema.param("imageId", Schema.String.annotations({ description: "Prefixed id, starts with activityImage-" }))
const weightDate = HttpApiSchema.param("on", CalendarDate("on"))

const multipartFile = HttpApiSchema.Multipart(FileUpload)

export class SystemGroup extends HttpApiGroup.make("system")
  .add(
    HttpApiEndpoint.get("status", "/status")
      .addSuccess(Status)
      .annotate(HotRead, HotRead.of({ name: "system.status", invalidatedBy: "notKept" }))
      .annotate(OpenApi.Summary, "Check the connection, the URL and the key")
  )
  .middleware(Authorization)
  .annotate(OpenApi.Title, "Status") {}

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

export class ActivityDetailGroup extends HttpApiGroup.make("activityDetail")
  .add(
    HttpApiEndpoint.get("streams")`/activities/${activityId}/streams`
      .setUrlParams(StreamsParams)
      .addSuccess(Streams)
      .addSuccess(HttpApiSchema.Empty(304).annotations({ description: "Not Modified: the If-None-Match header names the current ETag" }))
      .addError(BadRequest.wire)
      .addError(NotFound.wire)
      .annotate(OpenApi.Summary, "The recorded streams (time, distance, position, altitude, speed, heart rate, cadence, power, temperature)")
      .annotate(
        OpenApi.Description,
        "Answers with an ETag; a request whose If-None-Match names it is answered 304 Not Modified without a body. " +
          "An activity without recorded streams (one from Strava) has none: `{\"streams\": {}}`."
      )
  )
  .add(
    HttpApiEndpoint.get("laps")`/activities/${activityId}/laps`
      .addSuccess(LapList)
      .addError(NotFound.wire)
      .annotate(OpenApi.Summary, "The laps, in order")
  )
  .add(
    HttpApiEndpoint.get("lengths")`/activities/${activityId}/lengths`
      .addSuccess(LengthList)
      .addError(NotFound.wire)
      .annotate(OpenApi.Summary, "A pool swim's lengths: time, strokes, stroke and SWOLF of each")
  )
  .add(
    HttpApiEndpoint.get("splits")`/activities/${activityId}/splits`
      .addSuccess(SplitList)
      .addError(NotFound.wire)
      .annotate(OpenApi.Summary, "The splits of every kilometre, then of every mile (of every 100 m, then 100 yd, for a swim)")
  )
  .add(
    HttpApiEndpoint.get("bestEfforts")`/activities/${activityId}/best-efforts`
      .addSuccess(BestEffortList)
      .addError(NotFound.wire)
      .annotate(OpenApi.Summary, "The fastest time over each standard distance within the activity (runs and rides)")
  )
  .add(
    HttpApiEndpoint.get("original")`/activities/${activityId}/original`
      .addSuccess(HttpApiSchema.Uint8Array({ contentType: "application/octet-stream" }))
      .addError(NotFound.wire)
      .addError(OriginalNotAvailable.wire)
      .annotate(OpenApi.Summary, "The file the activity was imported from, as imported (attachment under its original name)")
      .annotate(
        OpenApi.Description,
        "Served with the file's own media type: application/vnd.ant.fit, application/vnd.garmin.tcx+xml, application/gpx+xml, or application/gzip for a compressed file. " +
          "An activity from Strava has no original (404 original_not_available)."
      )
  )
  .middleware(Authorization)
  .annotate(OpenApi.Title, "Activity details") {}

export class FileImportsGroup extends HttpApiGroup.make("fileImports")
  .add(
    HttpApiEndpoint.get("search", "/file-imports")
      .setUrlParams(FileImportSearchParams)
      .addSuccess(FileImportList)
      .addError(BadRequest.wire)
      .annotate(HotRead, HotRead.of({ name: "fileImports.search", invalidatedBy: "notKept" }))
      .annotate(OpenApi.Summary, "Queued files first, then the outcome of every file import, newest first")
  )
  .add(
    HttpApiEndpoint.get("progress", "/file-imports/progress")
      .addSuccess(ImportProgress)
      .annotate(OpenApi.Summary, "How many files of the import under way are done, of how many, and the time left")
  )
  .add(
    HttpApiEndpoint.post("retry")`/file-imports/${fileImportId}/retry`
      .addSuccess(UploadAccepted, { status: 202 })
      .addError(NotFound.wire)
      .addError(OriginalNotAvailable.wire)
      .addError(FileImportStatusConflict.wire)
      .addError(ImportModeNotFiles.wire)
      .annotate(OpenApi.Summary, "Import a failed file again from its kept original; the failed row is replaced by the new import's")
  )
  .add(
    HttpApiEndpoint.del("delete")`/file-imports/${fileImportId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound.wire)
      .addError(FileImportStatusConflict.wire)
      .annotate(OpenApi.Summary, "Remove a failed or skipped import and its kept original (a successful one goes with its activity)")
  )
  .middleware(Authorization)
  .annotate(OpenApi.Title, "File imports") {}

const gearId = HttpApiSchema.param("gearId", Schema.String.annotations({ description: "Prefixed id, starts with gear-" }))

export class GearGroup extends HttpApiGroup.make("gear")
  .add(HttpApiEndpoint.get("list", "/gear").addSuccess(GearList).annotate(OpenApi.Summary, "All gear, active first"))
  .add(
    HttpApiEndpoint.post("create", "/gear")
      .setPayload(GearCreate)
      .addSuccess(Gear, { status: 201 })
      .addError(BadRequest.wire)
      .addError(UnsupportedMediaType.wire)
      .annotate(OpenApi.Summary, "Create custom gear (shoes, a bike) to give activities")
  )
  .add(
    HttpApiEndpoint.get("get")`/gear/${gearId}`
      .addSuccess(GearDetail)
      .addError(NotFound.wire)
      .annotate(OpenApi.Summary, "One gear with its distance month by month (its activities: GET /activities with filters[gearId])")
  )
  .add(
    HttpApiEndpoint.patch("update")`/gear/${gearId}`
      .setPayload(GearUpdate)
      .addSuccess(Gear)
      .addError(BadRequest.wire)
      .addError(NotFound.wire)
      .addError(GearIsImported.wire)
      .addError(UnsupportedMediaType.wire)
      .annotate(OpenApi.Summary, "Rename or retire gear; imported gear can be retired, not renamed")
  )
  .add(
    HttpApiEndpoint.del("delete")`/gear/${gearId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound.wire)
      .addError(GearIsImported.wire)
      .annotate(OpenApi.Summary, "Delete custom gear; the activities that used it keep no gear")
  )
  .middleware(Authorization)
  .annotate(OpenApi.Title, "Gear") {}

export class StatsGroup extends HttpApiGroup.make("stats")
  .add(
    HttpApiEndpoint.get("totals", "/stats/totals")
      .setUrlParams(TotalsParams)
      .addSuccess(TotalList)
      .addError(BadRequest.wire)
      .annotate(OpenApi.Summary, "Count, distance, time and elevation per week, month or year and sport type, newest first")
  )
  .add(
    HttpApiEndpoint.get("records", "/stats/records")
      .setUrlParams(SportTypeParams)
      .addSuccess(RecordList)
      .addError(BadRequest.wire)
      .annotate(OpenApi.Summary, "The fastest effort over each standard distance of runs and rides")
  )
  .add(
    HttpApiEndpoint.get("eddington", "/stats/eddington")
      .setUrlParams(SportTypeParams)
      .addSuccess(EddingtonAnswer)
      .addError(BadRequest.wire)
      .annotate(OpenApi.Summary, "The Eddington number in km and in miles, and the days still needed for the next one")
  )
  .add(
    HttpApiEndpoint.get("heatmap", "/stats/heatmap")
      .setUrlParams(HeatmapParams)
      .addSuccess(Heatmap)
      .addError(BadRequest.wire)
      .annotate(OpenApi.Summary, "Every route of one world (the real one by default), simplified for a map of the whole history")
      .annotate(
        OpenApi.Description,
        "Routes ridden or run in a virtual world (Zwift's Watopia lies in the open sea) are drawn on that world's own map, never among real ones: " +
          "they answer only `filters[worldType]` of their world, as do activities of a virtual sport (VirtualRide, VirtualRun, VirtualRow)."
      )
  )
  .middleware(Authorization)
  .annotate(OpenApi.Title, "Statistics") {}

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
      .addError(BadRequest.wire)
      .addError(UnsupportedMediaType.wire)
      .annotate(OpenApi.Summary, "Create or replace the measurement of a calendar date")
  )
  .add(
    HttpApiEndpoint.del("deleteWeight")`/athlete/weights/${weightDate}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(BadRequest.wire)
      .annotate(OpenApi.Summary, "Delete the measurement of a date, if there is one")
  )
  .middleware(Authorization)
  .annotate(OpenApi.Title, "Athlete") {}

const thresholdsDate = HttpApiSchema.param("on", CalendarDate("on"))

export class TrainingGroup extends HttpApiGroup.make("training")
  .add(
    HttpApiEndpoint.get("thresholds", "/athlete/thresholds")
      .addSuccess(ThresholdsList)
      .annotate(OpenApi.Summary, "The dated sets of thresholds (FTPs, heart rates), newest first")
  )
  .add(
    HttpApiEndpoint.post("saveThresholds", "/athlete/thresholds")
      .setPayload(ThresholdsInput)
      .addSuccess(Thresholds)
      .addError(BadRequest.wire)
      .addError(UnsupportedMediaType.wire)
      .annotate(OpenApi.Summary, "Create or replace the set of thresholds in force from a date until the next set's")
      .annotate(
        OpenApi.Description,
        "The training figures of the activities it governs are recomputed in the background: the answer does not wait for them."
      )
  )
  .add(
    HttpApiEndpoint.del("deleteThresholds")`/athlete/thresholds/${thresholdsDate}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(BadRequest.wire)
      .annotate(OpenApi.Summary, "Delete the set of thresholds of a date, if there is one (the set before it then governs its days)")
  )
  .add(
    HttpApiEndpoint.get("analysis")`/activities/${activityId}/analysis`
      .addSuccess(ActivityAnalysis)
      .addError(NotFound.wire)
      .annotate(OpenApi.Summary, "Training analysis: normalized power, IF, TSS, training load, power curve, time in zones, grade-adjusted or swim pace")
  )
  .add(
    HttpApiEndpoint.get("powerCurve", "/stats/power-curve")
      .setUrlParams(StatsFilterParams)
      .addSuccess(PowerCurveAnswer)
      .addError(BadRequest.wire)
      .annotate(OpenApi.Summary, "The best mean power at each duration over the selected activities, with an estimated FTP")
  )
  .add(
    HttpApiEndpoint.get("trainingLoad", "/stats/training-load")
      .setUrlParams(TrainingLoadParams)
      .addSuccess(TrainingLoadAnswer)
      .addError(BadRequest.wire)
      .annotate(OpenApi.Summary, "Training load per day with fitness (42 days), fatigue (7 days) and form")
  )
  .middleware(Authorization)
  .annotate(OpenApi.Title, "Training") {}

export class WaymarkApi extends HttpApi.make("waymark")
  .add(SystemGroup)
  .add(ActivitiesGroup)
  .add(ActivityDetailGroup)
  .add(FileImportsGroup)
  .add(GearGroup)
  .add(StatsGroup)
  .add(AthleteGroup)
  .add(TrainingGroup)
  .add(AthleteYearGroup)
  .add(GearComponentsGroup)
  .add(SharingGroup)
  .add(SegmentsGroup)
  .addError(InvalidToken.wire)
  .addError(PayloadTooLarge.wire)
  .addError(InsufficientStorage.wire)
  .addError(InternalError.wire)
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
