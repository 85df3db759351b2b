import { assert, describe, it } from "@effect/vitest"
import * as HttpClient from "@effect/platform/HttpClient"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { daemonLayer, gpxActivity, scopedRoot, waitFor, waitForRow } from "../support/ImportHarness.ts"
import { fileForm, seedActivity, send } from "../support/TestDaemon.ts"

interface ReceivedSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly name: string
  readonly service: string | undefined
  readonly kind: number
  readonly durationNanos: bigint
  readonly attributes: Record<string, unknown>
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number }
const valueOf = (v: OtlpValue) => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.boolValue ?? v.doubleValue)

/** A small OTLP/HTTP (JSON) trace receiver on loopback: what an OpenTelemetry collector would get. */
const otlpReceiver = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly spans: Array<ReceivedSpan>; readonly contentTypes: Array<string>; readonly server: http.Server }>((resume) => {
    const spans: Array<ReceivedSpan> = []
    const contentTypes: Array<string> = []
    const server = http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        contentTypes.push(String(req.headers["content-type"]))
        if (req.method === "POST" && req.url === "/v1/traces") {
          const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
          for (const rs of body.resourceSpans ?? []) {
            const service = rs.resource?.attributes?.find((a: any) => a.key === "service.name")?.value?.stringValue
            for (const ss of rs.scopeSpans ?? []) {
              for (const s of ss.spans ?? []) {
                spans.push({
                  traceId: s.traceId,
                  spanId: s.spanId,
                  parentSpanId: s.parentSpanId || undefined,
                  name: s.name,
                  service,
                  kind: s.kind,
                  durationNanos: BigInt(s.endTimeUnixNano) - BigInt(s.startTimeUnixNano),
                  attributes: Object.fromEntries((s.attributes ?? []).map((a: any) => [a.key, valueOf(a.value)]))
                })
              }
            }
          }
        }
        res.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as { port: number }
      resume(Effect.succeed({ url: `http://127.0.0.1:${address.port}`, spans, contentTypes, server }))
    })
  }),
  ({ server }) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
)

