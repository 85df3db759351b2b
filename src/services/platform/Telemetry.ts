import { Effect, Layer, Option } from "effect"
import { VERSION } from "../../version.ts"
import { AppConfig } from "./AppConfig.ts"

/**
 * Traces over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set; nothing otherwise. The
 * OpenTelemetry packages are loaded only then (~10 MB the daemon does not carry without them).
 */
export const TelemetryLive = Layer.unwrapEffect(
  Effect.flatMap(AppConfig, (config) =>
    Option.match(config.otlpEndpoint, {
      onNone: () => Effect.succeed(Layer.empty),
      onSome: (endpoint) =>
        Effect.promise(async () => {
          const [NodeSdk, { OTLPTraceExporter }, { BatchSpanProcessor }] = await Promise.all([
            import("@effect/opentelemetry/NodeSdk"),
            import("@opentelemetry/exporter-trace-otlp-http"),
            import("@opentelemetry/sdk-trace-base")
          ])
          return NodeSdk.layer(() => ({
            resource: { serviceName: "waymark", serviceVersion: VERSION },
            spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, "")}/v1/traces` }))
          }))
        })
    })
  )
)
