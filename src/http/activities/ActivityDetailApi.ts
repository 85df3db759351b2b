import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { BadRequest, NotFound, OriginalNotAvailable } from "../../schema/ApiErrors.ts"
import { BestEffortList, LapList, LengthList, SplitList, Streams } from "../../schema/ActivityDetailModels.ts"
import { StreamsParams } from "../../schema/QueryParams.ts"
import { activityId } from "../ApiParams.ts"
import { Authorization } from "../Authorization.ts"

/** An activity's streams, laps, lengths, splits, best efforts and original file (part of WaymarkApi). */

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
