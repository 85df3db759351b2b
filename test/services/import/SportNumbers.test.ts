import { Decoder, Stream } from "@garmin/fitsdk"
import { describe, expect, it } from "@effect/vitest"
import type { ActivityStreams, EncodedActivityDraft } from "../../../src/schema/ActivityDraft.ts"
import { decodeStreams } from "../../../src/services/activities/StreamsCodec.ts"
import { fileDrafts } from "../../../src/services/import/ParseWorkerDrafts.ts"
import { repairNote } from "../../../src/services/import/parsers/repairSamples.ts"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE, type CorpusEntry, corpusDrafts, loadManifest, readCorpusFile } from "../../support/corpus.ts"
import { at, encodeFit, Mesg, semicircles } from "./parsers/fitFixtures.ts"

/**
 * Every number right for every sport, on the shared corpus and on files made from it: the legs
 * of a triathlon, pool and open-water swims, steps on foot, pace over the moving time, work from
 * power, laps true to their activity, a route without usable times, rowing. The devices' own
 * figures are read with Garmin's FIT SDK, a decoder of its own, not the importer's.
 */

if (!CORPUS_DIR) console.log(CORPUS_MISSING_MESSAGE)

const utf8 = (text: string) => new TextEncoder().encode(text)

interface Computed extends EncodedActivityDraft {
  readonly streams: ActivityStreams
}

/** The activities of a file as the parse worker makes them, streams decoded. */
const compute = async (bytes: Uint8Array, filename: string): Promise<Array<Computed>> => {
  const format = filename.slice(filename.lastIndexOf(".") + 1) as "fit" | "tcx" | "gpx"
  const drafts = await fileDrafts({ bytes, format, filename, fallbackTimeZone: "UTC" })
  return drafts.map((d) => ({ ...d, streams: decodeStreams(d.encodedStreams) }))
}
/**
 * A test's limit: the first test to read a file computes it (the ironman's FIT takes 1.5 s of
 * processor time, the whole corpus about 20 s), which a loaded machine stretches many times over.
 */
const LIMIT = 300_000

const decoded = new Map<string, Promise<Array<Computed>>>()
/** The activities of a corpus file as the parse worker computes them (computed once per process), streams decoded once per file. */
const corpus = (file: string): Promise<Array<Computed>> => {
  let activities = decoded.get(file)
  if (activities === undefined) {
    activities = corpusDrafts(file).then((drafts) => drafts.map((d) => ({ ...d, streams: decodeStreams(d.encodedStreams) })))
    decoded.set(file, activities)
  }
  return activities
}

/** A FIT file's messages as Garmin's SDK decodes them. */
const sdk = (file: string): Record<string, Array<Record<string, any>>> => {
  const { messages } = new Decoder(Stream.fromBuffer(readCorpusFile(file))).read()
  return messages as Record<string, Array<Record<string, any>>>
}

