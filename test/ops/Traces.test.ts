import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { daemonLayer, gpxActivity, scopedRoot, waitFor, waitForRow } from "../support/ImportHarness.ts"
import { fileForm, send } from "../support/TestDaemon.ts"

interface ReceivedSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly name: string
  readonly service: string | undefined
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
})
