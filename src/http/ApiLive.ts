import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import { Layer } from "effect"
import { ActivitiesHttpLive } from "./ActivitiesHttp.ts"
import { WaymarkApi } from "./Api.ts"
import { AthleteHttpLive } from "./AthleteHttp.ts"
import { AuthorizationLive } from "./AuthorizationLive.ts"
import { ErrorResponsesLive } from "./ErrorResponses.ts"
import { FileImportsHttpLive } from "./FileImportsHttp.ts"
import { GearHttpLive } from "./GearHttp.ts"
import { HealthHttpLive } from "./HealthHttp.ts"
import { PublicRoutesLive } from "./PublicRoutes.ts"
import { SystemHttpLive } from "./SystemHttp.ts"

/** Every route of the JSON API as one layer, without the listener (tests add their own). */
export const ApiLive = HttpApiBuilder.api(WaymarkApi).pipe(
  Layer.provide([SystemHttpLive, ActivitiesHttpLive, FileImportsHttpLive, GearHttpLive, AthleteHttpLive]),
  Layer.provide(AuthorizationLive)
)

/**
 * The whole HTTP app: the API, the public routes, the error mapping, and the routes of other
 * features (the Strava webhook), which the composition root hands in.
 */
export const makeHttpApp = <E, R>(featureRoutes: Layer.Layer<never, E, R>) =>
  HttpApiBuilder.serve(HttpMiddleware.logger).pipe(
    Layer.provide([PublicRoutesLive, HealthHttpLive, ErrorResponsesLive, featureRoutes]),
    Layer.provide(ApiLive)
  )
