import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE, type CorpusEntry, corpusDrafts, loadManifest, readCorpusFile } from "../../support/corpus.ts"
import { daemonLayer, dayStart, dropFile, fitActivity, importRows, scopedRoot, waitFor, waitForDrained, waitForRow } from "../../support/ImportHarness.ts"
import { send } from "../../support/TestDaemon.ts"

/**
 * The shared corpus through the import pipeline: every file of fit/, tcx/, gpx/ and bad/
 * dropped into a running daemon ends with a terminal row; the computed activities agree with
 * the devices' own session totals and across the cross-format pairs of corpus/README.md.
 */

if (!CORPUS_DIR) console.log(CORPUS_MISSING_MESSAGE)

const entries: ReadonlyArray<CorpusEntry> = loadManifest()
const basename = (file: string) => file.slice(file.lastIndexOf("/") + 1)

/** Files refused on purpose, with the problem their message must name. */
const FAILS: Readonly<Record<string, RegExp>> = {
  "fit/garmin-compressed-timestamps-run.fit": /has no real start date/,
  "tcx/garmin-course.tcx": /is a course, not an activity/,
  "gpx/gpx10-route-only.gpx": /is a route \(<rte> only\)/,
  "gpx/osmand-empty-track.gpx": /has no track points with a time/,
  "bad/empty-zero-bytes.fit": /is empty \(0 bytes\)/,
  "bad/garmin-instinct-locations-not-activity.fit": /is a FIT locations file, not an activity/,
  "bad/gpsbabel-error-text-not-xml.gpx": /is not XML/,
  "bad/sigma-truncated-no-crc.fit": /is truncated/,
  "bad/strava-android-run-undefined-local-message.fit": /is truncated/,
  "bad/trainingpeaks-workout-not-activity.fit": /is a FIT workout .*not an activity/,
  "bad/truncated-coros-pace2-run.fit": /is truncated/,
  "bad/truncated-garmin-fr410-run.tcx": /is truncated or not well-formed XML/
}

/** [device file, other recording]; the second is skipped as a duplicate of the first. */
const PAIRS = [
  ["fit/garmin-edge1000-ride.fit", "gpx/garmin-connect-edge1000-ride.gpx"],
  ["fit/garmin-fr15-10k-run.fit", "tcx/garmin-fr15-10k-run.tcx"],
  ["fit/garmin-fenix3-pool-swim-hrm-chained.fit", "tcx/garmin-fenix3-pool-swim-hrm.tcx"],
  ["fit/garmin-fr935-pool-swim-50m.fit", "tcx/garmin-fr935-pool-swim-50m.tcx"],
  ["fit/garmin-fr945-treadmill-run.fit", "tcx/garmin-fr945-treadmill-run.tcx"],
  ["fit/garmin-fr935-ironman-triathlon.fit", "gpx/strava-ironman-swim-leg.gpx"]
] as const

interface Session {
  readonly sport: string
  readonly start: number | null
  readonly elapsed: number | null
  readonly timer: number | null
  readonly distance: number | null
  readonly ascent: number | null
  readonly kcal: number | null
  readonly avgHr: number | null
}

/** The `session:` / `sessionN:` totals of a FIT file's manifest notes. */
const embeddedSessions = (notes: string): Array<Session> => {
  const found: Array<Session> = []
  for (const m of notes.matchAll(/session\d*: ([^;]*)/g)) {
    const field = (re: RegExp) => {
      const v = re.exec(m[1]!)?.[1]
      return v === undefined ? null : Number(v)
    }
    const start = /start=(\d{4}-\S+Z)/.exec(m[1]!)?.[1]
    found.push({
      sport: /sport=([a-z_]+)/.exec(m[1]!)?.[1] ?? "",
      start: start ? Date.parse(start) : null,
      elapsed: field(/elapsed=([\d.]+)s/),
      timer: field(/timer=([\d.]+)s/),
      distance: field(/dist=([\d.]+)m/),
      ascent: field(/ascent=([\d.]+)m/),
      kcal: field(/kcal=(\d+)/),
      avgHr: field(/avgHR=(\d+)/)
    })
  }
  return found
}