const entries: ReadonlyArray<CorpusEntry> = loadManifest()
const FAILS = new Set([
  "fit/garmin-compressed-timestamps-run.fit", "tcx/garmin-course.tcx", "gpx/gpx10-route-only.gpx",
  "gpx/mapmyfitness-route-no-time-no-ele.gpx", "gpx/osmand-empty-track.gpx"
])
const activityFiles = entries.map((e) => e.file).filter((f) => /^(fit|tcx|gpx)\//.test(f) && !FAILS.has(f))

const TRIATHLONS = ["fit/garmin-fr935-ironman-triathlon.fit", "fit/garmin-fr920xt-triathlon-chained-hr.fit"]
const POOL_SWIMS = [
  "fit/garmin-fr945-pool-swim-25m.fit", "fit/garmin-fr935-pool-swim-50m.fit", "fit/garmin-fenix3-pool-swim-20m.fit",
  "fit/garmin-fenix3-pool-swim-hrm-chained.fit", "fit/garmin-fr735xt-pool-swim-chained-hr.fit"
]

describe.skipIf(!CORPUS_DIR)("every number right for every sport", () => {
  it("a triathlon's legs are activities of their own, each starting at 0 in time and distance, naming the race's legs and transitions", async () => {
    for (const file of TRIATHLONS) {
      const legs = await corpus(file)
      const sessions = sdk(file)["sessionMesgs"]!
      expect(legs.map((l) => l.sportType), file).toEqual(["OpenWaterSwim", "Ride", "Run"])
      for (const leg of legs) {
        const label = `${file} ${leg.sportType}`
        const { time, distance } = leg.streams
        expect(time![0], label).toBeGreaterThanOrEqual(0)
        expect(time![0], label).toBeLessThanOrEqual(2)
        expect(distance![0], label).toBe(0)
        // the run of the Ironman ends at its 42 km, not at the race's 227 km
        expect(Math.abs(distance!.at(-1)! - leg.distanceInMeter), label).toBeLessThanOrEqual(leg.distanceInMeter * 0.01)
        expect(time!.at(-1)!, label).toBeLessThanOrEqual(leg.elapsedTimeInSeconds + 1)
        expect(leg.laps[0]!.startOffsetInSeconds, label).toBe(0)
        for (const split of leg.splits.filter((s) => s.splitIndex === 1)) expect(split.elapsedTimeInSeconds, label).toBeLessThan(leg.elapsedTimeInSeconds)
        for (const effort of leg.bestEfforts) {
          expect(effort.startOffsetInSeconds, label).toBeGreaterThanOrEqual(0)
          expect(effort.startOffsetInSeconds + effort.elapsedTimeInSeconds, label).toBeLessThanOrEqual(leg.elapsedTimeInSeconds + 1)
        }
        // the race as the device recorded it: every session, legs and transitions, in order
        const parts = leg.multisport!.parts
        expect(parts.map((p) => p.kind), label).toEqual(sessions.map((s) => (s["sport"] === "transition" ? "transition" : "leg")))
        expect(parts.map((p) => p.elapsedTimeInSeconds), label).toEqual(sessions.map((s) => Math.round(s["totalElapsedTime"])))
        expect(parts[0]!.startOffsetInSeconds).toBe(0)
        for (let k = 1; k < parts.length; k++) {
          const since = (sessions[k]!["startTime"].getTime() - sessions[0]!["startTime"].getTime()) / 1000
          expect(Math.abs(parts[k]!.startOffsetInSeconds - since), label).toBeLessThanOrEqual(1)
        }
        expect(parts[leg.racePart!]!.sportType, label).toBe(leg.sportType)
      }
    }
  }, LIMIT)

  it("a TCX multisport session: its legs a race with the transitions between them; legs days apart (Garmin's test file) are no race", async () => {
    const point = (t: string, lat: number, d: number) =>
      `<Trackpoint><Time>${t}</Time><Position><LatitudeDegrees>${lat}</LatitudeDegrees><LongitudeDegrees>7.5</LongitudeDegrees></Position><DistanceMeters>${d}</DistanceMeters></Trackpoint>`
    const leg = (sport: string, from: string, to: string, d0: number, d1: number) =>
      `<Activity Sport="${sport}"><Id>${from}</Id><Lap StartTime="${from}"><TotalTimeSeconds>${(Date.parse(to) - Date.parse(from)) / 1000}</TotalTimeSeconds><DistanceMeters>${d1 - d0}</DistanceMeters>` +
      `<Track>${point(from, 46.5 + d0 / 111_195, d0)}${point(to, 46.5 + d1 / 111_195, d1)}</Track></Lap></Activity>`
    const doc = `<TrainingCenterDatabase><Activities><MultiSportSession><Id>2024-06-01T08:00:00Z</Id>
      <FirstSport>${leg("Running", "2024-06-01T08:00:00Z", "2024-06-01T08:20:00Z", 0, 5000)}</FirstSport>
      <NextSport><Transition StartTime="2024-06-01T08:20:00Z"><TotalTimeSeconds>90</TotalTimeSeconds></Transition>${leg("Biking", "2024-06-01T08:21:30Z", "2024-06-01T09:21:30Z", 5000, 35000)}</NextSport>
      <NextSport>${leg("Running", "2024-06-01T09:23:00Z", "2024-06-01T09:35:00Z", 35000, 38000)}</NextSport>
    </MultiSportSession></Activities></TrainingCenterDatabase>`
    const legs = await compute(utf8(doc), "duathlon.tcx")
    expect(legs.map((l) => l.sportType)).toEqual(["Run", "Ride", "Run"])
    for (const [i, l] of legs.entries()) {
      expect(l.multisport!.parts.map((p) => [p.kind, p.sportType, p.startOffsetInSeconds, p.elapsedTimeInSeconds])).toEqual([
        ["leg", "Run", 0, 1200], ["transition", null, 1200, 90], ["leg", "Ride", 1290, 3600], ["transition", null, 4890, 90], ["leg", "Run", 4980, 720]
      ])
      expect(l.racePart).toBe(2 * i)
      expect(l.streams.distance![0]).toBe(0)
    }
    const days = await corpus("tcx/garmin-fr305-multisport-4-activities.tcx")
    expect(days).toHaveLength(4)
    expect(days.every((a) => a.multisport === null)).toBe(true)
  })

  it("a pool swim: its pool, lengths, strokes and SWOLF as the watch counted them, the time swum as moving time, splits per 100 m and 100 yd, no elevation", async () => {
    for (const file of POOL_SWIMS) {
      const [swim] = await corpus(file)
      const messages = sdk(file)
      const session = messages["sessionMesgs"]![0]!
      const active = messages["lengthMesgs"]!.filter((l) => l["lengthType"] === "active")
      const label = file
      expect(swim!.sportType, label).toBe("Swim")
      expect(swim!.poolLengthInMeter, label).toBeCloseTo(session["poolLength"], 2)
      expect(swim!.numberOfLengths, label).toBe(session["numActiveLengths"])
      expect(swim!.strokes, label).toBe(session["totalStrokes"])
      expect(Math.abs(swim!.swolf! - session["avgSwolf"]), label).toBeLessThanOrEqual(1)
      // the rests at the wall are not moving: the device's active time, the sum of its lengths
      const swum = active.reduce((sum, l) => sum + l["totalElapsedTime"], 0)
      expect(Math.abs(swim!.movingTimeInSeconds - swum), label).toBeLessThanOrEqual(1)
      expect(Math.abs(swim!.movingTimeInSeconds - session["activeTime"]), label).toBeLessThanOrEqual(10)
      expect(swim!.averageSpeedInKmPerHour, label).toBeCloseTo((swim!.distanceInMeter / swim!.movingTimeInSeconds) * 3.6, 1)
      // lengths: each the pool's length, with strokes and stroke as recorded
      expect(swim!.lengths!.length, label).toBe(active.length)
      expect(swim!.lengths!.map((l) => l.strokes ?? 0), label).toEqual(active.map((l) => l["totalStrokes"] ?? 0))
      expect(swim!.lengths!.every((l) => l.distanceInMeter === swim!.poolLengthInMeter), label).toBe(true)
      for (const [i, l] of swim!.lengths!.entries()) {
        if (l.strokes !== null) expect(l.swolf, label).toBe(Math.round(active[i]!["totalElapsedTime"] + active[i]!["totalStrokes"]))
      }
      // laps carry their lengths
      expect(swim!.laps.reduce((n, l) => n + (l.numberOfLengths ?? 0), 0), label).toBe(swim!.numberOfLengths)
      // no climbing in a pool, splits per 100 m and per 100 yd only, reaching the whole distance
      expect(swim!.elevationInMeter, label).toBe(0)
      expect(swim!.streams.altitude, label).toBeUndefined()
      expect(new Set(swim!.splits.map((s) => s.unit)), label).toEqual(new Set(["100m", "100yd"]))
      const metric = swim!.splits.filter((s) => s.unit === "100m")
      expect(metric[0]!.distanceInMeter, label).toBe(100)
      expect(Math.abs(metric.reduce((d, s) => d + s.distanceInMeter, 0) - swim!.distanceInMeter), label).toBeLessThanOrEqual(swim!.poolLengthInMeter!)
      expect(Math.abs(swim!.streams.distance!.at(-1)! - swim!.distanceInMeter), label).toBeLessThanOrEqual(swim!.poolLengthInMeter!)
    }
  }, LIMIT)

  it("an open-water swim: splits per 100 m, strokes, no elevation to speak of", async () => {
    for (const file of ["fit/garmin-fenix6-ocean-swim.fit", "fit/garmin-fr935-ironman-triathlon.fit"]) {
      const [swim] = await corpus(file)
      expect(swim!.sportType, file).toBe("OpenWaterSwim")
      expect(new Set(swim!.splits.map((s) => s.unit)), file).toEqual(new Set(["100m", "100yd"]))
      expect(swim!.strokes, file).toBe(sdk(file)["sessionMesgs"]![0]!["totalStrokes"])
      expect(swim!.poolLengthInMeter, file).toBeNull()
    }
    // Strava's GPX of the Ironman swim (type 16, Swim) with its track: an open-water swim, as its FIT says
    const [gpx] = await corpus("gpx/strava-ironman-swim-leg.gpx")
    expect(gpx!.sportType).toBe("OpenWaterSwim")
  }, LIMIT)

  it("runs and walks count steps per minute (twice the strides the file holds), whatever the format", async () => {
    for (const file of ["fit/coros-pace2-run.fit", "fit/garmin-fenix6-track-run.fit", "fit/garmin-fr935-ironman-triathlon.fit", "fit/suunto9-trail-run.fit"]) {
      const runs = (await corpus(file)).filter((a) => /Run/.test(a.sportType))
      const session = sdk(file)["sessionMesgs"]!.find((s) => s["sport"] === "running")!
      expect(Math.abs(runs[0]!.averageCadence! - 2 * session["avgCadence"]), file).toBeLessThanOrEqual(2)
      const median = [...runs[0]!.streams.cadence!].sort((a, b) => a - b)[runs[0]!.streams.cadence!.length >> 1]!
      expect(median, file).toBeGreaterThan(140)
    }
    // the same run as FIT and TCX, and a GPX whose cadence the app wrote per foot
    const [fit] = await corpus("fit/garmin-fr945-treadmill-run.fit")
    const [tcx] = await corpus("tcx/garmin-fr945-treadmill-run.tcx")
    expect(Math.abs(fit!.averageCadence! - tcx!.averageCadence!)).toBeLessThanOrEqual(3)
    expect(fit!.averageCadence).toBeGreaterThan(150)
    const [gpx] = await corpus("gpx/strava-android-run.gpx")
    expect(gpx!.averageCadence).toBeGreaterThan(140)
    // a file that already counts steps keeps them; a ride keeps its revolutions
    const doc = readCorpusFile("gpx/strava-android-run.gpx").toString("utf8").replace(/<(\w+:)?cad>(\d+)</g, (_m, ns = "", v) => `<${ns}cad>${Number(v) * 2}<`)
    const [steps] = await compute(utf8(doc), "steps.gpx")
    expect(Math.abs(steps!.averageCadence! - gpx!.averageCadence!)).toBeLessThanOrEqual(2)
    const [ride] = await corpus("fit/garmin-edge1030-ride-power-dynamics.fit")
    expect(ride!.averageCadence).toBe(sdk("fit/garmin-edge1030-ride-power-dynamics.fit")["sessionMesgs"]![0]!["avgCadence"])
  }, LIMIT)

  it("the average speed is the distance over the moving time, for every corpus activity", async () => {
    let checked = 0
    for (const file of activityFiles) {
      for (const a of await corpus(file)) {
        if (a.movingTimeInSeconds < 60 || a.distanceInMeter === 0) continue
        expect(a.averageSpeedInKmPerHour, `${file} ${a.sportType}`).toBeCloseTo((a.distanceInMeter / a.movingTimeInSeconds) * 3.6, 1)
        checked++
      }
    }
    expect(checked).toBeGreaterThan(70)
  }, LIMIT)

  it("kilojoules: the device's work, else the power stream's (within 2 % of the device's own where it wrote both)", async () => {
    for (const file of ["fit/garmin-edge1030-ride-power-dynamics.fit", "fit/sigma-rox11-road-ride.fit", "fit/garmin-edge810-vector-power-ride.fit"]) {
      const work = sdk(file)["sessionMesgs"]![0]!["totalWork"] as number
      const [ride] = await corpus(file)
      expect(ride!.kilojoules, file).toBe(Math.round(work / 1000))
    }
    // without the device's total (a GPX of the same kind of ride): the integral of its power, about its average power times its time
    for (const file of ["gpx/strava-virtual-ride-power.gpx", "tcx/garmin-edge520-ride-power.tcx"]) {
      const [ride] = await corpus(file)
      expect(ride!.kilojoules, file).not.toBeNull()
      const watts = ride!.streams.watts!
      const time = ride!.streams.time!
      let joules = 0
      for (let i = 1; i < time.length; i++) {
        const dt = time[i]! - time[i - 1]!
        if (dt <= 60) joules += ((watts[i]! + watts[i - 1]!) / 2) * dt
      }
      expect(Math.abs(ride!.kilojoules! - joules / 1000), file).toBeLessThanOrEqual(Math.max(2, joules / 1000 * 0.02))
    }
  }, LIMIT)

  it("laps are true: within the activity from its start, adding up to its elapsed time, none empty, none faster than the activity", async () => {
    let laps = 0
    for (const file of activityFiles) {
      for (const a of await corpus(file)) {
        if (!a.hasTimes) continue
        const label = `${file} ${a.sportType}`
        expect(a.laps[0]!.startOffsetInSeconds, label).toBe(0)
        expect(Math.abs(a.laps.reduce((s, l) => s + l.elapsedTimeInSeconds, 0) - a.elapsedTimeInSeconds), label).toBeLessThanOrEqual(1)
        for (const [k, lap] of a.laps.entries()) {
          if (k > 0) expect(lap.startOffsetInSeconds, label).toBe(a.laps[k - 1]!.startOffsetInSeconds + a.laps[k - 1]!.elapsedTimeInSeconds)
          expect(lap.elapsedTimeInSeconds > 0 || lap.distanceInMeter > 0, label).toBe(true)
          expect(lap.movingTimeInSeconds, label).toBeLessThanOrEqual(lap.elapsedTimeInSeconds)
          expect(lap.averageSpeedInKmPerHour, label).toBeLessThanOrEqual(a.maxSpeedInKmPerHour)
          expect(lap.maxSpeedInKmPerHour, label).toBeLessThanOrEqual(a.maxSpeedInKmPerHour)
          if (lap.movingTimeInSeconds >= 10) {
            // its speed is its own distance over its own moving time (unless that would be faster than the activity's maximum)
            const own = Math.min((lap.distanceInMeter / lap.movingTimeInSeconds) * 3.6, a.maxSpeedInKmPerHour)
            expect(Math.abs(lap.averageSpeedInKmPerHour - own), label).toBeLessThanOrEqual(Math.max(0.05, own * 0.005))
          }
          laps++
        }
        // one lap is the whole activity
        if (a.laps.length === 1) expect(a.laps[0]!.movingTimeInSeconds, label).toBe(a.movingTimeInSeconds)
      }
    }
    expect(laps).toBeGreaterThan(300)
  }, LIMIT)

  it("a TCX whose laps start three minutes before its first trackpoint: laps from the activity's start, none before it, none of no time", async () => {
    const doc = readCorpusFile("tcx/garmin-fr410-run-3-laps.tcx").toString("utf8")
      .replace(/<Lap StartTime="([^"]+)"/g, (_m, t: string) => `<Lap StartTime="${new Date(Date.parse(t) - 186_000).toISOString()}"`)
    const [run] = await compute(utf8(doc), "early-laps.tcx")
    const [plain] = await corpus("tcx/garmin-fr410-run-3-laps.tcx")
    expect(run!.laps.map((l) => l.startOffsetInSeconds)[0]).toBe(0)
    expect(run!.laps.every((l) => l.startOffsetInSeconds >= 0 && l.elapsedTimeInSeconds > 0)).toBe(true)
    expect(run!.laps.reduce((s, l) => s + l.elapsedTimeInSeconds, 0)).toBe(run!.elapsedTimeInSeconds)
    expect(run!.elapsedTimeInSeconds).toBe(plain!.elapsedTimeInSeconds)
    for (const lap of run!.laps) expect(lap.averageSpeedInKmPerHour).toBeLessThanOrEqual(run!.maxSpeedInKmPerHour)
  })

  it("a GPX whose points all carry one time (GPSBabel's 1901 placeholder) is dated by the file's own time and keeps its distance, elevation and route, its times unknown and said so", async () => {
    const lake = readCorpusFile("gpx/gpsbabel-gpx10-lake-no-times.gpx").toString("utf8")
      .replace(/<time>[^<]*<\/time>/g, "").replace(/<\/ele>/g, "</ele><time>1901-12-13T20:45:52Z</time>")
      .replace(/(<gpx[^>]*>)/, "$1\n<time>2010-08-06T10:36:35Z</time>")
    const [route] = await compute(utf8(lake), "lake-1901.gpx")
    // the same route as its 296 points give it with their few real times
    const [original] = await corpus("gpx/gpsbabel-gpx10-lake-no-times.gpx")
    for (const a of [route!, original!]) {
      expect(a.hasTimes).toBe(false)
      expect(a.distanceInMeter).toBeGreaterThan(4000)
      expect(a.elevationInMeter).toBeGreaterThan(0)
      expect(a.encodedPolyline).not.toBeNull()
      expect(a.hasGpx).toBe(true)
      expect([a.elapsedTimeInSeconds, a.movingTimeInSeconds, a.averageSpeedInKmPerHour]).toEqual([0, 0, 0])
      expect([a.laps, a.splits, a.bestEfforts]).toEqual([[], [], []])
      expect(a.streams.time).toBeUndefined()
      expect(a.streams.latlng).toHaveLength(296)
      expect(a.streams.distance!.at(-1)).toBeCloseTo(a.distanceInMeter, -1)
      expect(repairNote(a.repairs ?? [])).toMatch(/times unknown: the 296 points of its 7 tracks carry no usable time/)
    }
    expect(route!.distanceInMeter).toBe(original!.distanceInMeter)
    // GPSBabel's placeholder is no time: the route is dated by the file's own time (Cerknica, UTC+2)
    expect(route!.startDateLocal).toBe("2010-08-06T12:36:35")
  })

  it("rowing: a FIT of sport rowing, a generic one from a rowing monitor or with a rowing sport message, the indoor rower; GPX and TCX sport names", async () => {
    const row = (session: Record<string, unknown>, extra: ReadonlyArray<readonly [number, Record<string, unknown>]> = [], maker = "garmin") =>
      encodeFit([
        [Mesg["FILE_ID"]!, { type: "activity", manufacturer: maker, product: 1, serialNumber: 7, timeCreated: at(0) }],
        ...extra,
        ...Array.from({ length: 61 }, (_, i): readonly [number, Record<string, unknown>] =>
          [Mesg["RECORD"]!, { timestamp: at(i * 10), positionLat: semicircles(51.5 + i * 0.0003), positionLong: semicircles(-0.1), cadence: 28 }]),
        [Mesg["SESSION"]!, { timestamp: at(600), startTime: at(0), totalElapsedTime: 600, totalTimerTime: 600, ...session }]
      ])
    const sportOf = async (bytes: Uint8Array) => (await compute(bytes, "row.fit"))[0]!.sportType
    expect(await sportOf(row({ sport: "rowing" }))).toBe("Rowing")
    expect(await sportOf(row({ sport: "rowing", subSport: "indoorRowing" }))).toBe("VirtualRow")
    expect(await sportOf(row({ sport: "fitnessEquipment", subSport: "indoorRowing" }))).toBe("VirtualRow")
    // an NK SpeedCoach writes a generic session: its maker makes rowing monitors
    expect(await sportOf(row({ sport: "generic" }, [], "nielsenKellerman"))).toBe("Rowing")
    expect(await sportOf(row({ sport: "generic" }, [[Mesg["SPORT"]!, { sport: "rowing", subSport: "generic", name: "Row" }]]))).toBe("Rowing")
    expect(await sportOf(row({ sport: "fitnessEquipment", sportProfileName: "Indoor Rowing" }))).toBe("VirtualRow")
    expect((await corpus("fit/garmin-vivoactivehr-indoor-rowing-devfields.fit"))[0]!.sportType).toBe("VirtualRow")
    const gpx = (type: string) => `<gpx><trk><type>${type}</type><trkseg><trkpt lat="51.5" lon="-0.1"><time>2024-05-01T08:00:00Z</time></trkpt><trkpt lat="51.501" lon="-0.1"><time>2024-05-01T08:00:30Z</time></trkpt></trkseg></trk></gpx>`
    for (const [type, sport] of [["rowing", "Rowing"], ["indoor_rowing", "VirtualRow"], ["kayaking", "Kayaking"], ["open_water_swimming", "OpenWaterSwim"]]) {
      expect((await compute(utf8(gpx(type!)), "t.gpx"))[0]!.sportType, type).toBe(sport)
    }
    const tcx = readCorpusFile("tcx/garmin-fr410-run-3-laps.tcx").toString("utf8").replace('Sport="Running"', 'Sport="Rowing"')
    expect((await compute(utf8(tcx), "row.tcx"))[0]!.sportType).toBe("Rowing")
  })
})
