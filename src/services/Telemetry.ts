import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Effect, Layer, Option } from "effect"
import { VERSION } from "../version.ts"
import { AppConfig } from "./AppConfig.ts"

/** Traces over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set; nothing otherwise. */
export const TelemetryLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    Option.match(config.otlpEndpoint, {
      onNone: () => Layer.empty,
      onSome: (endpoint) =>
        NodeSdk.layer(() => ({
          resource: { serviceName: "waymark", serviceVersion: VERSION },
          spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, "")}/v1/traces` }))
        }))
    })
  )
)
