import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE, readCorpusFile } from "../support/corpus.ts"
import { dropFile, waitForRow } from "../support/ImportHarness.ts"
import { seedActivity, send, TestDaemon } from "../support/TestDaemon.ts"
import { expectError } from "./helpers.ts"

/** An activity's streams, laps, splits and best efforts, read from real files imported through the watch folder. */

if (!CORPUS_DIR) console.log(CORPUS_MISSING_MESSAGE)

/** Imports a corpus file through the watch folder; the id of its activity. */
const importCorpus = (file: string) =>
  Effect.gen(function*() {
    const daemon = yield* TestDaemon
    const name = file.slice(file.lastIndexOf("/") + 1)
    dropFile(daemon.watchDir, name, readCorpusFile(file))
    const row = yield* waitForRow(name)
    expect(row.status).toBe("success")
    return row.activity_id!
  })

const lengths = (streams: Record<string, Array<unknown>>) => new Set(Object.values(streams).map((s) => s.length))

layer(TestDaemon.layer(), { excludeTestServices: true })("an activity's detail", (it) => {
  it.effect.skipIf(!CORPUS_DIR)("streams: only the recorded ones, every array as long as time, time from 0 in seconds", () =>
    Effect.gen(function*() {
      const id = yield* importCorpus("fit/garmin-edge1030-ride-power-dynamics.fit")
      const answer = yield* send("GET", `/api/v1/activities/${id}/streams`)
      expect(answer.status).toBe(200)
      const streams = answer.json.streams
      expect(Object.keys(streams).sort()).toEqual(["altitude", "cadence", "distance", "heartrate", "latlng", "temperature", "time", "velocity", "watts"])
      expect(lengths(streams).size).toBe(1)
      expect(streams.time[0]).toBe(0)
      expect(streams.time.length).toBeGreaterThan(1000)
      const position = streams.latlng.find((p: unknown) => p !== null)
      expect(position).toHaveLength(2)
      expect(Math.abs(position[0])).toBeLessThanOrEqual(90)
      const activity = (yield* send("GET", `/api/v1/activities/${id}`)).json
      expect(Math.abs(streams.distance.at(-1) - activity.distanceInMeter)).toBeLessThan(activity.distanceInMeter * 0.02)
    }))

  it.effect.skipIf(!CORPUS_DIR)("points=n thins every stream alike to at most n samples, keeping the first, the last and the peaks", () =>
    Effect.gen(function*() {
      const id = yield* importCorpus("fit/garmin-fr15-10k-run.fit")
      const full = (yield* send("GET", `/api/v1/activities/${id}/streams`)).json.streams
      const answer = yield* send("GET", `/api/v1/activities/${id}/streams?points=100`)
      expect(answer.status).toBe(200)
      const thin = answer.json.streams
      expect(Object.keys(thin).sort()).toEqual(Object.keys(full).sort())
      expect([...lengths(thin)]).toEqual([100])
      expect(thin.time[0]).toBe(full.time[0])
      expect(thin.time.at(-1)).toBe(full.time.at(-1))
      // each kept sample is a real one, the same in every stream
      for (let k = 0; k < thin.time.length; k++) {
        const i = full.time.indexOf(thin.time[k])
        expect(i).toBeGreaterThanOrEqual(0)
        expect(thin.distance[k]).toBe(full.distance[i])
      }
      const max = (values: Array<number | null>) => Math.max(...values.filter((v): v is number => v !== null))
      const peaked = ["altitude", "heartrate", "velocity"].filter((name) => full[name] !== undefined)
      expect(peaked.length).toBeGreaterThan(0)
      for (const name of peaked) expect(max(thin[name])).toBe(max(full[name]))
      // asking for more than recorded gives every sample
      expect((yield* send("GET", `/api/v1/activities/${id}/streams?points=100000`)).json.streams.time).toHaveLength(full.time.length)
    }))

  it.effect("ETag: a request naming it gets 304 without a body; another thinning has another tag", () =>
    Effect.gen(function*() {
      const id = yield* seedActivity()
      const first = yield* send("GET", `/api/v1/activities/${id}/streams`)
      expect(first.status).toBe(200)
      expect(first.json.streams).toEqual({
        time: [0, 1, 2],
        latlng: [[51.05, 3.72], [51.0501, 3.7201], [51.0502, 3.7202]],
        altitude: [10, 11, 12],
        heartrate: [130, 131, 132]
      })
      const etag = first.headers["etag"]!
      expect(etag).toMatch(/^".+"$/)
      const again = yield* send("GET", `/api/v1/activities/${id}/streams`, { headers: { "if-none-match": etag } })
      expect(again.status).toBe(304)
      expect(again.text).toBe("")
      const thinned = yield* send("GET", `/api/v1/activities/${id}/streams?points=2`, { headers: { "if-none-match": etag } })
      expect(thinned.status).toBe(200)
      expect(thinned.headers["etag"]).not.toBe(etag)
      expect(thinned.json.streams.time).toEqual([0, 2])
    }))

  it.effect("an activity without recorded streams answers no streams", () =>
    Effect.gen(function*() {
      const id = yield* seedActivity({ streams: { time: [] }, hasGpx: false })
      const answer = yield* send("GET", `/api/v1/activities/${id}/streams`)
      expect(answer.status).toBe(200)
      expect(answer.json).toEqual({ streams: {} })
    }))

  it.effect("points below 2 or not a number is a 400 naming it", () =>
    Effect.gen(function*() {
      const id = yield* seedActivity()
      for (const points of ["0", "1", "-5", "abc", "1.5", ""]) {
        const answer = yield* send("GET", `/api/v1/activities/${id}/streams?points=${points}`)
        expectError(answer, 400, "bad_request")
        expect(answer.json.message).toContain('"points"')
      }
    }))

  it.effect("an unknown activity is a 404 for each detail", () =>
    Effect.gen(function*() {
      for (const detail of ["streams", "laps", "lengths", "splits", "best-efforts"]) {
        const answer = yield* send("GET", `/api/v1/activities/activity-nope/${detail}`)
        expectError(answer, 404, "not_found")
      }
    }))

  it.effect.skipIf(!CORPUS_DIR)("laps, splits per km and per mile, and best efforts of a run of 14 laps", () =>
    Effect.gen(function*() {
      const run = yield* importCorpus("tcx/garmin-fr110-run-14-laps.tcx")
      const activity = (yield* send("GET", `/api/v1/activities/${run}`)).json

      const laps = (yield* send("GET", `/api/v1/activities/${run}/laps`)).json.laps
      expect(laps).toHaveLength(14)
      expect(laps.map((l: any) => l.lapIndex)).toEqual(laps.map((_: unknown, i: number) => i + 1))
      expect(Object.keys(laps[0]).sort()).toEqual([
        "averageHeartRate", "averageSpeedInKmPerHour", "distanceInMeter", "elapsedTimeInSeconds", "elevationInMeter", "lapIndex",
        "maxSpeedInKmPerHour", "movingTimeInSeconds", "name", "numberOfLengths", "startOffsetInSeconds", "strokeType", "strokes", "swolf"
      ])
      const lapDistance = laps.reduce((sum: number, l: any) => sum + l.distanceInMeter, 0)
      expect(Math.abs(lapDistance - activity.distanceInMeter)).toBeLessThan(50)

      const splits = (yield* send("GET", `/api/v1/activities/${run}/splits`)).json.splits
      const km = splits.filter((s: any) => s.unit === "km")
      const mile = splits.filter((s: any) => s.unit === "mile")
      expect(km.length).toBeGreaterThanOrEqual(10)
      expect(mile.length).toBeGreaterThanOrEqual(6)
      expect(splits.slice(0, km.length)).toEqual(km)
      expect(km[0].distanceInMeter).toBe(1000)
      expect(mile[0].distanceInMeter).toBeCloseTo(1609.3, 0)

      const efforts = (yield* send("GET", `/api/v1/activities/${run}/best-efforts`)).json.bestEfforts
      const fiveK = efforts.find((e: any) => e.name === "5 km")
      expect(fiveK.distanceInMeter).toBe(5000)
      expect(fiveK.endOffsetInSeconds - fiveK.startOffsetInSeconds).toBe(fiveK.elapsedTimeInSeconds)
      expect(fiveK.elapsedTimeInSeconds).toBeLessThan(activity.elapsedTimeInSeconds / 2 + 60)
      expect(efforts.map((e: any) => e.distanceInMeter)).toEqual([...efforts.map((e: any) => e.distanceInMeter)].sort((a, b) => a - b))
      expect(efforts.find((e: any) => e.name === "1 mile")).toBeDefined()
    }))

  it.effect.skipIf(!CORPUS_DIR)("original: the imported file's bytes, its media type, an attachment under its original name", () =>
    Effect.gen(function*() {
      const id = yield* importCorpus("gpx/strava-android-run.gpx")
      const answer = yield* send("GET", `/api/v1/activities/${id}/original`)
      expect(answer.status).toBe(200)
      expect(answer.bytes.equals(readCorpusFile("gpx/strava-android-run.gpx"))).toBe(true)
      expect(answer.headers["content-type"]).toBe("application/gpx+xml")
      expect(answer.headers["content-disposition"]).toContain('attachment; filename="strava-android-run.gpx"')
    }))

  it.effect("original: 404 original_not_available for an activity not imported from a file, 404 not_found for an unknown one", () =>
    Effect.gen(function*() {
      const id = yield* seedActivity({ importSource: "stravaApi" })
      expectError(yield* send("GET", `/api/v1/activities/${id}/original`), 404, "original_not_available")
      expectError(yield* send("GET", "/api/v1/activities/activity-nope/original"), 404, "not_found")
    }))
})
