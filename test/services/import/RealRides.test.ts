import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as zlib from "node:zlib"
import { MAX_STORED_SAMPLES } from "../../../src/schema/ActivityLimits.ts"
import { decodeStreams } from "../../../src/services/activities/StreamsCodec.ts"
import { ParseWorker } from "../../../src/services/import/ParseWorker.ts"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE, readCorpusFile } from "../../support/corpus.ts"
import { dayStart, dropFile, freshDaemon, scopedRoot, servicesLayer, tcxActivity, waitFor, waitForRow } from "../../support/ImportHarness.ts"
import { longFitRide } from "../../support/longFit.ts"
import { send, TestDaemon } from "../../support/TestDaemon.ts"
import { zipOf } from "../../support/zipOf.ts"
import { encodeFit, Mesg, semicircles } from "./parsers/fitFixtures.ts"

/**
 * Real rides as devices and platforms write them, through the real import path: what is
 * impossible in them is dropped and named, never the ride; the import row names every activity
 * the file made; what the athlete chose and where a platform rode win; absent sensors are null.
 */

if (!CORPUS_DIR) console.log(CORPUS_MISSING_MESSAGE)

const importOf = (filename: string) =>
  Effect.map(send("GET", `/api/v1/file-imports?filters[filename]=${encodeURIComponent(filename)}`), (a) => a.json.fileImports[0])
const activity = (id: string) => Effect.map(send("GET", `/api/v1/activities/${id}`), (a) => a.json)

/** An hour's ride of an Edge, one record per 10 s; its last records stamped 2.2 years later, after a gap. */
const clockLeapRide = (start: Date): Uint8Array => {
  const at = (s: number) => new Date(start.getTime() + s * 1000)
  const record = (s: number, i: number) => [Mesg["RECORD"]!, {
    timestamp: at(s), positionLat: semicircles(47.37 + (i * 30) / 111_195), positionLong: semicircles(8.54),
    altitude: 400, distance: i * 30, speed: 3, heartRate: 125 + (i % 11)
  }] as const
  const records = Array.from({ length: 361 }, (_, i) => record(i * 10, i))
  const leapt = Array.from({ length: 5 }, (_, i) => record(68_342_612 + i, 361 + i))
  return encodeFit([
    [Mesg["FILE_ID"]!, { type: "activity", manufacturer: "garmin", product: 1836, serialNumber: 1, timeCreated: start }],
    ...records,
    ...leapt,
    [Mesg["LAP"]!, { timestamp: at(3600), startTime: start, totalElapsedTime: 3700, totalTimerTime: 3600, totalDistance: 10_800 }],
    [Mesg["SESSION"]!, {
      timestamp: at(3600), startTime: start, sport: "cycling", totalElapsedTime: 3700, totalTimerTime: 3600, totalDistance: 10_800,
      totalCalories: 600, avgHeartRate: 130, maxHeartRate: 130
    }],
    [Mesg["ACTIVITY"]!, { timestamp: at(3600), numSessions: 1 }]
  ])
}

/** A ride without heart-rate strap, power meter or cadence sensor, whose session says 0 for each. */
const sensorlessRide = (start: Date): Uint8Array => {
  const at = (s: number) => new Date(start.getTime() + s * 1000)
  return encodeFit([
    [Mesg["FILE_ID"]!, { type: "activity", manufacturer: "garmin", product: 1836, serialNumber: 1, timeCreated: start }],
    ...Array.from({ length: 61 }, (_, i) => [Mesg["RECORD"]!, {
      timestamp: at(i * 10), positionLat: semicircles(47.37 + (i * 60) / 111_195), positionLong: semicircles(8.54), distance: i * 60, speed: 6
    }] as const),
    [Mesg["SESSION"]!, {
      timestamp: at(600), startTime: start, sport: "cycling", totalElapsedTime: 600, totalTimerTime: 600, totalDistance: 3600,
      totalCalories: 0, avgHeartRate: 0, maxHeartRate: 0, avgPower: 0, maxPower: 0, avgCadence: 0, totalWork: 0
    }],
    [Mesg["ACTIVITY"]!, { timestamp: at(600), numSessions: 1 }]
  ])
}

/**
 * A triathlon of a watch whose clock jumped before the run: the swim and the ride as recorded,
 * the run's session and records dated in 2099.
 */
