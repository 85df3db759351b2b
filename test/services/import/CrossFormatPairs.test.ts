import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { FileFormat } from "../../../src/schema/ParsedActivity.ts"
import { ActivityRepo } from "../../../src/services/activities/ActivityRepo.ts"
import { computeActivity } from "../../../src/services/import/ActivityMetrics.ts"
import { ImportService } from "../../../src/services/import/ImportService.ts"
import { ParseLimits } from "../../../src/services/import/ParseWorker.ts"
import { parseActivityFile } from "../../../src/services/import/parsers/parseActivityFile.ts"
import { CORPUS_DIR, loadManifest, readCorpusFile } from "../../support/corpus.ts"
import { daemonLayer, scopedRoot, servicesLayer } from "../../support/ImportHarness.ts"
import { send } from "../../support/TestDaemon.ts"

/**
 * The same activity as FIT and as GPX or TCX gives the same numbers: every pair of the corpus
 * (its manifest says "same activity as"), and every FIT of the corpus exported with the
 * service's own GPX export and imported again into a second storage. Tolerances: moving time
 * 3 % (or 2 s), distance 1.5 % (or 5 m), average heart rate 2 % (or 1 bpm, the rounding),
 * ascent 10 % (or 5 m, the resolution of an altitude stream).
 *
 * A FIT's distance, ascent, average heart rate and timer are the device's own, which a device
 * may take from more than a GPX can carry (a wheel sensor or a foot pod for the distance, a
 * barometer read more often than it writes, a strap's stored heart rate, its pause button).
 * Where the other file disagrees with such a value, it is compared with what the FIT's own
 * samples give as a GPX carries them (positions, times, altitude, heart rate; no device
 * distance, speed or totals): if it agrees with that, the pair is reported as "the device's
 * value is not in what a GPX carries", which no export can mend. Anything else fails.
 */

type Metric = "moving" | "distance" | "heartRate" | "ascent"

interface Numbers {
  readonly moving: number
  readonly distance: number
  readonly heartRate: number | null
  readonly ascent: number
}

const TOLERANCE: Record<Metric, { readonly relative: number; readonly absolute: number }> = {
  moving: { relative: 0.03, absolute: 2 },
  distance: { relative: 0.015, absolute: 5 },
  heartRate: { relative: 0.02, absolute: 1 },
  ascent: { relative: 0.1, absolute: 5 }
}
const METRICS: ReadonlyArray<Metric> = ["moving", "distance", "heartRate", "ascent"]

const numbersOf = (a: {
  readonly movingTimeInSeconds: number
  readonly distanceInMeter: number
  readonly averageHeartRate?: number | null | undefined
  readonly elevationInMeter: number
}): Numbers => ({ moving: a.movingTimeInSeconds, distance: a.distanceInMeter, heartRate: a.averageHeartRate ?? null, ascent: a.elevationInMeter })

const within = (metric: Metric, reference: number | null, other: number | null) => {
  if (reference === null || other === null) return reference === other
  const { relative, absolute } = TOLERANCE[metric]
  return Math.abs(other - reference) <= Math.max(absolute, Math.abs(reference) * relative)
}

/** What the FIT's own samples give as a GPX carries them: no device distance, speed or totals (elapsed kept). */
const fromSamples = async (file: string): Promise<ReadonlyArray<Numbers>> => {
  // a copy: a small file's Buffer is a view into Node's shared pool
  const parsed = await parseActivityFile(new Uint8Array(readCorpusFile(file)), "fit", path.basename(file))
  return parsed.map((p) =>
    numbersOf(computeActivity({
      ...p,
      totals: { ...p.totals, distanceMeters: null, ascentMeters: null, averageHeartRate: null, timerSeconds: null, averageSpeed: null },
      samples: { ...p.samples, distance: p.samples.distance.map(() => null), speed: p.samples.speed.map(() => null) }
    }, {
      filename: path.basename(file),
      fallbackTimeZone: "UTC"
    }))
  )
}

interface Row {
  readonly pair: string
  readonly fit?: Numbers
  readonly other?: Numbers
  readonly verdict: string
  readonly ok: boolean
}

const cell = (metric: Metric, a: Numbers, b: Numbers) => {
  const x = a[metric]
  const y = b[metric]
  if (x === null || y === null) return `${x ?? "-"}/${y ?? "-"}`
  const delta = x === 0 ? (y === 0 ? "0.0" : "inf") : (((y - x) / x) * 100).toFixed(1)
  return `${x}/${y} ${delta}%`
}

const printTable = (rows: ReadonlyArray<Row>) => {
  const lines = rows.map((r) => [
    r.pair,
    ...(r.fit && r.other ? METRICS.map((m) => cell(m, r.fit!, r.other!)) : ["", "", "", ""]),
    r.verdict
  ])
  const header = ["pair (FIT vs other)", "moving s", "distance m", "avg HR", "ascent m", "verdict"]
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)))
  const format = (cells: ReadonlyArray<string>) => cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ").trimEnd()
  console.log(["", format(header), format(widths.map((w) => "-".repeat(w))), ...lines.map(format)].join("\n"))
}

/** Judges one pair: the verdict names every metric outside the tolerance and why. */
const judge = (pair: string, fit: Numbers, other: Numbers, samples: Numbers | undefined): Row => {
  const notes: Array<string> = []
  let ok = true
  for (const metric of METRICS) {
    if (within(metric, fit[metric], other[metric])) continue
    if (samples !== undefined && within(metric, samples[metric], other[metric])) {
      notes.push(`${metric}: the device's value is not in what a GPX carries (its samples give ${samples[metric]})`)
      continue
    }
    ok = false
    notes.push(`${metric} OUTSIDE`)
  }
  return { pair, fit, other, verdict: notes.length === 0 ? "ok" : notes.join("; "), ok }
}

