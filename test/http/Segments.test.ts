import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { seedActivity, send, TestDaemon } from "../support/TestDaemon.ts"
import { at, recordPath } from "../support/gridTown.ts"
import { expectError } from "./helpers.ts"
import { matchedSegment } from "../support/matchedSegment.ts"

/**
 * Segments over a real socket: made from points, a stretch of an activity, a GPX file or a
 * GeoJSON line; matched against the stored history in the background (its progress shown) and
 * against each new activity as it is stored; kept current when an activity's sport changes or it
 * is deleted; leaderboards with ranks then and now; climbs, one made a segment; every refusal
 * 400 naming the field.
 */

/** A ride along the town's bottom street (1 km east), at `speed` m/s, on `day` */
const ride = (day: string, speed: number, path: ReadonlyArray<readonly [number, number]> = [[-100, 0], [1100, 0]]) =>
  seedActivity({
    name: `Ride of ${day}`,
    sportType: "Ride",
    startTime: Date.parse(`${day}T08:00:00Z`),
    startDateLocal: `${day}T08:00:00`,
    streams: recordPath(path, { speed, noise: 5, seed: day.length + speed })
  })

const street = [at(0, 0), at(800, 0)]


layer(TestDaemon.layer(), { excludeTestServices: true })("segments", (it) => {
  it.effect("a new segment is matched against the history in the background, then every new activity as it is stored", () =>
    Effect.gen(function*() {
      const slow = yield* ride("2024-05-01", 5)
      const fast = yield* ride("2024-06-01", 8)
      yield* ride("2024-07-01", 8, [[1100, 0], [-100, 0]]) // the other way
      yield* ride("2024-07-02", 8, [[-100, 40], [1100, 40]]) // the street 40 m beside
      const made = yield* send("POST", "/api/v1/segments", { json: { name: "Bottom street", points: street } })
      expect(made.status).toBe(201)
      expect(made.json).toMatchObject({ id: expect.stringMatching(/^segment-/), name: "Bottom street", sportGroup: "any", averageGrade: null })
      expect(made.json.distanceInMeter).toBeCloseTo(800, 0)
      expect(made.json.points.length).toBe(81)
      const segment = yield* matchedSegment(made.json.id)
      // the street 40 m beside never came near the gates: the R*Tree left it out
      expect(segment.matching).toEqual({ status: "done", checkedActivities: 3, totalActivities: 3 })
      expect(segment.effortCount).toBe(2)
      expect(segment.bestEffort.activityId).toBe(fast)
      expect(segment.lastEffort.activityId).toBe(fast)

      const board = yield* send("GET", `/api/v1/segments/${made.json.id}/efforts`)
      expect(board.json.efforts.map((e: any) => [e.activityId, e.rank, e.elapsedTimeInSeconds])).toEqual([[fast, 1, 100], [slow, 2, 160]])
      expect(board.json.efforts[0]).toMatchObject({ averageHeartRate: 140, averagePower: 200, averageCadence: 85, averageSpeedInKmPerHour: 28.8 })

      // stored after the segment: matched in its own transaction, ranked as it stood on its day
      const fastest = yield* ride("2024-08-01", 10)
      const own = yield* send("GET", `/api/v1/activities/${fastest}/segment-efforts`)
      expect(own.json.efforts).toHaveLength(1)
      expect(own.json.efforts[0]).toMatchObject({ segmentId: made.json.id, elapsedTimeInSeconds: 80, rank: 1, effortsAtDate: 3, personalRecord: "personalRecord" })
      // a new record on a segment is a milestone, as each record before it was
      const records = yield* send("GET", "/api/v1/milestones?filters[kind]=segmentRecord")
      expect(records.json.milestones.map((m: any) => [m.on, m.activityId, m.value, m.title])).toEqual([
        ["2024-08-01", fastest, 80, "New record on Bottom street: 1:20"],
        ["2024-06-01", fast, 100, "New record on Bottom street: 1:40"],
        ["2024-05-01", slow, 160, "New record on Bottom street: 2:40"]
      ])
      const then = yield* send("GET", `/api/v1/activities/${slow}/segment-efforts`)
      expect(then.json.efforts[0]).toMatchObject({ rank: 3, effortsAtDate: 1, personalRecord: "personalRecord" })

      const byDate = yield* send("GET", `/api/v1/segments/${made.json.id}/efforts?sort=date&filters[year]=2024`)
      expect(byDate.json.efforts.map((e: any) => e.activityId)).toEqual([fastest, fast, slow])
      // a page at a time: the ranks go on across the pages, the places then stay those of each date
      const second = yield* send("GET", `/api/v1/segments/${made.json.id}/efforts?pagination[size]=2&pagination[page]=2`)
      expect(second.json.pagination).toEqual({ page: 2, size: 2, total: 3, totalPages: 2 })
      expect(second.json.efforts.map((e: any) => [e.activityId, e.rank, e.effortsAtDate, e.personalRecord])).toEqual([[slow, 3, 1, "personalRecord"]])
      const none = yield* send("GET", `/api/v1/segments/${made.json.id}/efforts?filters[year]=2023`)
      expect(none.json.efforts).toEqual([])

      // answers are kept until the next commit: the same URLs asked after a change show it
      const nameListed = () => Effect.map(send("GET", "/api/v1/segments"), (r) => r.json.segments.find((s: any) => s.id === made.json.id)?.name)
      expect(yield* nameListed()).toBe("Bottom street")
      // a ride made a run leaves a rides' segment; a deleted activity takes its efforts along
      const rides = yield* send("PATCH", `/api/v1/segments/${made.json.id}`, { json: { sportGroup: "rides", name: "Bottom street (rides)" } })
      expect(rides.json.name).toBe("Bottom street (rides)")
      expect(yield* nameListed()).toBe("Bottom street (rides)")
      yield* matchedSegment(made.json.id)
      yield* send("PATCH", `/api/v1/activities/${fast}`, { json: { sportType: "Run" } })
      yield* send("DELETE", `/api/v1/activities/${fastest}`)
      const left = yield* send("GET", `/api/v1/segments/${made.json.id}/efforts`)
      expect(left.json.efforts.map((e: any) => e.activityId)).toEqual([slow])
      yield* send("PATCH", `/api/v1/activities/${fast}`, { json: { sportType: "Ride" } })
      const back = yield* send("GET", `/api/v1/segments/${made.json.id}/efforts`)
      expect(back.json.efforts.map((e: any) => e.activityId)).toEqual([fast, slow])

      const listed = yield* send("GET", "/api/v1/segments?filters[name]=bottom")
      expect(listed.json.segments.map((s: any) => [s.id, s.effortCount])).toEqual([[made.json.id, 2]])
      expect((yield* send("DELETE", `/api/v1/segments/${made.json.id}`)).status).toBe(204)
      expectError(yield* send("GET", `/api/v1/segments/${made.json.id}`), 404, "not_found")
    }))

  it.effect("a segment is made from a stretch of an activity, a GPX file or a GeoJSON line", () =>
    Effect.gen(function*() {
      const id = yield* ride("2025-01-01", 8)
      const cut = yield* send("POST", "/api/v1/segments", { json: { name: "Cut", activityId: id, fromDistanceInMeter: 200, toDistanceInMeter: 700 } })
      expect(cut.status).toBe(201)
      expect(cut.json.sportGroup).toBe("rides")
      expect(cut.json.distanceInMeter).toBeGreaterThan(480)
      expect(cut.json.distanceInMeter).toBeLessThan(530)
      expect((yield* matchedSegment(cut.json.id)).effortCount).toBeGreaterThanOrEqual(1)
      const gpx = `<?xml version="1.0"?><gpx version="1.1"><trk><trkseg>${
        [at(0, 200), at(400, 200), at(400, 600)].map(([lat, lon], i) => `<trkpt lat="${lat}" lon="${lon}"><ele>${10 + i * 10}</ele></trkpt>`).join("")
      }</trkseg></trk></gpx>`
      const fromGpx = yield* send("POST", "/api/v1/segments", { json: { name: "From GPX", gpx } })
      expect(fromGpx.status).toBe(201)
      expect(fromGpx.json.distanceInMeter).toBeCloseTo(800, 0)
      expect(fromGpx.json.averageGrade).toBeCloseTo(2.5, 1)
      expect(fromGpx.json.elevationGainInMeter).toBeCloseTo(20, 0)
      const line = { type: "Feature", geometry: { type: "LineString", coordinates: [at(0, 400), at(600, 400)].map(([lat, lon]) => [lon, lat]) } }
      const fromGeoJson = yield* send("POST", "/api/v1/segments", { json: { name: "From GeoJSON", geojson: line } })
      expect(fromGeoJson.status).toBe(201)
      expect(fromGeoJson.json.distanceInMeter).toBeCloseTo(600, 0)
    }))

  it.effect("bad input is 400 naming the field", () =>
    Effect.gen(function*() {
      const id = yield* ride("2025-02-01", 8)
      const refused = (body: unknown, field: string) =>
        Effect.gen(function*() {
          const answer = yield* send("POST", "/api/v1/segments", { json: body })
          expectError(answer, 400, "bad_request")
          expect(answer.json.message).toContain(field)
        })
      yield* refused({ name: "One point", points: [street[0]] }, '"points"')
      yield* refused({ name: "Short", points: [at(0, 0), at(50, 0)] }, "at least 100 m")
      yield* refused({ name: "Long", points: [[10, 10], [12, 10]] }, "at most 200 km")
      yield* refused({ name: "Off the globe", points: [[51, 3], [91, 3]] }, '"points[1]"')
      yield* refused({ name: "Outside", activityId: id, fromDistanceInMeter: 200, toDistanceInMeter: 5000 }, '"toDistanceInMeter"')
      yield* refused({ name: "Before", activityId: id, fromDistanceInMeter: -5, toDistanceInMeter: 500 }, '"fromDistanceInMeter"')
      yield* refused({ name: "Nothing" }, '"points"')
      yield* refused({ name: "", points: street }, '"name"')
      yield* refused({ name: "Bad GPX", gpx: "<nope" }, '"gpx"')
      yield* refused({ name: "Bad GeoJSON", geojson: { type: "Point", coordinates: [3, 51] } }, '"geojson"')
      const patch = yield* send("PATCH", "/api/v1/segments/segment-none", { json: { name: "x" } })
      expectError(patch, 404, "not_found")
      expectError(yield* send("GET", "/api/v1/activities/activity-none/climbs"), 404, "not_found")
    }))

  it.effect("an activity's climbs are found and categorised, and one is made a segment in one call", () =>
    Effect.gen(function*() {
      // 1 km flat, 2 km at 6 % (score 12,000: category 4), 1 km flat, eastwards at 5 m/s
      const track = recordPath([[0, 0], [4000, 0]], { speed: 5 })
      const altitude = track.distance.map((d) => 100 + Math.min(120, Math.max(0, d - 1000) * 0.06))
      const id = yield* seedActivity({
        name: "Hill ride", sportType: "Ride", startTime: Date.parse("2025-03-01T08:00:00Z"), startDateLocal: "2025-03-01T08:00:00",
        streams: { ...track, altitude }
      })
      const climbs = yield* send("GET", `/api/v1/activities/${id}/climbs`)
      expect(climbs.status).toBe(200)
      expect(climbs.json.climbs).toHaveLength(1)
      expect(climbs.json.climbs[0]).toMatchObject({ category: "4", averageGrade: expect.closeTo(6, 0) })
      const made = yield* send("POST", `/api/v1/activities/${id}/climbs/0/segment`)
      expect(made.status).toBe(201)
      expect(made.json.name).toContain("Hill ride")
      expect(made.json.averageGrade).toBeCloseTo(6, 0)
      const segment = yield* matchedSegment(made.json.id)
      expect(segment.effortCount).toBe(1)
      expectError(yield* send("POST", `/api/v1/activities/${id}/climbs/3/segment`), 400, "bad_request")
      yield* TestDaemon
    }))
})
