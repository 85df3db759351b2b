import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { BadRequest } from "../../schema/ApiErrors.ts"
import { HeatmapParams, SportTypeParams, TotalsParams } from "../../schema/QueryParams.ts"
import { EddingtonAnswer, Heatmap, RecordList, TotalList } from "../../schema/StatsModels.ts"
import { Authorization } from "../Authorization.ts"

/** Statistics: totals, records, the Eddington number and the heatmap (part of WaymarkApi). */

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
