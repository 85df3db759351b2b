import * as OtelMetrics from "@effect/opentelemetry/Metrics"
import * as OtelResource from "@effect/opentelemetry/Resource"
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus"
import type { MetricProducer, MetricReader } from "@opentelemetry/sdk-metrics"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { VERSION } from "./version.ts"

const OTLP_INTERVAL_MS = 30_000

/**
 * The OpenTelemetry readers of the Effect metrics of `service`: Prometheus, read on demand (the
 * text it answers), and, with an OTLP endpoint, a reader pushing to it every 30 s. `beforeCollect`
 * runs before each collection (to set the gauges read then). Loaded by MetricsExport when first
 * needed: the OpenTelemetry SDK is a few hundred modules a daemon without `/metrics` asked or an
 * endpoint set does not hold.
 */
export const startMetricReaders = (
  service: string,
  otlpEndpoint: Option.Option<string>,
  beforeCollect: () => void
): Effect.Effect<Effect.Effect<string>, never, Scope.Scope> =>
  Effect.gen(function*() {
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
        beforeCollect()
        return producer.collect(options)
      }
    }
    yield* OtelMetrics.registerProducer(sampled, () => readers)

    const serializer = new PrometheusSerializer(undefined, false, undefined, false, true)
    return Effect.promise(async () => serializer.serialize((await prometheus.collect()).resourceMetrics))
  })
