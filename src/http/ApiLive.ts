import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import { Effect, Layer } from "effect"
import { AppConfig } from "../services/platform/AppConfig.ts"
import { ActivityDetail } from "../services/activities/ActivityDetail.ts"
import { ActivitiesHttpLive } from "./ActivitiesHttp.ts"
import { ActivityDetailHttpLive } from "./ActivityDetailHttp.ts"
import { Stats } from "../services/stats/Stats.ts"
import { FileImportActions } from "../services/import/FileImportActions.ts"
import { StatsHttpLive } from "./StatsHttp.ts"
import { WaymarkApi } from "./Api.ts"
import { AthleteHttpLive } from "./AthleteHttp.ts"
import { AthleteYearHttpLive } from "./AthleteYearHttp.ts"
import { AthleteYear } from "../services/year/AthleteYear.ts"
import { GearComponentsHttpLive } from "./GearComponentsHttp.ts"
import { AuthorizationLive } from "./AuthorizationLive.ts"
import { DashboardRoutesLive } from "./dashboard/DashboardRoutes.ts"
import { DashboardSessions } from "./dashboard/DashboardSessions.ts"
import { DirectRoutesLive } from "./DirectRoutes.ts"
import { HotReads } from "./HotReads.ts"
import { ErrorResponsesLive } from "./ErrorResponses.ts"
import { FileImportsHttpLive } from "./FileImportsHttp.ts"
import type { BodyLimitRule } from "./BodyLimits.ts"
import { RequestBodyLive } from "./RequestBody.ts"
import { configuredSecrets, makeRedactor, makeRequestLog } from "./RequestLog.ts"
import { GearHttpLive } from "./GearHttp.ts"
import { HealthHttpLive } from "./HealthHttp.ts"
import { MetricsHttpLive } from "./MetricsHttp.ts"
import { PublicRoutesLive } from "./PublicRoutes.ts"
import { SystemHttpLive } from "./SystemHttp.ts"
import { TrainingHttpLive } from "./TrainingHttp.ts"
import { TrainingReads } from "../services/training/TrainingReads.ts"

/** Every route of the JSON API as one layer, without the listener (tests add their own). */
export const ApiLive = HttpApiBuilder.api(WaymarkApi).pipe(
  Layer.provide([SystemHttpLive, ActivitiesHttpLive, ActivityDetailHttpLive, FileImportsHttpLive, GearHttpLive, StatsHttpLive, AthleteHttpLive, TrainingHttpLive]),
  Layer.provide([AthleteYearHttpLive, GearComponentsHttpLive]),
  Layer.provide([AuthorizationLive, HotReads.Default]),
  Layer.provide(DashboardSessions.Default),
  // the services of the detail, statistics and import-log routes, over the daemon's storage
  Layer.provide([ActivityDetail.Default, Stats.Default, FileImportActions.Default, TrainingReads.Default, AthleteYear.Default])
)

/**
 * The whole HTTP app: the API, the public routes, the error mapping, and the routes of other
 * features (the Strava webhook) with their body limits, which the composition root hands in;
 * and the direct routes derived from the API, in front of it in the listener.
 */
export const makeHttpApp = <E, R>(featureRoutes: Layer.Layer<never, E, R>, featureBodyLimits: ReadonlyArray<BodyLimitRule>) =>
  Layer.unwrapEffect(Effect.map(AppConfig, (config) =>
    HttpApiBuilder.serve(makeRequestLog(makeRedactor(configuredSecrets(config)))).pipe(
      // the request log traces each request with its secrets redacted, in place of the platform's tracer
      HttpMiddleware.withTracerDisabledWhen(() => true),
      Layer.provide([PublicRoutesLive, HealthHttpLive, DashboardRoutesLive, MetricsHttpLive, ErrorResponsesLive, RequestBodyLive(featureBodyLimits), featureRoutes]),
      Layer.provide(ApiLive),
      // the same layer as the API's: memoised, one set of sessions for sign-in and authorization
      Layer.provide(DashboardSessions.Default),
      Layer.merge(DirectRoutesLive)
    )))