describe.skipIf(!CORPUS_DIR)("corpus through the daemon", () => {
  it.scopedLive("every file of fit/, tcx/, gpx/ and bad/ ends success, skipped or failed with a specific message; none stays queued", () =>
    Effect.gen(function*() {
      // two parse threads, as on a 2-core machine: one thread at its low priority took more than
      // 400 s over the corpus on a machine at load 45
      const root = yield* scopedRoot({ IMPORT_PARSE_WORKERS: "2" })
      const files = entries.map((e) => e.file)
      expect(files.length).toBeGreaterThan(90)
      expect(new Set(files.map(basename)).size).toBe(files.length)
      yield* Effect.gen(function*() {
        for (const [i, file] of files.entries()) {
          dropFile(root.watchDir, basename(file), readCorpusFile(file), "part", new Date(Date.parse("2020-01-01T00:00:00Z") + i * 1000))
        }
        // a limit, not a timing: the parse threads, at a lower priority than everything else,
        // take about 25 s of processor time over the corpus, and minutes by the clock on a
        // loaded machine
        yield* waitFor("the corpus import", Effect.map(importRows(), (rows) => (rows.length >= files.length ? rows : undefined)), { timeout: "400 seconds", interval: "200 millis" })
        const rows = yield* importRows()
        const byName = new Map(rows.map((r) => [r.filename, r]))
        expect(rows).toHaveLength(files.length)
        yield* waitForDrained(root.watchDir)
        const queued = yield* send("GET", "/api/v1/file-imports?filters[status]=queued")
        expect(queued.json.fileImports).toEqual([])

        const activityIds = new Set(rows.map((r) => r.activity_id).filter((id) => id !== null))
        for (const file of files) {
          const row = byName.get(basename(file))!
          const fails = FAILS[file]
          if (fails !== undefined) {
            expect({ file, status: row.status }).toEqual({ file, status: "failed" })
            expect(row.error_message, file).toMatch(fails)
            expect(row.error_message, file).toContain(`"${basename(file)}"`)
          } else if (row.status === "skipped") {
            // a skipped file names the activity it duplicates, which exists
            const named = /"(activity-[^"]+)"/.exec(row.error_message ?? "")?.[1]
            expect(named !== undefined && activityIds.has(named), `${file}: ${row.error_message}`).toBe(true)
          } else {
            expect({ file, status: row.status, message: row.error_message }).toEqual({ file, status: "success", message: null })
          }
        }
        // whichever recording of a pair came first, the other is its duplicate (the triathlon
        // FIT keeps its ride and run when the swim leg came first)
        for (const [device, other] of PAIRS) {
          const a = byName.get(basename(device))!
          const b = byName.get(basename(other))!
          if (device.includes("ironman") && b.status === "success") {
            expect(a.status, device).toBe("success")
            continue
          }
          const [first, second] = a.status === "success" ? [a, b] : [b, a]
          expect([first.status, second.status], `${device} <-> ${other}`).toEqual(["success", "skipped"])
          expect(second.error_message, other).toContain(first.activity_id!)
        }
        // still alive and importing
        expect((yield* send("GET", "/api/v1/status")).status).toBe(200)
        dropFile(root.watchDir, "after-corpus.fit", fitActivity({ start: dayStart(1), seconds: 600 }))
        expect((yield* waitForRow("after-corpus.fit")).status).toBe("success")
      }).pipe(Effect.provide(daemonLayer(root)))
    }), { timeout: 480_000 })
})

