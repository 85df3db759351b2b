import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as OtelMetrics from "@effect/opentelemetry/Metrics"
import * as OtelResource from "@effect/opentelemetry/Resource"
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus"
import type { MetricProducer, MetricReader } from "@opentelemetry/sdk-metrics"
import { Config, Context, Effect, Layer, Metric, Option, Runtime } from "effect"
import { VERSION } from "./version.ts"
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

const OTLP_INTERVAL_MS = 30_000

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

        // no scope label on every series: one producer (the Effect registry) makes them all
        const prometheus = new PrometheusExporter({ preventServerStart: true })
        const readers: [MetricReader, ...Array<MetricReader>] = [prometheus]
        if (Option.isSome(otlpEndpoint)) {
          // loaded only when pushing: the daemon does not carry the OTLP client otherwise
          const [{ OTLPMetricExporter }, { PeriodicExportingMetricReader }] = yield* Effect.promise(() =>
            Promise.all([import("@opentelemetry/exporter-metrics-otlp-http"), import("@opentelemetry/sdk-metrics")])
          )
          readers.push(
            new PeriodicExportingMetricReader({
              exporter: new OTLPMetricExporter({ url: `${otlpEndpoint.value.replace(/\/+$/, "")}/v1/metrics` }),
              exportIntervalMillis: OTLP_INTERVAL_MS
            })
          )
        }

        const producer = yield* OtelMetrics.makeProducer.pipe(
          Effect.provide(OtelResource.layer({ serviceName: service, serviceVersion: VERSION }))
        )
        const sampled: MetricProducer = {
          collect: (options) => {
            runSample(Effect.zipRight(readProcess, sample))
            return producer.collect(options)
          }
        }
        yield* OtelMetrics.registerProducer(sampled, () => readers)

        const serializer = new PrometheusSerializer(undefined, false, undefined, false, true)
        const prometheusText = Effect.promise(async () => serializer.serialize((await prometheus.collect()).resourceMetrics))
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
