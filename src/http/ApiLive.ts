import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import { Effect, FiberRef, Layer, LogLevel } from "effect"
import { ActivitiesHttpLive } from "./ActivitiesHttp.ts"
import { WaymarkApi } from "./Api.ts"
import { AthleteHttpLive } from "./AthleteHttp.ts"
import { AuthorizationLive } from "./AuthorizationLive.ts"
import { ErrorResponsesLive } from "./ErrorResponses.ts"
import { FileImportsHttpLive } from "./FileImportsHttp.ts"
import { GearHttpLive } from "./GearHttp.ts"
import { PublicRoutesLive } from "./PublicRoutes.ts"
import { SystemHttpLive } from "./SystemHttp.ts"

/** Every route of the JSON API as one layer, without the listener (tests add their own). */
export const ApiLive = HttpApiBuilder.api(WaymarkApi).pipe(
  Layer.provide([SystemHttpLive, ActivitiesHttpLive, FileImportsHttpLive, GearHttpLive, AthleteHttpLive]),
  Layer.provide(AuthorizationLive)
)

/**
 * The framework's line per request, at debug: at the default level a busy API would log every
 * request. The handlers' own lines keep their level.
 */
const requestLogger = HttpMiddleware.make((app) =>
  Effect.flatMap(FiberRef.get(FiberRef.currentLogLevel), (level) =>
    Effect.locally(HttpMiddleware.logger(Effect.locally(app, FiberRef.currentLogLevel, level)), FiberRef.currentLogLevel, LogLevel.Debug))
)

/**
 * The whole HTTP app: the API, the public routes, the error mapping, and the routes of other
 * features (the Strava webhook), which the composition root hands in.
 */
export const makeHttpApp = <E, R>(featureRoutes: Layer.Layer<never, E, R>) =>
  HttpApiBuilder.serve(requestLogger).pipe(
    Layer.provide([PublicRoutesLive, ErrorResponsesLive, featureRoutes]),
    Layer.provide(ApiLive)
  )