describe("traces", () => {
  it.scopedLive("an upload is one trace from the request to the committed activity, seen by an OTLP/HTTP receiver; its log lines carry the trace id", () =>
    Effect.gen(function*() {
      const receiver = yield* otlpReceiver
      const root = yield* scopedRoot({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url })
      const gpx = gpxActivity({ start: new Date("2024-05-04T07:00:00Z"), seconds: 1200, name: "Traced run" })

      const row = yield* Effect.gen(function*() {
        const answer = yield* send("POST", "/api/v1/activity/upload", { body: fileForm("traced-run.gpx", gpx) })
        assert.strictEqual(answer.status, 202)
        return yield* waitForRow("traced-run.gpx")
      }).pipe(Effect.provide(daemonLayer(root)), Effect.scoped) // the daemon stops here: its spans are flushed
      assert.strictEqual(row.status, "success")

      const spans = yield* waitFor("the import span", Effect.sync(() => receiver.spans.some((s) => s.name === "ImportWorker.import") ? receiver.spans : undefined))
      const request = spans.find((s) => s.attributes["http.route"] === "/api/v1/activity/upload")
      assert.isDefined(request, `no request span among ${spans.map((s) => s.name).join(", ")}`)
      assert.strictEqual(request!.service, "waymark")
      assert.strictEqual(request!.attributes["http.request.method"], "POST")
      assert.strictEqual(request!.attributes["http.response.status_code"], 202)

      const trace = spans.filter((s) => s.traceId === request!.traceId)
      const byId = new Map(trace.map((s) => [s.spanId, s]))
      const ancestors = (s: ReceivedSpan): Array<string> => {
        const parent = s.parentSpanId === undefined ? undefined : byId.get(s.parentSpanId)
        return parent === undefined ? [] : [parent.spanId, ...ancestors(parent)]
      }

      const imported = trace.find((s) => s.name === "ImportWorker.import")
      assert.isDefined(imported, "the import span is not in the upload's trace")
      assert.include(ancestors(imported!), request!.spanId)
      assert.strictEqual(imported!.attributes["file.name"], "traced-run.gpx")
      assert.strictEqual(imported!.attributes["file.format"], "gpx")
      assert.strictEqual(imported!.attributes["import.status"], "success")
      assert.strictEqual(imported!.attributes["activity.ids"], row.activity_id)
      assert.strictEqual(imported!.attributes["file_import.id"], row.id)

      // the stages under it: parsing in the worker thread and the commit
      for (const name of ["ImportService.prepare", "ParseWorker.parseTimed", "ImportService.commit"]) {
        const stage = trace.find((s) => s.name === name)
        assert.isDefined(stage, `${name} is not in the upload's trace`)
        assert.include(ancestors(stage!), imported!.spanId)
      }
      assert.isTrue(receiver.contentTypes.every((t) => t.startsWith("application/json")))

      // the daemon log line of the import leads to the trace
      const logsDir = path.join(root.storageDir, "files", "logs")
      const lines = fs.readdirSync(logsDir).filter((n) => n.startsWith("daemon-"))
        .flatMap((n) => fs.readFileSync(path.join(logsDir, n), "utf8").split("\n").filter((l) => l !== ""))
        .map((l) => JSON.parse(l))
      const importedLine = lines.find((l) => String(l.message).startsWith(`imported "traced-run.gpx"`))
      assert.isDefined(importedLine)
      assert.strictEqual(importedLine.traceId, request!.traceId)
      assert.strictEqual(importedLine.spanId, imported!.spanId)
    }))

  /** The server spans the daemon exported for the requests `requests` makes, once it has stopped. */
  const serverSpansOf = <E, R>(env: Record<string, string>, requests: Effect.Effect<void, E, R>) =>
    Effect.gen(function*() {
      const receiver = yield* otlpReceiver
      const root = yield* scopedRoot({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...env })
      // the daemon stops at the end of this scope: its spans are flushed
      yield* requests.pipe(Effect.provide(daemonLayer(root) as any), Effect.scoped) as Effect.Effect<void, E>
      yield* Effect.sleep("200 millis")
      return receiver.spans.filter((s) => s.kind === 2)
    })

  it.scopedLive("every request, the hot reads included, is one server span with its route, status and duration", () =>
    Effect.gen(function*() {
      let id = ""
      const spans = yield* serverSpansOf({}, Effect.gen(function*() {
        id = yield* seedActivity({ name: "Traced" })
        for (let i = 0; i < 3; i++) {
          for (const path of ["/api/v1/status", "/api/v1/activities", `/api/v1/activities/${id}`, "/api/v1/file-imports", "/api/v1/activities/activity-missing"]) {
            yield* send("GET", path)
          }
        }
      }))
      const routes = spans.map((s) => `${s.attributes["http.route"]} ${s.attributes["http.response.status_code"]}`)
      for (const expected of ["/api/v1/status 200", "/api/v1/activities 200", "/api/v1/activities/:activityId 200", "/api/v1/file-imports 200", "/api/v1/activities/:activityId 404"]) {
        assert.strictEqual(routes.filter((r) => r === expected).length, 3, `${expected} in ${routes.join(", ")}`)
      }
      for (const span of spans) {
        assert.strictEqual(span.name, "http.server GET")
        assert.isTrue(span.durationNanos > 0n)
      }
    }))

  it.scopedLive("OTEL_TRACES_SAMPLER chooses the sampler: always_off and a ratio of 0 export no request span, a caller's unsampled trace is followed", () =>
    Effect.gen(function*() {
      const requests = Effect.gen(function*() {
        for (const path of ["/api/v1/status", "/api/v1/activities"]) yield* send("GET", path)
      })
      assert.deepEqual(yield* serverSpansOf({ OTEL_TRACES_SAMPLER: "always_off" }, requests), [])
      assert.deepEqual(yield* serverSpansOf({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0" }, requests), [])
      const unsampled = Effect.gen(function*() {
        for (const path of ["/api/v1/status", "/api/v1/activities"]) {
          // the test's client would send its own traceparent in place of this one
          yield* send("GET", path, { headers: { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00" } }).pipe(Effect.updateService(HttpClient.HttpClient, HttpClient.withTracerPropagation(false)))
        }
      })
      assert.deepEqual(yield* serverSpansOf({}, unsampled), [])
      assert.strictEqual((yield* serverSpansOf({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "1" }, requests)).length, 2)
    }))
})