const triathlonWithFutureRun = (start: Date): Uint8Array => {
  const at = (s: number) => new Date(start.getTime() + s * 1000)
  const future = (s: number) => new Date(Date.parse("2099-05-01T08:00:00Z") + s * 1000)
  // each leg goes on north from where the one before ended
  const leg = (when: (s: number) => Date, from: number, seconds: number, sport: string, speed: number, startMetres: number) => [
    ...Array.from({ length: seconds / 10 + 1 }, (_, i) => [Mesg["RECORD"]!, {
      timestamp: when(from + i * 10), positionLat: semicircles(47.37 + (startMetres + i * 10 * speed) / 111_195), positionLong: semicircles(8.54),
      distance: i * 10 * speed, speed, heartRate: 135 + (i % 11)
    }] as const),
    [Mesg["SESSION"]!, {
      timestamp: when(from + seconds), startTime: when(from), sport, totalElapsedTime: seconds, totalTimerTime: seconds,
      totalDistance: seconds * speed, avgHeartRate: 140
    }] as const
  ]
  return encodeFit([
    [Mesg["FILE_ID"]!, { type: "activity", manufacturer: "garmin", product: 2691, serialNumber: 1, timeCreated: start }],
    ...leg(at, 0, 1200, "swimming", 1, 0),
    ...leg(at, 1200, 2400, "cycling", 8, 1200),
    ...leg(future, 0, 1800, "running", 3, 20_400),
    [Mesg["ACTIVITY"]!, { timestamp: at(3600), numSessions: 3 }]
  ])
}

