import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE, readCorpusFile } from "../support/corpus.ts"
import { dropFile, waitForRow } from "../support/ImportHarness.ts"
import { send, TestDaemon } from "../support/TestDaemon.ts"

/**
 * What each sport's athlete reads, through the API: a triathlon's legs naming each other and
 * their transitions, a pool swim's lengths, a swim's splits per 100 m, a sport changed by hand
 * computed again at once, a route without times, the heatmap of the real world only.
 */

if (!CORPUS_DIR) console.log(CORPUS_MISSING_MESSAGE)

const importOf = (filename: string) =>
  Effect.map(send("GET", `/api/v1/file-imports?filters[filename]=${encodeURIComponent(filename)}`), (a) => a.json.fileImports[0])
const activity = (id: string) => Effect.map(send("GET", `/api/v1/activities/${id}`), (a) => a.json)

/** Drops `bytes` into the watch folder as `name`; its import row once it is a success. */
const imported = (name: string, bytes: Uint8Array | string) =>
  Effect.gen(function*() {
    dropFile((yield* TestDaemon).watchDir, name, bytes)
    const row = yield* waitForRow(name, "60 seconds")
    expect(row.status, `${name}: ${row.error_message}`).toBe("success")
    return yield* importOf(name)
  })

layer(TestDaemon.layer(), { excludeTestServices: true })("each sport's numbers through the API", (it) => {
  it.effect.skipIf(!CORPUS_DIR)("a triathlon: the import row lists its legs, each leg names the race's legs and transitions, a deleted leg leaves the others whole", () =>
    Effect.gen(function*() {
      const row = yield* imported("ironman.fit", readCorpusFile("fit/garmin-fr935-ironman-triathlon.fit"))
      expect(row.activityIds).toHaveLength(3)
      const [swim, ride, run] = row.activityIds as Array<string>
      for (const id of row.activityIds as Array<string>) {
        const leg = yield* activity(id)
        expect(leg.multisport.parts.map((p: any) => [p.kind, p.activityId, p.sportType])).toEqual([
          ["leg", swim, "OpenWaterSwim"], ["transition", null, null], ["leg", ride, "Ride"], ["transition", null, null], ["leg", run, "Run"]
        ])
        const streams = (yield* send("GET", `/api/v1/activities/${id}/streams`)).json.streams
        expect(streams.distance[0]).toBe(0)
        expect(streams.time[0]).toBeLessThanOrEqual(1)
        expect(Math.abs(streams.distance.at(-1) - leg.distanceInMeter)).toBeLessThan(leg.distanceInMeter * 0.01)
      }
      // T1 between the swim's end and the ride's start
      const race = (yield* activity(ride!)).multisport.parts
      expect(race[1].startOffsetInSeconds).toBeGreaterThanOrEqual(race[0].elapsedTimeInSeconds - 1)
      expect(race[2].startOffsetInSeconds).toBe(race[1].startOffsetInSeconds + race[1].elapsedTimeInSeconds)

      // a sport changed by hand: the others' race says so
      expect((yield* send("PATCH", `/api/v1/activities/${run}`, { json: { sportType: "TrailRun" } })).status).toBe(200)
      expect((yield* activity(swim!)).multisport.parts[4].sportType).toBe("TrailRun")
      // a deleted leg: the others no longer name it, and keep their import row and original
      expect((yield* send("DELETE", `/api/v1/activities/${swim}`)).status).toBe(204)
      expect((yield* activity(ride!)).multisport.parts[0].activityId).toBeNull()
      expect((yield* importOf("ironman.fit")).activityIds).toEqual([ride, run])
      const original = yield* send("GET", `/api/v1/activities/${run}/original`)
      expect(original.status).toBe(200)
      expect(original.bytes.length).toBe(readCorpusFile("fit/garmin-fr935-ironman-triathlon.fit").length)
    }), { timeout: 120_000 })

  it.effect.skipIf(!CORPUS_DIR)("a pool swim: pool length, lengths with strokes, stroke and SWOLF, laps with theirs, splits per 100 m and 100 yd", () =>
    Effect.gen(function*() {
      const row = yield* imported("pool.fit", readCorpusFile("fit/garmin-fr945-pool-swim-25m.fit"))
      const swim = yield* activity(row.activityId)
      expect([swim.sportType, swim.poolLengthInMeter, swim.numberOfLengths, swim.strokes, swim.swolf, swim.elevationInMeter])
        .toEqual(["Swim", 25, 80, 984, 46, 0])
      const lengths = (yield* send("GET", `/api/v1/activities/${row.activityId}/lengths`)).json.lengths
      expect(lengths).toHaveLength(80)
      expect(lengths[0]).toMatchObject({ lengthIndex: 1, lapIndex: 1, startOffsetInSeconds: 0, distanceInMeter: 25, strokes: 12, strokeType: "freestyle", swolf: 41 })
      const laps = (yield* send("GET", `/api/v1/activities/${row.activityId}/laps`)).json.laps
      expect(laps[0]).toMatchObject({ numberOfLengths: 2, strokes: 23, strokeType: "freestyle" })
      expect(laps[1]).toMatchObject({ numberOfLengths: 0, distanceInMeter: 0, movingTimeInSeconds: 0 })
      const splits = (yield* send("GET", `/api/v1/activities/${row.activityId}/splits`)).json.splits
      expect([...new Set(splits.map((s: any) => s.unit))]).toEqual(["100m", "100yd"])
      expect(splits.filter((s: any) => s.unit === "100m")).toHaveLength(20)
      const streams = (yield* send("GET", `/api/v1/activities/${row.activityId}/streams`)).json.streams
      expect(streams.altitude).toBeUndefined()
      // any other activity has no lengths
      const run = yield* imported("run.fit", readCorpusFile("fit/coros-pace2-run.fit"))
      expect((yield* send("GET", `/api/v1/activities/${run.activityId}/lengths`)).json.lengths).toEqual([])
      expect((yield* activity(run.activityId)).averageCadence).toBe(184)
    }), { timeout: 120_000 })

  it.effect.skipIf(!CORPUS_DIR)("a route whose points carry GPSBabel's 1901 placeholder: dated by the file's own time, distance, elevation and route kept, times unknown, the import's notes say so", () =>
    Effect.gen(function*() {
      const gpx = readCorpusFile("gpx/gpsbabel-gpx10-lake-no-times.gpx").toString("utf8")
        .replace(/<time>[^<]*<\/time>/g, "").replace(/<\/ele>/g, "</ele><time>1901-12-13T20:45:52Z</time>")
      .replace(/(<gpx[^>]*>)/, "$1\n<time>2010-08-06T10:36:35Z</time>")
      const row = yield* imported("lake-1901.gpx", gpx)
      expect(row.notes).toMatch(/times unknown: the 296 points of its 7 tracks carry no usable time \(none has a time\)/)
      const route = yield* activity(row.activityId)
      expect(route.hasTimes).toBe(false)
      expect(route.startDateLocal).toBe("2010-08-06T12:36:35")
      expect(route.distanceInMeter).toBeGreaterThan(4000)
      expect(route.elevationInMeter).toBeGreaterThan(0)
      expect(route.encodedPolyline).not.toBeNull()
      const streams = (yield* send("GET", `/api/v1/activities/${row.activityId}/streams?points=100`)).json.streams
      expect(streams.time).toBeUndefined()
      expect(streams.latlng).toHaveLength(100)
      const exported = yield* send("GET", `/api/v1/activities/${row.activityId}/gpx`)
      expect(exported.status).toBe(200)
      expect(exported.text.match(/<trkpt /g)).toHaveLength(296)
      // the activity's date in the metadata, no time on any point
      expect(exported.text.match(/<time>/g)).toHaveLength(1)
      expect(exported.text).toMatch(/<metadata>\s*<time>2010-08-06T10:36:35(\.000)?Z<\/time>/)
    }), { timeout: 120_000 })

  it.effect.skipIf(!CORPUS_DIR)("the heatmap draws real-world routes only; a virtual world's are its own", () =>
    Effect.gen(function*() {
      const zwift = yield* imported("zwift.fit", readCorpusFile("fit/zwift-virtual-ride.fit"))
      const zwiftGpx = yield* imported("zwift-session.gpx", readCorpusFile("gpx/strava-virtual-ride-power.gpx"))
      const real = yield* imported("commute.fit", readCorpusFile("fit/garmin-edge820-commute-ride.fit"))
      const routes = (yield* send("GET", "/api/v1/stats/heatmap")).json.routes.map((r: any) => r.activityId)
      expect(routes).toContain(real.activityId)
      expect(routes).not.toContain(zwift.activityId)
      expect(routes).not.toContain(zwiftGpx.activityId)
      const watopia = (yield* send("GET", "/api/v1/stats/heatmap?filters[worldType]=zwift")).json.routes.map((r: any) => r.activityId)
      expect(watopia.sort()).toEqual([zwift.activityId, zwiftGpx.activityId].sort())
      const refused = yield* send("GET", "/api/v1/stats/heatmap?filters[worldType]=mars")
      expect(refused.status).toBe(400)
      expect(refused.json.message).toContain('"filters[worldType]"')
    }), { timeout: 120_000 })
})

