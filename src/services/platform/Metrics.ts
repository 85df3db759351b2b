import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricLabel from "effect/MetricLabel"

/**
 * Every metric of Waymark and its connectors, declared once. They are Effect metrics (a
 * process-wide registry) that MetricsExport hands to OpenTelemetry: the Prometheus text of
 * `/metrics` and, when OTEL_EXPORTER_OTLP_ENDPOINT is set, OTLP. Prometheus adds `_total` to
 * the counters and `_bucket`, `_sum`, `_count` to the histograms.
 */

/** Seconds, from a millisecond up to about a minute (16 doubling buckets). */
const seconds = MetricBoundaries.exponential({ start: 0.001, factor: 2, count: 16 })

/** Files of the watch folder (uploads included) that reached an outcome, by `outcome` and `format`. */
export const importsTotal = Metric.counter("waymark_imports", {
  description: "Files imported, by outcome (success, skipped, failed) and format (fit, tcx, gpx)",
  incremental: true
})

/** Time from a file taken off the queue to its outcome, by `outcome` and `format`. */
export const importDuration = Metric.histogram(
  "waymark_import_duration_seconds",
  seconds,
  "Time from a file taken off the import queue to its outcome, in seconds"
)

/** Files waiting in the import queue (sampled when the metrics are read). */
export const importQueueLength = Metric.gauge("waymark_import_queue_length", {
  description: "Files waiting in the import queue"
})

/** Every HTTP request, answered by the app or by its fast path, by `route`, `method` and `status`. */
export const httpRequestDuration = Metric.histogram(
  "waymark_http_request_duration_seconds",
  seconds,
  "Time from a request's arrival to the end of its answer, in seconds, by route, method and status"
)

/** Restarts of the supervised loops, by `fiber`. */
export const fiberRestarts = Metric.counter("waymark_fiber_restarts", {
  description: "Restarts of a supervised loop after it failed, by fiber",
  incremental: true
})

/** Sync cycles of a connector, by `connector` and `result` (completed, rateLimited, failed). */
export const connectorCycles = Metric.counter("waymark_connector_cycles", {
  description: "Sync cycles of a connector, by connector and result (completed, rateLimited, failed)",
  incremental: true
})

/** Cycles that ended in an error (failed or rate limited), by `connector`. */
export const connectorErrors = Metric.counter("waymark_connector_errors", {
  description: "Sync cycles of a connector that ended in an error (failed or rate limited), by connector",
  incremental: true
})

/** The process, under the names Node's Prometheus clients use (sampled when the metrics are read). */
export const processMetrics = {
  residentMemory: Metric.gauge("process_resident_memory_bytes", { description: "Resident memory size in bytes" }),
  heapUsed: Metric.gauge("nodejs_heap_size_used_bytes", { description: "Process heap size used from Node.js in bytes" }),
  heapTotal: Metric.gauge("nodejs_heap_size_total_bytes", { description: "Process heap size from Node.js in bytes" }),
  external: Metric.gauge("nodejs_external_memory_bytes", { description: "Node.js external memory size in bytes" }),
  eventLoopDelayP50: Metric.gauge("nodejs_eventloop_lag_p50_seconds", {
    description: "Median event loop delay since the previous reading, in seconds"
  }),
  eventLoopDelayP99: Metric.gauge("nodejs_eventloop_lag_p99_seconds", {
    description: "99th percentile of the event loop delay since the previous reading, in seconds"
  }),
  eventLoopDelayMax: Metric.gauge("nodejs_eventloop_lag_max_seconds", {
    description: "Longest event loop delay since the previous reading, in seconds"
  })
} as const

/** Records one import's outcome; `format` is the file's (fit, tcx, gpx), `seconds` when known. */
export const recordImport = (outcome: string, format: string, seconds: number | null) => {
  const labels = [MetricLabel.make("outcome", outcome), MetricLabel.make("format", format)]
  importsTotal.unsafeUpdate(1, labels)
  if (seconds !== null) importDuration.unsafeUpdate(seconds, labels)
}