describe.skipIf(!CORPUS_DIR)("corpus activities (computed as the parse worker computes them)", () => {
  /**
   * The activities of `files`, each file computed once per process (corpusDrafts: what the
   * parse worker's thread runs; the import through the worker is the test above).
   */
  const parsedFiles = (files: ReadonlyArray<string>) =>
    Effect.promise(async () => {
      const drafts = new Map<string, Awaited<ReturnType<typeof corpusDrafts>>>()
      // one after another: each file in a turn of its own of the event loop
      for (const file of files) drafts.set(file, await corpusDrafts(file))
      return drafts
    })

  it.scopedLive("FIT activities agree with the devices' session totals (distance ±1 %, elapsed ±2 s, moving within the timer (= timer ±2 s without GPS), kcal exact, avg HR ±1)", () =>
    Effect.gen(function*() {
      const fits = entries.filter((e) => e.file.startsWith("fit/") && FAILS[e.file] === undefined)
      const drafts = yield* parsedFiles(fits.map((e) => e.file))
      let compared = 0
      for (const entry of fits) {
        const sessions = embeddedSessions(entry.notes).filter((s) => s.sport !== "transition")
        const activities = drafts.get(entry.file)!
        expect(activities.length, entry.file).toBe(Math.max(1, sessions.length))
        sessions.forEach((s, i) => {
          const a = activities[i]!
          const label = `${entry.file} session ${i + 1}`
          // a clock that leapt weeks ahead: the samples across it are dropped, the start and elapsed time are the rest's
          const leapt = (a.repairs ?? []).some((r) => r.includes("clock leap"))
          if (s.start !== null && !leapt) expect(Math.abs(a.startTime - s.start), `${label} start`).toBeLessThanOrEqual(1000)
          if (s.distance !== null) expect(Math.abs(a.distanceInMeter - s.distance), `${label} distance`).toBeLessThanOrEqual(Math.max(1, s.distance * 0.01))
          if (s.elapsed !== null && !leapt) expect(Math.abs(a.elapsedTimeInSeconds - s.elapsed), `${label} elapsed`).toBeLessThanOrEqual(2)
          // the timer counts standing still when auto-pause is off: a GPS track takes those stops off
          if (s.timer !== null && a.hasGpx) expect(a.movingTimeInSeconds, `${label} moving <= timer`).toBeLessThanOrEqual(s.timer + 2)
          // a pool swim's moving time is the time of its lengths: the rests at the wall, which the timer counts, are left out
          if (s.timer !== null && !a.hasGpx && a.numberOfLengths !== null) {
            expect(a.movingTimeInSeconds, `${label} moving <= timer`).toBeLessThanOrEqual(s.timer + 2)
          } else if (s.timer !== null && !a.hasGpx) expect(Math.abs(a.movingTimeInSeconds - s.timer), `${label} moving = timer`).toBeLessThanOrEqual(2)
          // a device total of 0 kcal is no calorie count: absent
          if (s.kcal !== null) expect(a.calories, `${label} kcal`).toBe(s.kcal === 0 ? null : s.kcal)
          if (s.avgHr !== null) expect(Math.abs(a.averageHeartRate! - s.avgHr), `${label} avg HR`).toBeLessThanOrEqual(1)
          if (s.ascent !== null) expect(a.elevationInMeter, `${label} ascent`).toBe(Math.round(s.ascent))
          compared++
        })
      }
      expect(compared).toBeGreaterThan(40)
    }), { timeout: 300_000 })

  it.scopedLive("no best effort of any corpus activity is faster than a person can go (a track with gaps covers them at its own pace, not in one second)", () =>
    Effect.gen(function*() {
      const files = entries.filter((e) => /^(fit|tcx|gpx)\//.test(e.file) && FAILS[e.file] === undefined).map((e) => e.file)
      const drafts = yield* parsedFiles(files)
      let efforts = 0
      for (const [file, activities] of drafts) {
        for (const a of activities) {
          // world records: 10.4 m/s over 100 m on foot; 90 km/h is a fast descent on a bike
          const fastest = /Run|Walk|Hike/.test(a.sportType) ? 10.5 : 25
          for (const e of a.bestEfforts) {
            expect(e.distanceInMeter / e.elapsedTimeInSeconds, `${file}: ${a.sportType} ${e.distanceInMeter} m in ${e.elapsedTimeInSeconds} s`).toBeLessThanOrEqual(fastest)
            efforts++
          }
        }
      }
      expect(efforts).toBeGreaterThan(100)
    }), { timeout: 300_000 })

  it.scopedLive("cross-format pairs agree: moving time within 2 % of the device timer (a pool swim's, rests left out, within 3 %), elevation within 10 % of the device total, distance ±1 % (GPX ±3 %)", () =>
    Effect.gen(function*() {
      const drafts = yield* parsedFiles(PAIRS.flat())
      for (const [device, other] of PAIRS) {
        const session = embeddedSessions(entries.find((e) => e.file === device)!.notes)[0]!
        const d = drafts.get(device)![0]!
        const o = drafts.get(other)![0]!
        const label = `${device} <-> ${other}`
        expect(Math.abs(o.startTime - d.startTime), `${label} start`).toBeLessThanOrEqual(60_000)
        const timer = session.timer ?? session.elapsed!
        // a pool swim's moving time leaves its rests out, which its timer counts: the FIT's lengths
        // and the TCX's laps without distance tell them, a little apart (the lengths start and end
        // within the laps)
        const pool = d.numberOfLengths !== null
        const reference = pool ? d.movingTimeInSeconds : timer
        expect(Math.abs(o.movingTimeInSeconds - reference), `${label} moving ${o.movingTimeInSeconds} vs ${reference}`).toBeLessThanOrEqual(reference * (pool ? 0.03 : 0.02))
        if (pool) expect(d.movingTimeInSeconds, `${label} device moving`).toBeLessThan(timer)
        else expect(Math.abs(d.movingTimeInSeconds - timer), `${label} device moving`).toBeLessThanOrEqual(timer * 0.02)
        const ascent = session.ascent ?? 0
        expect(Math.abs(o.elevationInMeter - ascent), `${label} elevation ${o.elevationInMeter} vs ${ascent}`).toBeLessThanOrEqual(Math.max(1, ascent * 0.1))
        const tolerance = other.endsWith(".gpx") ? 0.03 : 0.01
        expect(Math.abs(o.distanceInMeter - d.distanceInMeter), `${label} distance`).toBeLessThanOrEqual(d.distanceInMeter * tolerance)
      }
    }), { timeout: 300_000 })

})
