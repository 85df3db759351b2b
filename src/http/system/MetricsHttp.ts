import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Metric from "effect/Metric"
import * as MetricLabel from "effect/MetricLabel"
import * as Option from "effect/Option"
import type { IncomingMessage, ServerResponse } from "node:http"
import { InvalidToken } from "../../schema/ApiErrors.ts"
import { ApiKey } from "../../services/platform/ApiKey.ts"
import { AppConfig } from "../../services/platform/AppConfig.ts"
import { ImportQueue } from "../../services/import/ImportQueue.ts"
import { httpRequestDuration, importQueueLength } from "../../services/platform/Metrics.ts"
import { MetricsExport, metricsResponse } from "../../services/platform/MetricsExport.ts"
import { errorResponse } from "../ErrorResponses.ts"
import type { Found, RouteTableShape, ServedRoutes } from "../RouteTable.ts"
import { WrongKeys } from "../WrongKeys.ts"

/**
 * `GET /metrics`: every metric in the Prometheus text format, behind the API key unless
 * METRICS_PUBLIC=true (a scraper on a private network, without the key). And the request
 * metrics, taken on the Node request itself so that the answers of the fast path
 * (DirectRoutes), which never reach the app, are counted as well, each under its route in the
 * route table (the routes are the declared ones and `other`, so that a scan cannot add series).
 */

/** The daemon's readers, with the import queue's length read at each collection. */
export const DaemonMetricsLive = MetricsExport.layer(
  "waymark",
  Effect.flatMap(ImportQueue, (queue) => Effect.flatMap(queue.size, (queued) => Metric.set(importQueueLength, queued)))
)

const METRICS_PATH = "/metrics"

export const MetricsRoutes: ServedRoutes<never, AppConfig | ApiKey | MetricsExport | WrongKeys> = {
  routes: [{ method: "GET", path: METRICS_PATH }],
  live: HttpApiBuilder.Router.use((router) =>
    Effect.gen(function*() {
      const config = yield* AppConfig
      const apiKey = yield* ApiKey
      const metrics = yield* MetricsExport
      const wrongKeys = yield* WrongKeys
      yield* router.get(
        METRICS_PATH,
        Effect.gen(function*() {
          if (!config.metricsPublic) {
            const request = yield* HttpServerRequest.HttpServerRequest
            const denied = apiKey.check(request.headers["authorization"])
            if (Either.isLeft(denied)) {
              // a key sent and refused counts against the address, as on the API
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

/**
 * Times a Node request from its arrival to the end of its answer (or the connection's), counted
 * under its route in the table (`found`, the listener's lookup of it).
 */
export const makeRequestObserver = (routes: RouteTableShape) => (request: IncomingMessage, response: ServerResponse, found: Found | undefined) => {
  const started = performance.now()
  response.once("close", () => {
    const method = METHODS.has(request.method ?? "") ? request.method! : "other"
    seriesOf(routes.labelOf(method, request.url ?? "/", found), method, response.statusCode).unsafeUpdate((performance.now() - started) / 1000, [])
  })
}