describe("real rides through the import", () => {
  layer(freshDaemon(), { excludeTestServices: true })((it) => {
    it.effect("a ride whose last records leap 2.2 years ahead imports without them, agreeing with the device's session; the row says what was dropped", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        dropFile(watchDir, "edge-leap.fit", clockLeapRide(dayStart(40)))
        const row = yield* waitForRow("edge-leap.fit")
        expect([row.status, row.error_message]).toEqual(["success", null])
        const served = yield* importOf("edge-leap.fit")
        expect(served.notes).toBe("Repaired: dropped 5 samples recorded across a clock leap of 2.2 years.")
        expect(served.errorMessage).toBeNull()
        const ride = yield* activity(row.activity_id!)
        expect([ride.distanceInMeter, ride.movingTimeInSeconds, ride.elapsedTimeInSeconds, ride.calories, ride.averageHeartRate])
          .toEqual([10_800, 3600, 3700, 600, 130])
      }))

    it.effect("a FIT without heart-rate, power or cadence sensor has null for each, never 0", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        dropFile(watchDir, "no-sensors.fit", sensorlessRide(dayStart(41)))
        const row = yield* waitForRow("no-sensors.fit")
        expect(row.status).toBe("success")
        const ride = yield* activity(row.activity_id!)
        expect({
          averageHeartRate: ride.averageHeartRate, maxHeartRate: ride.maxHeartRate, averagePower: ride.averagePower, maxPower: ride.maxPower,
          averageCadence: ride.averageCadence, calories: ride.calories, kilojoules: ride.kilojoules
        }).toEqual({ averageHeartRate: null, maxHeartRate: null, averagePower: null, maxPower: null, averageCadence: null, calories: null, kilojoules: null })
        expect(ride.distanceInMeter).toBe(3600)
      }))

    it.effect("a Zwift ride as TCX is a VirtualRide in Zwift's world, located nowhere (Watopia's coordinates lie in the Solomon Islands)", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        const tcx = tcxActivity({ start: dayStart(42), seconds: 1800, lat: -11.64, lng: 166.95, speed: 9, sport: "Biking" })
          .replace("</Lap></Activity>", "</Lap><Creator><Name>Zwift</Name></Creator></Activity>")
        expect(tcx).toContain("<Name>Zwift</Name>")
        dropFile(watchDir, "watopia.tcx", tcx)
        const row = yield* waitForRow("watopia.tcx")
        expect(row.status).toBe("success")
        const ride = yield* activity(row.activity_id!)
        expect([ride.sportType, ride.worldType, ride.location, ride.passedThroughCountries])
          .toEqual(["VirtualRide", "zwift", { countryCode: null, state: null, city: null }, []])
      }))

    it.effect("a Strava export's activities.csv sport (Nordic Ski) wins over the file's generic Sport=\"Other\"", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        const ski = tcxActivity({ start: dayStart(43), seconds: 1800, speed: 4, sport: "Other" })
        dropFile(watchDir, "export_ski.zip", zipOf([
          { name: "activities/555.tcx.gz", data: zlib.gzipSync(ski) },
          {
            name: "activities.csv",
            data: "Activity ID,Activity Date,Activity Name,Activity Type,Activity Description,Commute,Activity Gear,Filename\n" +
              "555,\"Jan 10, 2025, 9:00:00 AM\",Engadin,Nordic Ski,,false,,activities/555.tcx.gz\n"
          }
        ]))
        const row = yield* waitForRow("555.tcx.gz")
        expect(row.status).toBe("success")
        // what the export says is applied once the file's activity is stored
        const imported = yield* waitFor("the export's name", Effect.map(activity(row.activity_id!), (a) => (a.name === "Engadin" ? a : undefined)))
        expect(imported.sportType).toBe("NordicSki")
      }))

    it.effect("a multisport FIT whose run is impossible (dated in 2099 by a clock error) imports its swim and ride; the row says the run was dropped", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        dropFile(watchDir, "triathlon-2099.fit", triathlonWithFutureRun(dayStart(44)))
        const row = yield* waitForRow("triathlon-2099.fit")
        expect([row.status, row.error_message]).toEqual(["success", null])
        const served = yield* importOf("triathlon-2099.fit")
        expect(served.activityIds).toHaveLength(2)
        const sports: Array<string> = []
        for (const id of served.activityIds) sports.push((yield* activity(id)).sportType)
        expect(sports).toEqual(["Swim", "Ride"])
        expect(served.notes).toBe("Repaired: dropped activity 3 of 3 (Run), which is impossible: it starts on 2099-05-01, in the future.")
      }))

    it.effect("a Strava export's sport is the file's from the start: a \"Virtual Ride\" row makes a VirtualRide located nowhere, a \"Run\" row over Sport=\"Other\" a run with its best efforts", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        // a trainer ride whose app wrote real-looking positions (Zürich) and a generic sport
        const trainer = tcxActivity({ start: dayStart(45), seconds: 1800, speed: 9, sport: "Biking" })
        const run = tcxActivity({ start: dayStart(46), seconds: 1800, speed: 3, sport: "Other" })
        dropFile(watchDir, "export_sports.zip", zipOf([
          { name: "activities/601.tcx.gz", data: zlib.gzipSync(trainer) },
          { name: "activities/602.tcx", data: run },
          {
            name: "activities.csv",
            data: "Activity ID,Activity Date,Activity Name,Activity Type,Activity Description,Commute,Activity Gear,Filename\n" +
              "601,\"Jan 11, 2025, 9:00:00 AM\",Trainer,Virtual Ride,,false,,activities/601.tcx.gz\n" +
              "602,\"Jan 12, 2025, 9:00:00 AM\",Loop,Run,,false,,activities/602.tcx\n"
          }
        ]))
        const virtualRow = yield* waitForRow("601.tcx.gz")
        expect(virtualRow.status).toBe("success")
        const ride = yield* activity(virtualRow.activity_id!)
        expect([ride.sportType, ride.location, ride.passedThroughCountries]).toEqual(["VirtualRide", { countryCode: null, state: null, city: null }, []])
        const runRow = yield* waitForRow("602.tcx")
        expect(runRow.status).toBe("success")
        expect((yield* activity(runRow.activity_id!)).sportType).toBe("Run")
        const efforts = (yield* send("GET", `/api/v1/activities/${runRow.activity_id}/best-efforts`)).json.bestEfforts
        expect(efforts.map((e: { distanceInMeter: number }) => e.distanceInMeter)).toContain(5000)
      }))

    it.effect.skipIf(!CORPUS_DIR)("the import row of a triathlon FIT names its three activities; a GPX of tracks years apart makes one activity per track", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        dropFile(watchDir, "triathlon.fit", readCorpusFile("fit/garmin-fr920xt-triathlon-chained-hr.fit"))
        dropFile(watchDir, "osm-traces.gpx", readCorpusFile("gpx/osm-traces-partial-times-no-ele.gpx"))
        dropFile(watchDir, "zwift-session.gpx", readCorpusFile("gpx/strava-virtual-ride-power.gpx"))
        const triathlon = yield* waitForRow("triathlon.fit")
        expect(triathlon.status).toBe("success")
        const served = yield* importOf("triathlon.fit")
        expect(served.activityIds).toHaveLength(3)
        expect(served.activityId).toBe(served.activityIds[0])
        const sports: Array<string> = []
        for (const id of served.activityIds) sports.push((yield* activity(id)).sportType)
        expect(sports).toEqual(["OpenWaterSwim", "Ride", "Run"])

        expect((yield* waitForRow("osm-traces.gpx")).status).toBe("success")
        const traces = yield* importOf("osm-traces.gpx")
        const years: Array<string> = []
        for (const id of traces.activityIds) years.push((yield* activity(id)).startDateLocal.slice(0, 4))
        expect(years).toEqual(["2007", "2009"])

        expect((yield* waitForRow("zwift-session.gpx")).status).toBe("success")
        const zwift = yield* activity((yield* importOf("zwift-session.gpx")).activityId)
        expect([zwift.sportType, zwift.worldType, zwift.location.countryCode]).toEqual(["VirtualRide", "zwift", null])

        // a deleted activity of the file is no longer named
        expect((yield* send("DELETE", `/api/v1/activities/${served.activityIds[1]}`)).status).toBe(204)
        expect((yield* importOf("triathlon.fit")).activityIds).toEqual([served.activityIds[0], served.activityIds[2]])
      }), { timeout: 60_000 })
  })
})

