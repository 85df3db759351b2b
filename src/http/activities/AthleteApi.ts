import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { BadRequest, UnsupportedMediaType } from "../../schema/ApiErrors.ts"
import { Weight, WeightInput, WeightList } from "../../schema/ApiModels.ts"
import { CalendarDate } from "../../schema/CalendarDate.ts"
import { Authorization } from "../Authorization.ts"

/** The athlete's weight measurements (part of WaymarkApi). */

const weightDate = HttpApiSchema.param("on", CalendarDate("on"))

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
