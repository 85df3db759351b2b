import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Either, Metric, MetricLabel, Option } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { WEBHOOK_PATH } from "../connectors/strava/StravaWebhookRoutes.ts"
import { InvalidToken } from "../schema/ApiErrors.ts"
import { ApiKey } from "../services/platform/ApiKey.ts"
import { AppConfig } from "../services/platform/AppConfig.ts"
import { ImportQueue } from "../services/import/ImportQueue.ts"
import { httpRequestDuration, importQueueLength } from "../services/platform/Metrics.ts"
import { MetricsExport, metricsResponse } from "../services/platform/MetricsExport.ts"
import { declaredRoutes, errorResponse } from "./ErrorResponses.ts"
import { WrongKeys } from "./WrongKeys.ts"

/**
 * `GET /metrics`: every metric in the Prometheus text format, behind the API key unless
 * METRICS_PUBLIC=true (a scraper on a private network, without the key). And the request
 * metrics, taken on the Node request itself so that the answers of the fast path
 * (DirectRoutes), which never reach the app, are counted as well.
 */

/** The daemon's readers, with the import queue's length read at each collection. */
export const DaemonMetricsLive = MetricsExport.layer(
  "waymark",
  Effect.flatMap(ImportQueue, (queue) => Effect.flatMap(queue.size, (queued) => Metric.set(importQueueLength, queued)))
)

export const MetricsHttpLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const apiKey = yield* ApiKey
    const metrics = yield* MetricsExport
    const wrongKeys = yield* WrongKeys
    yield* router.get(
      "/metrics",
      Effect.gen(function*() {
        if (!config.metricsPublic) {
          const request = yield* HttpServerRequest.HttpServerRequest
          const denied = apiKey.check(request.headers["authorization"])
          if (Either.isLeft(denied)) {
            const counted = request.headers["authorization"] === undefined || !apiKey.isConfigured
              ? Effect.void
              : wrongKeys.wrongKey(Option.getOrUndefined(request.remoteAddress), "API key")
            return yield* counted.pipe(
              Effect.as(errorResponse(new InvalidToken({ message: `${denied.left} (or set METRICS_PUBLIC=true)` }))),
              Effect.catchAll((e) => Effect.succeed(errorResponse(e)))
            )
          }
        }
        return yield* Effect.provideService(metricsResponse, MetricsExport, metrics)
      })
    )
  })
)

/** The routes outside the API, by path; every other path counts as `other`, so that a scan cannot add series. */
const OTHER_ROUTES: ReadonlyArray<{ readonly path: string; readonly pattern: RegExp }> = [
  "/status",
  "/healthz",
  "/metrics",
  "/api/openapi.yaml",
  WEBHOOK_PATH
].map((path) => ({ path, pattern: new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/?$`) }))
  .concat([{ path: "/files/activities/:name", pattern: /^\/files\/activities\/[^/]+$/ }])

/** The route a request is counted under: the declared path of its endpoint, or `other`. */
export const routeOf = (method: string, url: string): string => {
  const path = url.split("?")[0]!
  const upper = method.toUpperCase()
  for (const route of declaredRoutes) {
    if ((route.method === upper || (upper === "HEAD" && route.method === "GET")) && route.pattern.test(path)) return route.path
  }
  for (const route of OTHER_ROUTES) if (route.pattern.test(path)) return route.path
  return "other"
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

/**
 * The histogram of each route, method and status, tagged once: an update with labels looks
 * its series up by hashing them (about 5 µs), a tagged one goes straight to it. Bounded: the
 * routes are the declared ones and `other`, the methods those above and `other`.
 */
const requestSeries = new Map<string, Metric.Metric.Histogram<number>>()

const seriesOf = (route: string, method: string, status: number) => {
  const key = `${route} ${method} ${status}`
  let series = requestSeries.get(key)
  if (series === undefined) {
    series = Metric.taggedWithLabels(httpRequestDuration, [
      MetricLabel.make("route", route),
      MetricLabel.make("method", method),
      MetricLabel.make("status", String(status))
    ])
    requestSeries.set(key, series)
  }
  return series
}

/** Times a Node request from its arrival to the end of its answer (or the connection's). */
export const observeRequest = (request: IncomingMessage, response: ServerResponse) => {
  const started = performance.now()
  response.once("close", () => {
    const method = METHODS.has(request.method ?? "") ? request.method! : "other"
    seriesOf(routeOf(method, request.url ?? "/"), method, response.statusCode).unsafeUpdate((performance.now() - started) / 1000, [])
  })
}
