import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { BadRequest, GearIsImported, NotFound, UnsupportedMediaType } from "../../schema/ApiErrors.ts"
import { Gear, GearDetail, GearList } from "../../schema/ApiModels.ts"
import { GearCreate, GearUpdate } from "../../schema/GearInput.ts"
import { Authorization } from "../Authorization.ts"

/** Gear: shoes and bikes given to activities (part of WaymarkApi). */

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
