import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import { eventLoopDelay } from "./EventLoopDelay.ts"
import { processMetrics } from "./Metrics.ts"
import * as Settings from "./Settings.ts"

/**
 * The metrics of this process (Metrics.ts) as OpenTelemetry reads them: in the Prometheus
 * text format on demand (`/metrics`), and pushed over OTLP/HTTP every 30 s when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set, under the same names. The gauges (process memory,
 * event-loop delay, and what `sample` adds, such as the import queue's length) are read at
 * each collection, so both see current values without a polling loop.
 */

export interface MetricsExportShape {
  /** Every metric in the Prometheus text exposition format (0.0.4). */
  readonly prometheusText: Effect.Effect<string>
}

export class MetricsExport extends Context.Tag("services/platform/MetricsExport")<MetricsExport, MetricsExportShape>() {
  /**
   * The readers of `service` (the daemon or a connector); `sample` sets the gauges that only
   * the caller can read, before each collection.
   */
  static readonly layer = <R = never>(service: string, sample: Effect.Effect<void, never, R> = Effect.void) =>
    Layer.scoped(
      MetricsExport,
      Effect.gen(function*() {
        const otlpEndpoint = yield* Config.option(Settings.text("OTEL_EXPORTER_OTLP_ENDPOINT"))
        const runSample = Runtime.runSync(yield* Effect.runtime<R>())
        const delay = yield* eventLoopDelay

        const readProcess = Effect.sync(() => {
          const memory = process.memoryUsage()
          const lag = (ns: number) => (Number.isFinite(ns) ? ns / 1e9 : 0)
          const values: Array<[Metric.Metric.Gauge<number>, number]> = [
            [processMetrics.residentMemory, memory.rss],
            [processMetrics.heapUsed, memory.heapUsed],
            [processMetrics.heapTotal, memory.heapTotal],
            [processMetrics.external, memory.external],
            [processMetrics.eventLoopDelayP50, lag(delay.percentile(50))],
            [processMetrics.eventLoopDelayP99, lag(delay.percentile(99))],
            [processMetrics.eventLoopDelayMax, lag(delay.max)]
          ]
          for (const [gauge, value] of values) gauge.unsafeUpdate(value, [])
          delay.reset()
        })

        // the readers (the OpenTelemetry SDK) started when first needed: at once when pushing,
        // otherwise on the first `/metrics`; the Effect metrics count from the start either way
        const scope = yield* Effect.scope
        const started = yield* Effect.cached(
          Effect.promise(() => import("./startMetricReaders.ts")).pipe(
            Effect.flatMap(({ startMetricReaders }) =>
              startMetricReaders(service, otlpEndpoint, () => runSample(Effect.zipRight(readProcess, sample)))
            ),
            Scope.extend(scope)
          )
        )
        if (Option.isSome(otlpEndpoint)) yield* started
        const prometheusText = Effect.flatten(started)
        return { prometheusText }
      })
    )
}

/** The answer of a `/metrics` route: the Prometheus text, never cached. */
export const metricsResponse = Effect.flatMap(MetricsExport, (metrics) => metrics.prometheusText).pipe(
  Effect.map((text) =>
    HttpServerResponse.text(text, { contentType: "text/plain; version=0.0.4; charset=utf-8", headers: { "cache-control": "no-store" } })
  )
)
