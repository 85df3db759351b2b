import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { BadRequest, NotFound, UnsupportedMediaType } from "../../schema/ApiErrors.ts"
import { CalendarDate } from "../../schema/CalendarDate.ts"
import { StatsFilterParams } from "../../schema/QueryParams.ts"
import { ActivityAnalysis, PowerCurveAnswer, Thresholds, ThresholdsInput, ThresholdsList, TrainingLoadAnswer, TrainingLoadParams } from "../../schema/TrainingModels.ts"
import { activityId } from "../ApiParams.ts"
import { Authorization } from "../Authorization.ts"

/** The training analysis: thresholds, an activity's analysis, the power curve and the training load (part of WaymarkApi). */

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
