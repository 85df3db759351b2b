import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { VERSION } from "./version.ts"
import { AppConfig } from "./AppConfig.ts"
import * as Settings from "./Settings.ts"

/**
 * Traces over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set; nothing otherwise. The
 * OpenTelemetry packages are loaded only then (~10 MB the daemon does not carry without them).
 *
 * Every request is traced by default (`parentbased_always_on`: a caller's decision in its
 * `traceparent` is followed); OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG choose another
 * sampler, with the values of the OpenTelemetry SDK configuration.
 */

export const SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio"
] as const

export type SamplerName = (typeof SAMPLERS)[number]

const ratio = Settings.text("OTEL_TRACES_SAMPLER_ARG", { default: "1" }).pipe(
  Config.mapOrFail((raw) => {
    const n = Number(raw)
    return raw !== "" && Number.isFinite(n) && n >= 0 && n <= 1
      ? Either.right(n)
      : Either.left(ConfigError.InvalidData([], `OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1 (the share of traces sampled), got "${raw.slice(0, 40)}"`))
  })
)

export const SamplerConfig = Config.all({
  name: Settings.oneOf<SamplerName>("OTEL_TRACES_SAMPLER", SAMPLERS, { default: "parentbased_always_on" }),
  ratio
})

/**
 * Spans queued for export, and how many go in one export. The queue is sized for the API's
 * busiest reads, so that a burst of requests is exported, not dropped (the SDK's default queue
 * of 2,048 spans drops most of a second at 20,000 requests per second). An export is encoded
 * on the event loop in one piece, so it is kept small: 4,096 spans at once held the requests
 * behind it for tens of milliseconds, 512 still for several (a traced p99 of 11 to 18 ms, 8 to
 * 17 ms with 128); the exports follow each other as soon as one is full.
 */
const SPAN_QUEUE = 65_536
const SPANS_PER_EXPORT = 128
const EXPORT_EVERY_MS = 1_000

export const TelemetryLive = Layer.unwrapEffect(
  Effect.flatMap(AppConfig, (config) =>
    Option.match(config.otlpEndpoint, {
      onNone: () => Effect.succeed(Layer.empty),
      onSome: (endpoint) =>
        Effect.flatMap(SamplerConfig, (sampler) =>
          Effect.promise(async () => {
            const [NodeSdk, { OTLPTraceExporter }, Base] = await Promise.all([
              import("@effect/opentelemetry/NodeSdk"),
              import("@opentelemetry/exporter-trace-otlp-http"),
              import("@opentelemetry/sdk-trace-base")
            ])
            const root = sampler.name.endsWith("always_off")
              ? new Base.AlwaysOffSampler()
              : sampler.name.endsWith("traceidratio")
              ? new Base.TraceIdRatioBasedSampler(sampler.ratio)
              : new Base.AlwaysOnSampler()
            return NodeSdk.layer(() => ({
              resource: { serviceName: "waymark", serviceVersion: VERSION },
              tracerConfig: { sampler: sampler.name.startsWith("parentbased_") ? new Base.ParentBasedSampler({ root }) : root },
              spanProcessor: new Base.BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, "")}/v1/traces` }), {
                maxQueueSize: SPAN_QUEUE,
                maxExportBatchSize: SPANS_PER_EXPORT,
                scheduledDelayMillis: EXPORT_EVERY_MS
              })
            }))
          }))
    })
  )
)
