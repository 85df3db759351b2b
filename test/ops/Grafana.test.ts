import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"

const ROOT = path.join(import.meta.dirname, "..", "..")
const dashboard = JSON.parse(fs.readFileSync(path.join(ROOT, "deploy", "grafana-dashboard.json"), "utf8"))

/** The Prometheus names of the metrics Metrics.ts declares: counters end in _total, histograms are three series. */
const exported = (() => {
  const source = fs.readFileSync(path.join(ROOT, "src", "services", "platform", "Metrics.ts"), "utf8")
  const names = new Map<string, string>()
  for (const [, kind, name] of source.matchAll(/Metric\.(counter|gauge|histogram)\(\s*"(\w+)"/g)) {
    const series = kind === "counter" ? [`${name}_total`] : kind === "histogram" ? ["_bucket", "_sum", "_count"].map((s) => name + s) : [name!]
    for (const s of series) names.set(s, name!)
  }
  return names
})()

const expressions: Array<string> = dashboard.panels.flatMap((p: any) => (p.targets ?? []).map((t: any) => t.expr))

describe("deploy/grafana-dashboard.json", () => {
  it("is an importable dashboard with a Prometheus data source input", () => {
    expect(dashboard.__inputs[0]).toMatchObject({ name: "DS_PROMETHEUS", pluginId: "prometheus" })
    expect(expressions.length).toBeGreaterThan(10)
    const ids = dashboard.panels.map((p: any) => p.id)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it("queries only metrics the code exports, and shows every one of them", () => {
    const used = new Set(expressions.flatMap((e) => [...e.matchAll(/\b(?:waymark|process|nodejs)_\w+/g)].map((m) => m[0])))
    expect([...used].filter((name) => !exported.has(name))).toEqual([])
    const shown = new Set([...used].map((name) => exported.get(name)))
    expect([...new Set(exported.values())].filter((name) => !shown.has(name))).toEqual([])
  })
})
