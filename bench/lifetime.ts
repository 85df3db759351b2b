/**
 * A lifetime export, measured: builds the 5,000-activity export of the whole-history import
 * from the corpus's FIT files (test/support/lifetimeExport: each copy moved in time, so that
 * none duplicates another) in Strava's layout and in Garmin Connect's, timing each, then
 * decodes the same 5,000 files with the fastest decoder there is, the Garmin FIT SDK, as the
 * baseline the import's rate is printed beside. Optionally (LIFETIME_OWN_PARSE=true) the
 * import's own parse of the same files, in this process, for comparison.
 *
 *   npx tsx bench/lifetime.ts   (LIFETIME_COUNT=5000, LIFETIME_LAYOUTS=strava,garmin, LIFETIME_KEEP=true keeps the zips)
 *
 * Prints the figures; always exits 0.
 */
import { Decoder, Stream } from "@garmin/fitsdk"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { parseActivityFile } from "../src/services/import/parsers/parseActivityFile.ts"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE } from "../test/support/corpus.ts"
import { garminExport, stravaExport, writeZip } from "../test/support/exportArchives.ts"
import { lifetimeActivities, lifetimeSources } from "../test/support/lifetimeExport.ts"
import { mb, printTable } from "./measure.ts"

const COUNT = Number(process.env.LIFETIME_COUNT ?? 5000)
const LAYOUTS = (process.env.LIFETIME_LAYOUTS ?? "strava,garmin").split(",").filter((l) => l === "strava" || l === "garmin")

const cpuSeconds = () => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1e6
}

/** Wall and CPU seconds of `run`. */
const timed = async <T>(run: () => T | Promise<T>): Promise<{ result: T; seconds: number; cpu: number }> => {
  const cpu0 = cpuSeconds()
  const t0 = performance.now()
  const result = await run()
  return { result, seconds: (performance.now() - t0) / 1000, cpu: cpuSeconds() - cpu0 }
}

const main = async () => {
  if (!CORPUS_DIR) return console.log(CORPUS_MISSING_MESSAGE)
  console.log(`lifetime export: ${COUNT} activities, node ${process.version}, ${os.cpus().length} cpus, load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`)
  const sources = await timed(lifetimeSources)
  console.log(`${sources.result.length} corpus FIT files as sources, read in ${sources.seconds.toFixed(1)} s`)
  const rows: Array<Array<string>> = []

  // the generator alone: every file made, nothing written
  const made = await timed(() => {
    let bytes = 0
    for (const a of lifetimeActivities(sources.result, COUNT)) bytes += a.file.bytes.length
    return bytes
  })
  rows.push([`${COUNT} FIT files made (moved in time, CRCs recomputed)`, `${made.seconds.toFixed(1)} s`, `${made.cpu.toFixed(1)} s`, mb(made.result)])

  for (const layout of LAYOUTS) {
    const file = path.join(os.tmpdir(), `waymark-lifetime-${layout}-${process.pid}.zip`)
    const spec = { activities: lifetimeActivities(sources.result, COUNT) }
    const written = await timed(() => writeZip(file, layout === "strava" ? stravaExport(spec) : garminExport(spec)))
    rows.push([`${layout} export zip written (${file})`, `${written.seconds.toFixed(1)} s`, `${written.cpu.toFixed(1)} s`, mb(written.result)])
    if (process.env.LIFETIME_KEEP !== "true") fs.rmSync(file, { force: true })
  }

  // the baseline: the same files decoded by the FIT SDK, the making of each file outside the clock
  const decoders = [
    ["FIT SDK decode, its defaults (scaled values, strings, dates, merged heart rates)", {}],
    ["FIT SDK decode, fastest (raw values: no scaling, sub-fields, components, strings, dates)", {
      applyScaleAndOffset: false, expandSubFields: false, expandComponents: false, convertTypesToStrings: false,
      convertDateTimesToDates: false, mergeHeartRates: false
    }]
  ] as const
  for (const [label, options] of decoders) {
    let seconds = 0
    let cpu = 0
    let errors = 0
    for (const a of lifetimeActivities(sources.result, COUNT)) {
      const decoded = await timed(() => new Decoder(Stream.fromBuffer(a.file.bytes)).read(options).errors.length)
      seconds += decoded.seconds
      cpu += decoded.cpu
      errors += decoded.result
    }
    rows.push([`${label}: ${(COUNT / seconds).toFixed(0)} files/s${errors > 0 ? `, ${errors} errors` : ""}`, `${seconds.toFixed(1)} s`, `${cpu.toFixed(1)} s`, ""])
  }

  if (process.env.LIFETIME_OWN_PARSE === "true") {
    let seconds = 0
    let cpu = 0
    for (const a of lifetimeActivities(sources.result, COUNT)) {
      const parsed = await timed(() => parseActivityFile(a.file.bytes, "fit", a.file.name))
      seconds += parsed.seconds
      cpu += parsed.cpu
    }
    rows.push([`the import's parse (parseActivityFile, one thread): ${(COUNT / seconds).toFixed(0)} files/s`, `${seconds.toFixed(1)} s`, `${cpu.toFixed(1)} s`, ""])
  }

  console.log("")
  printTable(["measure", "wall", "CPU", "size"], rows)
  console.log(`\npeak RSS of this process ${mb(process.resourceUsage().maxRSS * 1024)}; load after ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`)
}

main().catch((e) => console.error("benchmark failed:", e)).finally(() => process.exit(0))
