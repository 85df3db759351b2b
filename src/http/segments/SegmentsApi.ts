import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { BadRequest, NotFound, UnsupportedMediaType } from "../../schema/ApiErrors.ts"
import {
  ClimbList,
  ClimbSegmentCreate,
  SegmentCreate,
  SegmentDetail,
  SegmentEffortList,
  SegmentEffortPage,
  SegmentEffortParams,
  SegmentList,
  SegmentListParams,
  SegmentUpdate
} from "../../schema/SegmentModels.ts"
import { activityId } from "../ApiParams.ts"
import { Authorization } from "../Authorization.ts"

/** Segments, their leaderboards, an activity's efforts and climbs (part of WaymarkApi). */

const segmentId = HttpApiSchema.param("segmentId", Schema.String.annotations({ description: "Prefixed id, starts with segment-" }))
const climbIndex = HttpApiSchema.param("climbIndex", Schema.NumberFromString.pipe(Schema.int(), Schema.nonNegative()).annotations({
  description: "The climb's place in the activity's list, from 0"
}))

export class SegmentsGroup extends HttpApiGroup.make("segments")
  .add(
    HttpApiEndpoint.post("create", "/segments")
      .setPayload(SegmentCreate)
      .addSuccess(SegmentDetail, { status: 201 })
      .addError(BadRequest.wire)
      .addError(UnsupportedMediaType.wire)
      .annotate(OpenApi.Summary, "Make a segment from a stretch of an activity, points, a GPX file's text or a GeoJSON line")
      .annotate(
        OpenApi.Description,
        "100 m to 200 km. It is matched against every stored activity in the background: `matching` shows the progress. An activity passes it when its track enters within 25 m of its start, keeps every point of its line (one every 10 m) within 25 m, leaves within 25 m of its end, in its direction, over 90 to 110 % of its distance."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/segments")
      .setUrlParams(SegmentListParams)
      .addSuccess(SegmentList)
      .annotate(OpenApi.Summary, "The segments with their distance, grade, gain, effort count, best and last effort; filters[name] searches the names")
  )
  .add(
    HttpApiEndpoint.get("get")`/segments/${segmentId}`
      .addSuccess(SegmentDetail)
      .addError(NotFound.wire)
      .annotate(OpenApi.Summary, "One segment with its line and altitudes")
  )
  .add(
    HttpApiEndpoint.patch("update")`/segments/${segmentId}`
      .setPayload(SegmentUpdate)
      .addSuccess(SegmentDetail)
      .addError(BadRequest.wire)
      .addError(NotFound.wire)
      .addError(UnsupportedMediaType.wire)
      .annotate(OpenApi.Summary, "Rename a segment or change its sport group (its efforts are then found again)")
  )
  .add(
    HttpApiEndpoint.del("delete")`/segments/${segmentId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound.wire)
      .annotate(OpenApi.Summary, "Remove a segment with its efforts")
  )
  .add(
    HttpApiEndpoint.get("efforts")`/segments/${segmentId}/efforts`
      .setUrlParams(SegmentEffortParams)
      .addSuccess(SegmentEffortPage)
      .addError(BadRequest.wire)
      .addError(NotFound.wire)
      .annotate(OpenApi.Summary, "The segment's leaderboard, a page at a time: each effort with its rank among those filtered, by time (default) or newest first")
  )
  .add(
    HttpApiEndpoint.get("activityEfforts")`/activities/${activityId}/segment-efforts`
      .addSuccess(SegmentEffortList)
      .addError(NotFound.wire)
      .annotate(OpenApi.Summary, "The activity's efforts, each ranked among the efforts on its segment up to that date, and whether it was a personal record then, 2nd or 3rd")
  )
  .add(
    HttpApiEndpoint.get("climbs")`/activities/${activityId}/climbs`
      .addSuccess(ClimbList)
      .addError(NotFound.wire)
      .annotate(OpenApi.Summary, "The activity's climbs, categorised as Strava does (length × average grade)")
  )
  .add(
    HttpApiEndpoint.post("climbSegment")`/activities/${activityId}/climbs/${climbIndex}/segment`
      .setPayload(ClimbSegmentCreate)
      .addSuccess(SegmentDetail, { status: 201 })
      .addError(BadRequest.wire)
      .addError(NotFound.wire)
      .addError(UnsupportedMediaType.wire)
      .annotate(OpenApi.Summary, "Make a climb of the activity a segment")
      .annotate(OpenApi.Transform, (op) => ({ ...op, requestBody: { ...op["requestBody"], required: false } }))
  )
  .middleware(Authorization)
  .annotate(OpenApi.Title, "Segments and climbs") {}
