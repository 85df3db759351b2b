import { describe, expect, it } from "@effect/vitest"
import type { ParsedActivity } from "../../../../src/schema/ParsedActivity.ts"
import { computeActivity } from "../../../../src/services/import/ActivityMetrics.ts"
import { isSportType } from "../../../../src/schema/SportType.ts"
import { ActivityFileError } from "../../../../src/services/import/parsers/ActivityFileError.ts"
import { parseActivityFile } from "../../../../src/services/import/parsers/parseActivityFile.ts"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE, type CorpusEntry, loadManifest, readCorpusFile } from "../../../support/corpus.ts"

if (!CORPUS_DIR) console.log(CORPUS_MISSING_MESSAGE)

/** Files of fit/, tcx/ and gpx/ that are refused on purpose, with why. */
const REFUSED: Readonly<Record<string, RegExp>> = {
  // timestamps below 0x10000000 count from device power-on: no real start date exists
  "fit/garmin-compressed-timestamps-run.fit": /has no real start date: its timestamps count from device power-on$/,
  // a <Courses> file: a planned route, no activity
  "tcx/garmin-course.tcx": /^"garmin-course\.tcx" is a course, not an activity$/,
  "gpx/gpx10-route-only.gpx": /is a route \(<rte> only\), not a recorded activity$/,
  // a GPX track without a single point
  "gpx/osmand-empty-track.gpx": /has no track points with a time$/
}

/** Every bad/ file but the SALVAGED ones is refused with a message naming its problem. */
const BAD: Readonly<Record<string, RegExp>> = {
  "bad/empty-zero-bytes.fit": /is empty \(0 bytes\)$/,
  "bad/garmin-instinct-locations-not-activity.fit": /is a FIT locations file, not an activity$/,
  "bad/gpsbabel-error-text-not-xml.gpx": /is not XML$/,
  "bad/sigma-truncated-no-crc.fit": /is truncated: it ends without its activity summary/,
  "bad/strava-android-run-undefined-local-message.fit": /is truncated: the file ends before its declared data size/,
  "bad/trainingpeaks-workout-not-activity.fit": /is a FIT workout \(a planned workout\) file, not an activity$/,
  "bad/truncated-coros-pace2-run.fit": /is truncated: the file ends before its declared data size/,
  "bad/truncated-garmin-fr410-run.tcx": /is truncated or not well-formed XML/
}

/**
 * bad/ files that still hold an activity, imported with what they hold and the damage named: a
 * header declaring 0 bytes of data before 86 KB of records (a 38-minute recording of 2016-01-16;
 * the 45 bytes at its end do not read as records).
 */
const SALVAGED: Readonly<Record<string, { readonly samples: number; readonly start: string; readonly repairs: ReadonlyArray<RegExp> }>> = {
  "bad/header-datasize-zero.fit": {
    samples: 2318,
    start: "2016-01-16T14:33:51.000Z",
    repairs: [/^its FIT header declares no data: the 86,004 bytes after it were read as records$/, /^damaged FIT data skipped: 45 of 86,004 bytes/]
  }
}

