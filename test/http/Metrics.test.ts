import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import parsePrometheusTextFormat, { type PrometheusSample } from "parse-prometheus-text-format"
import { makeRouteTable } from "../../src/http/RouteTable.ts"
import { send, TestDaemon } from "../support/TestDaemon.ts"

const GPX = `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="metrics test" xmlns="http://www.topografix.com/GPX/1/1">
  <trk><name>Counted ride</name><type>cycling</type><trkseg>
    <trkpt lat="50.8503" lon="4.3517"><ele>60</ele><time>2024-05-01T08:00:00Z</time></trkpt>
    <trkpt lat="50.8513" lon="4.3537"><ele>61</ele><time>2024-05-01T08:00:30Z</time></trkpt>
    <trkpt lat="50.8523" lon="4.3557"><ele>62</ele><time>2024-05-01T08:01:00Z</time></trkpt>
  </trkseg></trk>
</gpx>
`

/**
 * A scrape as a Prometheus text parser reads it: the families with their types, and every
 * series by name. The parser folds the series of a labelled histogram into one (it keeps the
 * buckets of the last and drops `_count` and `_sum`), so the series are read from a second pass
 * where histograms are untyped: `_bucket`, `_sum` and `_count` then come out as plain samples.
 */
const scrape = Effect.gen(function*() {
  const answer = yield* send("GET", "/metrics")
  expect(answer.status).toBe(200)
  expect(answer.headers["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8")
  const types = new Map(parsePrometheusTextFormat(answer.text).map((f) => [f.name, f.type] as const))
  const series = new Map<string, Array<PrometheusSample>>()
  // a histogram's series interleave (count, sum, buckets of one label set, then the next): a name recurs
  for (const f of parsePrometheusTextFormat(answer.text.replace(/^# TYPE (\S+) histogram$/gm, "# TYPE $1 untyped"))) {
    series.set(f.name, [...(series.get(f.name) ?? []), ...f.metrics])
  }
  return { types, series }
})

type Scrape = Effect.Effect.Success<typeof scrape>

/** The value of the one series of `name` whose labels include `labels`. */
const valueOf = (scraped: Scrape, name: string, labels: Record<string, string> = {}) => {
  const matching = (scraped.series.get(name) ?? []).filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
  if (matching.length !== 1) throw new Error(`${matching.length} series of ${name} with ${JSON.stringify(labels)}; names: ${[...scraped.series.keys()].join(", ")}`)
  return Number(matching[0]!.value)
}

/**
 * How much a series grew between two scrapes: Effect's metrics belong to the process, which
 * other daemons of the same test worker may have counted in before (a series not yet there is 0).
 */
const grewBy = (before: Scrape, after: Scrape, name: string, labels: Record<string, string> = {}) => {
  const seen = (scraped: Scrape) => (scraped.series.get(name) ?? []).some((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
  return valueOf(after, name, labels) - (seen(before) ? valueOf(before, name, labels) : 0)
}

/** Waits until the import log says `filename` was imported (bounded only by the test's own limit: a busy machine imports late, never wrongly). */
const imported = (filename: string) =>
  Effect.gen(function*() {
    while (true) {
      const log = yield* send("GET", "/api/v1/file-imports")
      if (JSON.stringify(log.json).includes(filename) && JSON.stringify(log.json).includes('"success"')) return
      yield* Effect.sleep("100 millis")
    }
  })

describe("GET /metrics", () => {
  layer(TestDaemon.layer(), { excludeTestServices: true })("behind the API key", (it) => {
    it.effect("401 without the key, naming METRICS_PUBLIC; nothing of the metrics is shown", () =>
      Effect.gen(function*() {
        const answer = yield* send("GET", "/metrics", { key: null })
        expect(answer.status).toBe(401)
        expect(answer.json.error).toBe("invalid_token")
        expect(answer.json.message).toContain("METRICS_PUBLIC=true")
        expect(answer.text).not.toContain("waymark_")
      }))

    it.effect("requests by route, method and status, the fast path's answers included; imports by outcome and format", () =>
      Effect.gen(function*() {
        const daemon = yield* TestDaemon
        const before = yield* scrape
        // the status and the activity list are answered before the app (DirectRoutes)
        for (let i = 0; i < 3; i++) expect((yield* send("GET", "/api/v1/status")).status).toBe(200)
        expect((yield* send("GET", "/api/v1/activities/no-such-activity")).status).toBe(404)
        expect((yield* send("GET", "/wp-login.php", { key: null })).status).toBe(404)
        fs.writeFileSync(path.join(daemon.watchDir, "counted.gpx"), GPX)
        yield* imported("counted.gpx")

        const scraped = yield* scrape
        const requests = "waymark_http_request_duration_seconds"
        expect(scraped.types.get(requests)).toBe("HISTOGRAM")
        const status = { route: "/api/v1/status", method: "GET", status: "200" }
        expect(grewBy(before, scraped, `${requests}_count`, status)).toBe(3)
        expect(grewBy(before, scraped, `${requests}_bucket`, { ...status, le: "+Inf" })).toBe(3)
        expect(grewBy(before, scraped, `${requests}_sum`, status)).toBeGreaterThan(0)
        expect(grewBy(before, scraped, `${requests}_count`, { route: "/api/v1/activities/:activityId", method: "GET", status: "404" })).toBe(1)
        expect(grewBy(before, scraped, `${requests}_count`, { route: "other", method: "GET", status: "404" })).toBe(1)

        expect(scraped.types.get("waymark_imports_total")).toBe("COUNTER")
        expect(grewBy(before, scraped, "waymark_imports_total", { outcome: "success", format: "gpx" })).toBe(1)
        expect(scraped.types.get("waymark_import_duration_seconds")).toBe("HISTOGRAM")
        expect(grewBy(before, scraped, "waymark_import_duration_seconds_count", { outcome: "success", format: "gpx" })).toBe(1)

        expect(scraped.types.get("waymark_import_queue_length")).toBe("GAUGE")
        expect(valueOf(scraped, "waymark_import_queue_length")).toBe(0)
        expect(valueOf(scraped, "process_resident_memory_bytes")).toBeGreaterThan(10 * 1024 * 1024)
        expect(valueOf(scraped, "nodejs_heap_size_used_bytes")).toBeGreaterThan(0)
        expect(valueOf(scraped, "nodejs_eventloop_lag_p99_seconds")).toBeGreaterThanOrEqual(0)
      }))

    it.effect("the scrape itself is counted, under /metrics", () =>
      Effect.gen(function*() {
        yield* scrape
        const scraped = yield* scrape
        expect(valueOf(scraped, "waymark_http_request_duration_seconds_count", { route: "/metrics", status: "200" })).toBeGreaterThanOrEqual(1)
      }))
  })

  layer(TestDaemon.layer({ env: { METRICS_PUBLIC: "true" } }), { excludeTestServices: true })("METRICS_PUBLIC=true", (it) => {
    it.effect("200 without the key: a scraper on a private network needs none", () =>
      Effect.gen(function*() {
        const answer = yield* send("GET", "/metrics", { key: null })
        expect(answer.status).toBe(200)
        expect(parsePrometheusTextFormat(answer.text).map((f) => f.name)).toContain("process_resident_memory_bytes")
      }))
  })

  describe("the route a request is counted under", () => {
    const table = makeRouteTable([{ method: "GET", path: "/healthz" }, { method: "GET", path: "/files/activities/:name" }], { postMaxSize: 1024, archiveMaxSize: 1024 })
    it("names a request by its endpoint's declared path or a served route's, and every unknown path `other`", () => {
      expect(table.labelOf("GET", "/api/v1/activities/activity-1?x=1")).toBe("/api/v1/activities/:activityId")
      expect(table.labelOf("HEAD", "/api/v1/activities/activity-1")).toBe("/api/v1/activities/:activityId")
      expect(table.labelOf("GET", "/healthz")).toBe("/healthz")
      expect(table.labelOf("GET", "/files/activities/a.png")).toBe("/files/activities/:name")
      expect(table.labelOf("GET", "/etc/passwd")).toBe("other")
      expect(table.labelOf("GET", "/api/v1/%E0%A4%A")).toBe("other")
    })
    it("counts another method on a known path (a 405) under the path", () => {
      expect(table.labelOf("PUT", "/api/v1/activities/activity-1")).toBe("/api/v1/activities/:activityId")
    })
  })
})
