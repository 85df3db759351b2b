import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { BadRequest, NotFound, UnsupportedMediaType } from "../../schema/ApiErrors.ts"
import {
  ComponentServiceInput,
  GearComponent,
  GearComponentCreate,
  GearComponentList,
  GearComponentUpdate
} from "../../schema/GearComponentModels.ts"
import { Authorization } from "../Authorization.ts"

/** Gear maintenance: each gear's components, their intervals and service records (part of WaymarkApi). */

const gearId = HttpApiSchema.param("gearId", Schema.String.annotations({ description: "Prefixed id, starts with gear-" }))
const componentId = HttpApiSchema.param("componentId", Schema.String.annotations({ description: "Prefixed id, starts with gearComponent-" }))

export class GearComponentsGroup extends HttpApiGroup.make("gearComponents")
  .add(
    HttpApiEndpoint.get("list")`/gear/${gearId}/components`
      .addSuccess(GearComponentList)
      .addError(NotFound.wire)
      .annotate(OpenApi.Summary, "The gear's components with their use since the last service and what is due")
  )
  .add(
    HttpApiEndpoint.post("create")`/gear/${gearId}/components`
      .setPayload(GearComponentCreate)
      .addSuccess(GearComponent, { status: 201 })
      .addError(BadRequest.wire)
      .addError(NotFound.wire)
      .addError(UnsupportedMediaType.wire)
      .annotate(OpenApi.Summary, "Add a component (chain, tyres, shoes…) with its install date and a maintenance interval in distance, moving time and/or days")
  )
  .add(
    HttpApiEndpoint.get("get")`/gear/${gearId}/components/${componentId}`
      .addSuccess(GearComponent)
      .addError(NotFound.wire)
      .annotate(OpenApi.Summary, "One component")
  )
  .add(
    HttpApiEndpoint.patch("update")`/gear/${gearId}/components/${componentId}`
      .setPayload(GearComponentUpdate)
      .addSuccess(GearComponent)
      .addError(BadRequest.wire)
      .addError(NotFound.wire)
      .addError(UnsupportedMediaType.wire)
      .annotate(OpenApi.Summary, "Rename a component, change its install date or its intervals (null clears one)")
  )
  .add(
    HttpApiEndpoint.del("delete")`/gear/${gearId}/components/${componentId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound.wire)
      .annotate(OpenApi.Summary, "Remove a component with its service records")
  )
  .add(
    HttpApiEndpoint.post("service")`/gear/${gearId}/components/${componentId}/service`
      .setPayload(ComponentServiceInput)
      .addSuccess(GearComponent, { status: 201 })
      .addError(BadRequest.wire)
      .addError(NotFound.wire)
      .addError(UnsupportedMediaType.wire)
      .annotate(OpenApi.Summary, "Record a service done today (no body) or on a date: its use is counted again from that day")
      // the body may be left out: a service done today
      .annotate(OpenApi.Transform, (op) => ({ ...op, requestBody: { ...op["requestBody"], required: false } }))
  )
  .middleware(Authorization)
  .annotate(OpenApi.Title, "Gear maintenance") {}