const formatOf = (file: string) => path.extname(file).slice(1) as FileFormat

describe.skipIf(!CORPUS_DIR)("the same activity as FIT and as GPX or TCX", () => {
  it.scopedLive("agrees on moving time, distance, average heart rate and ascent: corpus pairs and the service's own GPX export re-imported", () =>
    Effect.gen(function*() {
      const manifest = loadManifest()
      const fits = manifest.filter((e) => e.file.startsWith("fit/"))
      // "same activity as <file>" in a FIT's notes names its partner
      const partners = fits.flatMap((e) => {
        const other = /same activity as ((?:gpx|tcx)\/[\w.-]+\.(?:gpx|tcx))/.exec(e.notes)?.[1]
        return other !== undefined && manifest.some((m) => m.file === other) ? [[e.file, other] as const] : []
      })
      expect(partners.length).toBeGreaterThanOrEqual(5)

      // three storages: the FITs (the whole daemon, for its GPX export over HTTP), the GPX
      // exports, and the corpus partners (each the same activity as a FIT: a duplicate otherwise)
      const [rootFit, rootGpx, rootOther] = [yield* scopedRoot(), yield* scopedRoot(), yield* scopedRoot()]
      const daemon = yield* Layer.build(daemonLayer(rootFit))
      const gpxStorage = yield* Layer.build(servicesLayer(rootGpx))
      const otherStorage = yield* Layer.build(servicesLayer(rootOther))

      /** Imports bytes into a storage; the activities made, or the reason there are none. */
      const importInto = (root: { readonly root: string }, name: string, bytes: Uint8Array | string) =>
        Effect.gen(function*() {
          const dir = path.join(root.root, "in")
          fs.mkdirSync(dir, { recursive: true })
          const file = path.join(dir, name)
          fs.writeFileSync(file, bytes)
          const outcome = yield* (yield* ImportService).importFile({ filename: name, format: formatOf(name), path: file, mtimeMs: 0 })
          const repo = yield* ActivityRepo
          const activities = yield* Effect.forEach(outcome?.activityIds ?? [], (id) => Effect.map(repo.findById(id), (a) => ({ id, activity: a! })))
          return { activities, status: outcome?.status ?? "gone", message: outcome?.errorMessage ?? null }
        })

      // a machine loaded by other work may take longer than the daemon's time limit over a long GPX
      const patient = Effect.provideService(ParseLimits, { timeout: Duration.minutes(2), heapMb: 512, recycleAfterIdle: Duration.seconds(10) })
      const rows: Array<Row> = []
      const imported = new Map<string, ReadonlyArray<{ readonly id: string; readonly numbers: Numbers }>>()
      for (const entry of fits) {
        const result = yield* importInto(rootFit, path.basename(entry.file), readCorpusFile(entry.file)).pipe(patient, Effect.provide(daemon))
        imported.set(entry.file, result.activities.map(({ activity, id }) => ({ id, numbers: numbersOf(activity) })))
        if (result.activities.length === 0) rows.push({ pair: `${entry.file} -> GPX export`, verdict: `skipped: the FIT is ${result.status} (${result.message})`, ok: true })
      }

      // corpus pairs
      for (const [fitFile, otherFile] of partners) {
        const fit = imported.get(fitFile)?.[0]
        const other = (yield* importInto(rootOther, path.basename(otherFile), readCorpusFile(otherFile)).pipe(patient, Effect.provide(otherStorage))).activities[0]
        const pair = `${fitFile} vs ${otherFile}`
        if (fit === undefined || other === undefined) {
          rows.push({ pair, verdict: "FAILED: one side did not import", ok: false })
          continue
        }
        rows.push(judge(pair, fit.numbers, numbersOf(other.activity), (yield* Effect.promise(() => fromSamples(fitFile)))[0]))
      }

      // each FIT activity exported as GPX by the service and imported into a second storage
      for (const entry of fits) {
        const activities = imported.get(entry.file) ?? []
        const samples = activities.length > 0 ? yield* Effect.promise(() => fromSamples(entry.file)) : []
        for (const [k, { id, numbers }] of activities.entries()) {
          const pair = `${entry.file}${activities.length > 1 ? ` #${k + 1}` : ""} vs its GPX export`
          const gpx = yield* send("GET", `/api/v1/activities/${id}/gpx`).pipe(Effect.provide(daemon))
          if (gpx.status === 404 && /no GPS/.test(gpx.text)) {
            rows.push({ pair, verdict: "skipped: no positions, no GPX to export (indoor, pool or treadmill)", ok: true })
            continue
          }
          expect(gpx.status, pair).toBe(200)
          const again = yield* importInto(rootGpx, `${path.basename(entry.file, ".fit")}-${k + 1}.gpx`, gpx.bytes).pipe(patient, Effect.provide(gpxStorage))
          const other = again.activities[0]
          if (other === undefined) {
            rows.push({ pair, verdict: `FAILED: the export is ${again.status} (${again.message})`, ok: false })
            continue
          }
          rows.push(judge(pair, numbers, numbersOf(other.activity), samples[k]))
        }
      }

      printTable(rows)
      const outside = rows.filter((r) => !r.ok).map((r) => `${r.pair}: ${r.verdict}`)
      expect(outside).toEqual([])
      expect(rows.filter((r) => r.fit !== undefined).length).toBeGreaterThanOrEqual(30)
    }), { timeout: 600_000 })
})