// a storage of its own: the records it checks are the fastest of every ride stored
layer(TestDaemon.layer(), { excludeTestServices: true })("a sport changed by hand", (it) => {
  it.effect.skipIf(!CORPUS_DIR)("a sport changed by hand is computed again at once: a GPX ride imported as a workout gets its best efforts, ride records and its speed", () =>
    Effect.gen(function*() {
      const gpx = readCorpusFile("gpx/garmin-connect-edge1000-ride.gpx").toString("utf8").replace(/<type>[^<]*<\/type>/g, "")
      const row = yield* imported("no-type-ride.gpx", gpx)
      const id = row.activityId as string
      const before = yield* activity(id)
      expect(before.sportType).toBe("Workout")
      expect((yield* send("GET", `/api/v1/activities/${id}/best-efforts`)).json.bestEfforts).toEqual([])
      const patched = yield* send("PATCH", `/api/v1/activities/${id}`, { json: { sportType: "Ride" } })
      expect(patched.status).toBe(200)
      expect(patched.json.sportType).toBe("Ride")
      // the ride's stop speed: its moving time is a ride's, as the same ride's FIT gives it
      expect(patched.json.movingTimeInSeconds).toBeLessThan(before.movingTimeInSeconds)
      const efforts = (yield* send("GET", `/api/v1/activities/${id}/best-efforts`)).json.bestEfforts
      expect(efforts.map((e: any) => e.name)).toContain("20 km")
      const records = (yield* send("GET", "/api/v1/stats/records?filters[sportType]=Ride")).json.records
      expect(records.some((r: any) => r.activityId === id && r.discipline === "ride")).toBe(true)
      // the name and the sport given by hand stay, and a reprocess keeps them
      expect((yield* activity(id)).name).toBe(before.name)
      // back to a workout: no ride's efforts any more
      yield* send("PATCH", `/api/v1/activities/${id}`, { json: { sportType: "Workout" } })
      expect((yield* send("GET", `/api/v1/activities/${id}/best-efforts`)).json.bestEfforts).toEqual([])
    }), { timeout: 120_000 })
})
