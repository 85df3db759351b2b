import * as HttpApi from "@effect/platform/HttpApi"
import * as OpenApi from "@effect/platform/OpenApi"
import { ErrorBody, InsufficientStorage, InternalError, InvalidToken, PayloadTooLarge } from "../schema/ApiErrors.ts"
import { ActivitiesGroup } from "./activities/ActivitiesApi.ts"
import { ActivityDetailGroup } from "./activities/ActivityDetailApi.ts"
import { AthleteGroup } from "./activities/AthleteApi.ts"
import { AthleteYearGroup } from "./year/AthleteYearApi.ts"
import { FileImportsGroup } from "./import/FileImportsApi.ts"
import { GearGroup } from "./gear/GearApi.ts"
import { GearComponentsGroup } from "./gear/GearComponentsApi.ts"
import { rewriteOpenApi } from "./OpenApiDocument.ts"
import { SegmentsGroup } from "./segments/SegmentsApi.ts"
import { SharingGroup } from "./sharing/SharingApi.ts"
import { StatsGroup } from "./stats/StatsApi.ts"
import { SystemGroup } from "./system/SystemApi.ts"
import { TrainingGroup } from "./training/TrainingApi.ts"

/**
 * The JSON API, declared once as the composition of its groups (each in a file of its own,
 * beside its handlers); the OpenAPI document is generated from it.
 */

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
