import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import { ActivitiesHttpLive } from "./activities/ActivitiesHttp.ts"
import { ActivityDetailHttpLive } from "./activities/ActivityDetailHttp.ts"
import { StatsHttpLive } from "./stats/StatsHttp.ts"
import { WaymarkApi } from "./Api.ts"
import { AthleteHttpLive } from "./activities/AthleteHttp.ts"
import { AthleteYearHttpLive } from "./year/AthleteYearHttp.ts"
import { GearComponentsHttpLive } from "./gear/GearComponentsHttp.ts"
import { SharingHttpLive } from "./sharing/SharingHttp.ts"
import { SegmentsHttpLive } from "./segments/SegmentsHttp.ts"
import { ApiAuthorization, AuthorizationLive } from "./AuthorizationLive.ts"
import { DashboardSessions } from "./dashboard/DashboardSessions.ts"
import { DirectRoutesLive } from "./DirectRoutes.ts"
import { HotReads } from "./HotReads.ts"
import { slicedScheduler } from "./inSlices.ts"
import { ErrorResponsesLive } from "./ErrorResponses.ts"
import { FileImportsHttpLive } from "./import/FileImportsHttp.ts"
import { RequestBodyLive } from "./RequestBody.ts"
import { RequestLog } from "./RequestLog.ts"
import { RouteTable, servedLive, type ServedRoutes } from "./RouteTable.ts"
import { ServedAnswers } from "./ServedAnswers.ts"
import { GearHttpLive } from "./gear/GearHttp.ts"
import { SystemHttpLive } from "./system/SystemHttp.ts"
import { TrainingHttpLive } from "./training/TrainingHttp.ts"
import { MapsLive } from "../services/maps/MapsLive.ts"

/** Every route of the JSON API as one layer, without the listener (tests add their own), over the features' layers (runtime/Services.ts) and the hot reads (HotReads). */
export const ApiLive = HttpApiBuilder.api(WaymarkApi).pipe(
  Layer.provide([SystemHttpLive, ActivitiesHttpLive, ActivityDetailHttpLive, FileImportsHttpLive, GearHttpLive, StatsHttpLive, AthleteHttpLive, TrainingHttpLive]),
  Layer.provide([AthleteYearHttpLive, GearComponentsHttpLive, SharingHttpLive, SegmentsHttpLive]),
  Layer.provide(AuthorizationLive)
)

/**
 * How long the app's request fibers may hold the event loop at a time: a request's steps (an
 * upload's parts, its file, its row) run in slices, so that a burst of them leaves the loop to
 * take in the probes and the hot reads between two slices.
 */
const REQUEST_SLICE_MILLIS = 5

/**
 * A request's fiber starts where Node hands the request over: in the poll phase that read it,
 * beside every other request of that read. Its first steps (the request log's span, the route,
 * the key, the decoding of the request) would run there at once, for a burst of uploads two
 * hundred of them in one stretch of the event loop; yielding first, they run in the slices.
 */
const inTurn = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> => Effect.zipRight(Effect.yieldNow(), app)

/**
 * `HttpApiBuilder.serve` with the request log, once the routes of the app's router are checked
 * against the route table: a route neither the HttpApi nor a served feature declares stops the
 * start. Its request fibers run on a scheduler of slices (slicedScheduler), inherited from the
 * server's runtime.
 */
const serveDeclared = Layer.unwrapEffect(
    Effect.gen(function*() {
      const table = yield* RouteTable
      const router = yield* HttpApiBuilder.Router.router
      table.checkServed(Chunk.toReadonlyArray(router.routes))
      const requestLog = yield* RequestLog
      return HttpServer.serve(yield* HttpApiBuilder.httpApp, (app) => inTurn(requestLog.app(app)))
    })
  ).pipe(
    Layer.locally(FiberRef.currentScheduler, slicedScheduler(REQUEST_SLICE_MILLIS)),
    Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer])
  )

/**
 * The whole HTTP app: the API and the routes the composition serves beside it (the probes,
 * the dashboard, the metrics, a connector's webhook), whose paths the route table holds; the
 * error mapping and the body limits; and the direct routes, in front of it in the listener
 * (the hot reads, and the served routes' answers that need nothing of the request).
 */
export const makeHttpApp = <const S extends ReadonlyArray<ServedRoutes<any, any>>>(served: S) =>
  serveDeclared.pipe(
    // the request log traces each request with its secrets redacted, in place of the platform's tracer
    HttpMiddleware.withTracerDisabledWhen(() => true),
    Layer.provide([ErrorResponsesLive, RequestBodyLive, servedLive(served)]),
    Layer.provide(ApiLive),
    Layer.merge(DirectRoutesLive),
    // one set of answers for the routes served beside the API and the direct routes; one set of
    // hot reads, with one store of kept answers, for the app's handlers and the direct routes; one
    // request log (spans, log lines) for both
    Layer.provide([ServedAnswers.Default, HotReads.Default, RequestLog.Default]),
    // one authorization for the app and the direct routes, over one set of dashboard sessions
    Layer.provide(ApiAuthorization.Default),
    Layer.provide(DashboardSessions.Default),
    // one source of map tiles for the tile route, the dashboard's shell, the status and the hot reads
    Layer.provide(MapsLive)
  )