const entries: ReadonlyArray<CorpusEntry> = loadManifest()
const activityEntries = entries.filter((e) => /^(fit|tcx|gpx)\//.test(e.file))
const badEntries = entries.filter((e) => e.file.startsWith("bad/"))
const basename = (file: string): string => file.slice(file.lastIndexOf("/") + 1)

const parse = (entry: CorpusEntry): Promise<ReadonlyArray<ParsedActivity>> =>
  parseActivityFile(new Uint8Array(readCorpusFile(entry.file)), entry.format, basename(entry.file))

const refusal = async (entry: CorpusEntry): Promise<string> => {
  const error = await parse(entry).then(() => undefined, (e: unknown) => e)
  expect(error, `${entry.file} should be refused`).toBeInstanceOf(ActivityFileError)
  return (error as ActivityFileError).message
}

/** The `session: sport=... elapsed=...s` values the corpus builder decoded, in file order. */
interface EmbeddedSession {
  readonly sport: string
  readonly start: number | null
  readonly elapsed: number | null
  readonly timer: number | null
  readonly distance: number | null
  readonly kcal: number | null
  readonly avgHr: number | null
}
const embeddedSessions = (notes: string): Array<EmbeddedSession> => {
  const out: Array<EmbeddedSession> = []
  for (const m of notes.matchAll(/session\d*: (sport=[^;]*)/g)) {
    const fields = m[1]!
    const value = (key: string, unit = ""): number | null => {
      const found = new RegExp(`(?:^| )${key}=(-?[\\d.]+)${unit}(?: |$)`).exec(fields)
      return found ? Number(found[1]) : null
    }
    const start = /start=(\d{4}-\d\d-\d\dT[\d:]+Z)/.exec(fields)
    out.push({
      sport: /sport=(\S+)/.exec(fields)![1]!,
      start: start ? Date.parse(start[1]!) : null,
      elapsed: value("elapsed", "s"),
      timer: value("timer", "s"),
      distance: value("dist", "m"),
      kcal: value("kcal"),
      avgHr: value("avgHR")
    })
  }
  return out
}

/**
 * FIT files of recordings paused for weeks (an Edge 810 ride resumed a month later, a Magellan
 * whose first three samples precede the rest by 28 days): the device's session spans the pause,
 * so it is a real one, not a clock leap, and every record is kept (sports-lib keeps the
 * Magellan's 3699 samples too).
 */
const MULTI_DAY: Readonly<Record<string, number>> = {
  "fit/garmin-edge810-ride-31-days.fit": 497,
  "fit/magellan-ride-27-days.fit": 3699
}

const checkConsistent = (file: string, a: ParsedActivity): void => {
  expect(isSportType(a.sportType), `${file}: sport ${a.sportType}`).toBe(true)
  expect(Number.isFinite(a.startTime), `${file}: start time`).toBe(true)
  // a route without any time nor a date of the file's own starts at 0: its date is unknown
  if (a.dateUnknown === true) expect(a.startTime, `${file}: date unknown, start 0`).toBe(0)
  else expect(a.startTime, `${file}: start after 1998`).toBeGreaterThan(Date.UTC(1998, 0, 1))
  const s = a.samples
  for (const [key, column] of Object.entries(s)) {
    if (key !== "time" && key !== "segmentStarts") expect(column, `${file}: ${key} length`).toHaveLength(s.time.length)
  }
  for (let i = 1; i < s.time.length; i++) {
    if (!(s.time[i]! > s.time[i - 1]!)) expect.fail(`${file}: time not strictly increasing at ${i}`)
  }
  for (let i = 0; i < s.lat.length; i++) {
    const lat = s.lat[i]
    const lng = s.lng[i]
    if ((lat === null) !== (lng === null)) expect.fail(`${file}: half a position at ${i}`)
    if (lat != null && lng != null && (Math.abs(lat) > 90 || Math.abs(lng) > 180 || (lat === 0 && lng === 0))) {
      expect.fail(`${file}: invalid position at ${i}`)
    }
  }
  s.segmentStarts.forEach((index, i) => {
    expect(index).toBeGreaterThan(i === 0 ? 0 : s.segmentStarts[i - 1]!)
    expect(index).toBeLessThan(s.time.length)
  })
  const { timerSeconds, elapsedSeconds, distanceMeters } = a.totals
  if (timerSeconds !== null && elapsedSeconds !== null) {
    // moving (device timer) <= elapsed; 2 s of rounding slack (zwift-virtual-ride.fit: timer 1163 s, elapsed 1162 s)
    expect(timerSeconds, `${file}: timer <= elapsed`).toBeLessThanOrEqual(elapsedSeconds + 2)
  }
  if (distanceMeters !== null) expect(distanceMeters).toBeGreaterThanOrEqual(0)
}

describe.skipIf(!CORPUS_DIR)("activity corpus", () => {
  it("lists every refused file of fit/, tcx/, gpx/ and bad/ in the manifest", () => {
    const files = new Set(entries.map((e) => e.file))
    for (const file of [...Object.keys(REFUSED), ...Object.keys(BAD)]) expect(files.has(file), file).toBe(true)
    expect(badEntries.map((e) => e.file).sort()).toEqual([...Object.keys(BAD), ...Object.keys(SALVAGED)].sort())
  })

  describe("fit/, tcx/, gpx/: parse consistently or are refused on purpose", () => {
    it.each(activityEntries.map((e) => [e.file, e] as const))("%s", async (file, entry) => {
      const refused = REFUSED[file]
      if (refused !== undefined) {
        expect(await refusal(entry)).toMatch(refused)
        return
      }
      const activities = await parse(entry)
      expect(activities.length).toBeGreaterThanOrEqual(1)
      for (const a of activities) {
        expect(a.format).toBe(entry.format)
        checkConsistent(file, a)
      }
      if (entry.format !== "fit") return
      // the device's own session totals, as the corpus builder decoded them (transitions are dropped)
      const sessions = embeddedSessions(entry.notes).filter((s) => s.sport !== "transition")
      expect(activities).toHaveLength(Math.max(1, sessions.length))
      sessions.forEach((expected, i) => {
        const a = activities[i]!
        const label = `${file} session ${i + 1}`
        const records = MULTI_DAY[file]
        if (records !== undefined) {
          expect(a.samples.time, label).toHaveLength(records)
          expect(a.repairs, label).toEqual([])
        }
        if (expected.start !== null) expect(Math.abs(a.startTime - expected.start), `${label} start`).toBeLessThanOrEqual(1000)
        if (expected.distance !== null) {
          expect(Math.abs(a.totals.distanceMeters! - expected.distance), `${label} distance`).toBeLessThanOrEqual(Math.max(1, expected.distance * 0.01))
        }
        if (expected.elapsed !== null) expect(Math.abs(a.totals.elapsedSeconds! - expected.elapsed), `${label} elapsed`).toBeLessThanOrEqual(2)
        if (expected.timer !== null) expect(Math.abs(a.totals.timerSeconds! - expected.timer), `${label} timer`).toBeLessThanOrEqual(2)
        // a device total of 0 kcal is no calorie count: absent
        if (expected.kcal !== null) expect(a.totals.calories, `${label} kcal`).toBe(expected.kcal === 0 ? null : expected.kcal)
        if (expected.avgHr !== null) expect(Math.abs(a.totals.averageHeartRate! - expected.avgHr), `${label} avgHR`).toBeLessThanOrEqual(1)
      })
    })
  })

  describe("bad/: refused with a message naming the problem, or salvaged with the damage named", () => {
    it.each(badEntries.map((e) => [e.file, e] as const))("%s", async (file, entry) => {
      const salvaged = SALVAGED[file]
      if (salvaged !== undefined) {
        const [a, ...others] = await parse(entry)
        expect(others).toEqual([])
        checkConsistent(file, a!)
        expect(a!.samples.time).toHaveLength(salvaged.samples)
        expect(new Date(a!.startTime).toISOString()).toBe(salvaged.start)
        for (const [i, repair] of salvaged.repairs.entries()) expect(a!.repairs?.[i]).toMatch(repair)
        return
      }
      const message = await refusal(entry)
      expect(message.startsWith(`"${basename(file)}" `), message).toBe(true)
      expect(message).toMatch(BAD[file]!)
      expect(message).not.toMatch(/\n\s+at /) // never a stack trace
    })
  })

  it("merges the swim strap heart rates of chained FIT files", async () => {
    for (const file of [
      "fit/garmin-fr735xt-pool-swim-chained-hr.fit", "fit/garmin-fenix3-pool-swim-hrm-chained.fit",
      "fit/garmin-fr935-pool-swim-50m.fit", "fit/garmin-fr945-pool-swim-25m.fit"
    ]) {
      const [a] = await parse(entries.find((e) => e.file === file)!)
      const hr = a!.samples.heartRate.filter((v): v is number => v !== null)
      // the records themselves carry no heart rate: every value comes from the strap segments
      expect(hr.length / a!.samples.time.length, `${file} coverage`).toBeGreaterThan(0.95)
      expect(Math.abs(Math.max(...hr) - a!.totals.maxHeartRate!), `${file} max HR`).toBeLessThanOrEqual(2)
      const mean = hr.reduce((x, y) => x + y, 0) / hr.length
      expect(Math.abs(mean - a!.totals.averageHeartRate!), `${file} mean HR`).toBeLessThanOrEqual(10)
    }
  })

  it("agrees with values stated by the sources", async () => {
    const one = async (file: string) => (await parse(entries.find((e) => e.file === file)!))[0]!
    const run = await one("fit/garmin-fr645m-run.fit")
    expect(run.sportType).toBe("Run")
    expect(run.deviceName).toBe("Garmin Forerunner 645 Music")
    expect(run.totals).toMatchObject({ distanceMeters: 5839.77, calories: 432, averageHeartRate: 130, ascentMeters: 234, maxHeartRate: 160 })
    expect(run.utcOffsetSeconds).toBe(7200) // Europe/Berlin, summer
    expect(run.laps[0]).toMatchObject({ distanceMeters: 1000, elapsedSeconds: 465.09 })
    const tcx = await one("tcx/garmin-fr410-run-3-laps.tcx")
    expect(tcx.startTime).toBe(Date.parse("2012-12-26T21:29:53Z"))
    expect(tcx.totals.calories).toBe(379)
    expect(tcx.totals.timerSeconds).toBeCloseTo(1992.78, 2) // python-tcxparser's duration: the laps' TotalTimeSeconds
    expect(tcx.totals.elapsedSeconds).toBeCloseTo(1992.78, 2) // completed 22:03:05 − started 21:29:53 = 1992 s, never below the timer
    expect(tcx.totals.maxHeartRate).toBe(189)
    expect(tcx.laps).toHaveLength(3)
    const gpx = await one("gpx/locus-map-run.gpx")
    expect(gpx.startTime).toBe(Date.parse("2019-07-12T17:05:36Z"))
    expect(gpx.samples.time.at(-1)! - gpx.samples.time[0]!).toBe(1502_000)
    const ironman = await parse(entries.find((e) => e.file === "fit/garmin-fr935-ironman-triathlon.fit")!)
    expect(ironman.map((a) => a.sportType)).toEqual(["OpenWaterSwim", "Ride", "Run"])
    const zwift = await one("fit/zwift-virtual-ride.fit")
    expect(zwift.sportType).toBe("VirtualRide")
    expect(zwift.startLatLng).toBeNull() // session start position 0/0
    expect(zwift.utcOffsetSeconds).toBeNull() // local_timestamp 11 days off: out of ±14 h
    // Zwift's files of 2015 name the FIT placeholder maker "development" with Zwift's product id;
    // its Richmond world lies on the real Richmond: the file, not the place, says it is virtual
    const zwift2015 = await one("fit/zwift-virtual-ride-2015.fit")
    expect([zwift2015.deviceName, zwift2015.sportType, zwift2015.worldType]).toEqual(["Zwift", "VirtualRide", "zwift"])
    const located = computeActivity(zwift2015, { filename: "zwift-virtual-ride-2015.fit", fallbackTimeZone: "UTC" })
    expect([located.worldType, located.location, located.passedThroughCountries]).toEqual(["zwift", { countryCode: null, state: null, city: null }, []])
    expect((await one("tcx/strava-run-leading-whitespace.tcx")).sportType).toBe("Run")
    expect((await one("gpx/strava-run-unbound-namespace-prefix.gpx")).samples.cadence.some((c) => c !== null)).toBe(true)
    expect((await parse(entries.find((e) => e.file === "tcx/garmin-fr305-multisport-4-activities.tcx")!)).map((a) => a.sportType))
      .toEqual(["Run", "Ride", "Run", "Ride"])
  })

  it("gives the same totals for the same activity in FIT and TCX", async () => {
    for (const [fit, tcx, sameElapsed] of [
      ["fit/garmin-fr15-10k-run.fit", "tcx/garmin-fr15-10k-run.tcx", true],
      // Garmin Connect's TCX of these pool swims ends with the last length: the FIT's final 12-20 s are not in it
      ["fit/garmin-fenix3-pool-swim-hrm-chained.fit", "tcx/garmin-fenix3-pool-swim-hrm.tcx", false],
      ["fit/garmin-fr935-pool-swim-50m.fit", "tcx/garmin-fr935-pool-swim-50m.tcx", false],
      // paused: 3098 s of timer in 3764 s on the clock
      ["fit/garmin-fr945-treadmill-run.fit", "tcx/garmin-fr945-treadmill-run.tcx", true]
    ] as const) {
      const [f] = await parse(entries.find((e) => e.file === fit)!)
      const [t] = await parse(entries.find((e) => e.file === tcx)!)
      expect(Math.abs(f!.totals.distanceMeters! - t!.totals.distanceMeters!), fit).toBeLessThanOrEqual(f!.totals.distanceMeters! * 0.01)
      // TCX TotalTimeSeconds is the device timer; the elapsed time is the wall clock, as FIT total_elapsed_time
      expect(Math.abs(f!.totals.timerSeconds! - t!.totals.timerSeconds!), `${fit} timer`).toBeLessThanOrEqual(2)
      if (sameElapsed) expect(Math.abs(f!.totals.elapsedSeconds! - t!.totals.elapsedSeconds!), `${fit} elapsed`).toBeLessThanOrEqual(2)
      expect(t!.totals.elapsedSeconds!, `${tcx} elapsed`).toBeGreaterThanOrEqual(t!.totals.timerSeconds!)
      expect(t!.totals.elapsedSeconds!, `${tcx} elapsed`).toBeLessThanOrEqual(f!.totals.elapsedSeconds! + 2)
      // the laps' own averages, over the laps that moved (a pool swim's rests left out), are the session's
      if (f!.totals.averageHeartRate !== null) {
        expect(Math.abs(t!.totals.averageHeartRate! - f!.totals.averageHeartRate), `${fit} average heart rate`).toBeLessThanOrEqual(1)
      }
    }
  })

  it("gives TCX files with pauses their wall-clock elapsed time (sports-lib's elapsedTime)", async () => {
    const one = async (file: string) => (await parse(entries.find((e) => e.file === file)!))[0]!
    // sports-lib: timerTime 25:45, elapsedTime 36:02
    expect((await one("tcx/strava-run-leading-whitespace.tcx")).totals).toMatchObject({ timerSeconds: 1545 })
    expect(Math.abs((await one("tcx/strava-run-leading-whitespace.tcx")).totals.elapsedSeconds! - 2162)).toBeLessThanOrEqual(2)
    // sports-lib: timerTime 51:38, elapsedTime 1:02:44 (the FIT says 3763.5 s)
    const treadmill = await one("tcx/garmin-fr945-treadmill-run.tcx")
    expect(treadmill.totals.timerSeconds).toBeCloseTo(3097.789, 3)
    expect(Math.abs(treadmill.totals.elapsedSeconds! - 3764)).toBeLessThanOrEqual(2)
    // 180 km of laps but 5 trackpoints in 4 s: the lap's timer still bounds the elapsed time from below
    expect((await one("tcx/garmin-edge500-kona-ironman-bike-5-points.tcx")).totals.elapsedSeconds).toBeCloseTo(18930.35, 2)
  })

  it("takes power (and cadence) from developer fields where the records have no native ones", async () => {
    const all = async (file: string) => parse(entries.find((e) => e.file === file)!)
    const share = (values: ReadonlyArray<number | null>) => values.filter((v) => v !== null).length / values.length
    const mean = (values: ReadonlyArray<number | null>) => {
      const present = values.filter((v): v is number => v !== null && v > 0)
      return present.reduce((a, b) => a + b, 0) / present.length
    }
    // Stryd "Power" (Watts, native record field 7) beside the watch's native cadence; not "Form Power"
    // or "Air Power" (components of running power: about 70 W and 1 W here, against 252 W)
    const [treadmill] = await all("fit/garmin-fr945-treadmill-run.fit")
    expect(share(treadmill!.samples.power)).toBe(1)
    expect(mean(treadmill!.samples.power)).toBeGreaterThan(200)
    expect(mean(treadmill!.samples.power)).toBeLessThan(300)
    // the triathlon's run leg: Stryd power; the bike leg keeps its native (power meter) power and session average
    const [, bike, run] = await all("fit/garmin-fr935-ironman-triathlon.fit")
    expect(share(run!.samples.power)).toBeGreaterThan(0.99)
    expect(run!.totals.averagePower).toBeNull()
    expect(bike!.totals.averagePower).toBe(222)
    // rowing: "Power" in records, "Avg Power" / "Max Power" in the session (native fields 20 and 21)
    const [row] = await all("fit/garmin-vivoactivehr-indoor-rowing-devfields.fit")
    expect(share(row!.samples.power)).toBe(1)
    expect(row!.totals).toMatchObject({ averagePower: 368, maxPower: 467 })
  })
})