/**
 * One parse worker for both long recordings (its start and first file cost about a second of
 * processor time): each file is parsed within its heap and its processor-time budget as the
 * daemon sets them, as a fresh worker's would be, the first file's garbage being collected.
 */
layer(Layer.unwrapScoped(Effect.map(scopedRoot(), servicesLayer)), { excludeTestServices: true })("long recordings", (it) => {
  it.scoped("a 5-day FIT of 450,000 records (beyond the former cap of 400,000) imports: totals and best efforts from every sample, streams thinned keeping their peaks", () =>
    Effect.gen(function*() {
      const records = 450_000
      const bytes = longFitRide({
        start: dayStart(50), records, speed: 2.5,
                // a 100-second effort at 199 bpm: one sample of it would be a spike, and dropped
        sample: (i) => ({ heartRate: i >= 333_300 && i < 333_400 ? 199 : 110 + (i % 40), power: 150 + (i % 100), cadence: 80, altitude: 500 + 100 * Math.sin(i / 3000) })
      })
      const [draft, ...rest] = yield* Effect.gen(function*() {
        const worker = yield* ParseWorker
        // within the worker's heap and its processor-time budget, as the daemon sets them, however busy the machine
        return yield* worker.parse(bytes, "fit", "five-days.fit")
      })
      expect(rest).toHaveLength(0)
      expect([draft!.elapsedTimeInSeconds, draft!.distanceInMeter]).toEqual([records - 1, Math.trunc((records - 1) * 2.5)])
      // best efforts over the whole ride, up to 100 miles
      expect(draft!.bestEfforts.map((e) => Math.round(e.distanceInMeter))).toContain(160_934)
      expect(draft!.maxHeartRate).toBe(199)
      const streams = decodeStreams(draft!.encodedStreams)
      expect(streams.time!.length).toBeLessThanOrEqual(MAX_STORED_SAMPLES)
      expect(streams.time!.at(-1)).toBe(records - 1)
      expect(Math.max(...streams.heartrate!)).toBe(199)
    }), { timeout: 240_000 })

  it.scoped("a GPX of 420,000 track points (4.9 days at one per second, 58 MB) imports within the worker's 512 MB: totals from every point, streams thinned", () =>
    Effect.gen(function*() {
      const points = 420_000
      const start = dayStart(51).getTime()
      // north along the 8.54° meridian at 2.5 m/s, one point a second, with heart rate
      const lines: Array<string> = []
      for (let i = 0; i < points; i++) {
        const lat = 40 + (i * 2.5) / 111_195
        lines.push(`<trkpt lat="${lat.toFixed(7)}" lon="8.5400000"><ele>${(500 + 100 * Math.sin(i / 3000)).toFixed(1)}</ele>` +
          `<time>${new Date(start + i * 1000).toISOString()}</time><extensions><hr>${120 + (i % 40)}</hr></extensions></trkpt>`)
      }
      const gpx = `<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="waymark-test"><trk><type>cycling</type><trkseg>${lines.join("\n")}</trkseg></trk></gpx>\n`
      const bytes = new TextEncoder().encode(gpx)
      expect(bytes.length).toBeGreaterThan(40_000_000)
      const [draft, ...rest] = yield* Effect.gen(function*() {
        const worker = yield* ParseWorker
        // within the worker's heap and its processor-time budget, as the daemon sets them, however busy the machine
        return yield* worker.parse(bytes, "gpx", "five-days.gpx")
      })
      expect(rest).toHaveLength(0)
      expect(draft!.elapsedTimeInSeconds).toBe(points - 1)
      // measured on the ellipsoid along the meridian: within a metre a kilometre of the 2.5 m/s written
      expect(Math.abs(draft!.distanceInMeter - (points - 1) * 2.5)).toBeLessThan(points * 2.5 * 0.005)
      expect([draft!.averageHeartRate, draft!.maxHeartRate]).toEqual([140, 159])
      const streams = decodeStreams(draft!.encodedStreams)
      expect(streams.time!.length).toBeLessThanOrEqual(MAX_STORED_SAMPLES)
      expect(streams.time!.at(-1)).toBe(points - 1)
    }), { timeout: 240_000 })
})
