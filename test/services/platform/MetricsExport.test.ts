import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Metric } from "effect"
import * as http from "node:http"
import { importsTotal } from "../../../src/services/platform/Metrics.ts"
import { MetricsExport } from "../../../src/services/platform/MetricsExport.ts"

/** An OTLP/HTTP (JSON) receiver on loopback: the metric names and the service of every export. */
const otlpReceiver = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly names: Set<string>; readonly services: Set<string>; readonly server: http.Server }>((resume) => {
    const names = new Set<string>()
    const services = new Set<string>()
    const server = http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        if (req.method === "POST" && req.url === "/v1/metrics") {
          const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
          for (const rm of body.resourceMetrics ?? []) {
            const service = rm.resource?.attributes?.find((a: any) => a.key === "service.name")?.value?.stringValue
            if (service !== undefined) services.add(service)
            for (const sm of rm.scopeMetrics ?? []) for (const m of sm.metrics ?? []) names.add(m.name)
          }
        }
        res.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as { port: number }
      resume(Effect.succeed({ url: `http://127.0.0.1:${address.port}`, names, services, server }))
    })
  }),
  ({ server }) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
)

describe("MetricsExport", () => {
  it.scopedLive("with OTEL_EXPORTER_OTLP_ENDPOINT, pushes the metrics over OTLP under the names /metrics shows (the last push at shutdown)", () =>
    Effect.gen(function*() {
      const receiver = yield* otlpReceiver
      const config = Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url]])))
      const text = yield* Effect.scoped(
        Effect.gen(function*() {
          yield* Metric.increment(Metric.tagged(Metric.tagged(importsTotal, "outcome", "success"), "format", "fit"))
          return yield* Effect.flatMap(MetricsExport, (m) => m.prometheusText)
        }).pipe(Effect.provide(MetricsExport.layer("waymark-test").pipe(Layer.provide(config))))
      )
      expect(text).toMatch(/^waymark_imports_total\{outcome="success",format="fit"\} \d+/m)
      expect(receiver.services).toEqual(new Set(["waymark-test"]))
      for (const name of ["waymark_imports", "process_resident_memory_bytes", "nodejs_eventloop_lag_p99_seconds"]) {
        expect(receiver.names.has(name), name).toBe(true)
      }
    }))
})
