import { describe, expect, layer } from "@effect/vitest"
import * as HttpBody from "@effect/platform/HttpBody"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ActivityRepo } from "../../src/services/activities/ActivityRepo.ts"
import { fileForm, PNG_1x1, seedActivity, seedGear, send, snapshot, TestDaemon } from "../support/TestDaemon.ts"

const ACTIVITY_KEYS = [
  "id", "name", "description", "sportType", "workoutType", "worldType", "importSource", "startDateLocal",
  "distanceInMeter", "elevationInMeter", "movingTimeInSeconds", "elapsedTimeInSeconds", "averageSpeedInKmPerHour",
  "maxSpeedInKmPerHour", "calories", "kilojoules", "averageHeartRate", "maxHeartRate", "averagePower", "maxPower",
  "averageCadence", "isCommute", "excludeFromRecords", "deviceName", "gearId", "location", "passedThroughCountries", "startLatLng",
  "encodedPolyline", "hasGpx", "hasTimes", "dateUnknown", "poolLengthInMeter", "numberOfLengths", "strokes", "swolf", "multisport", "images"
].sort()

const expectError = (answer: { status: number; json: any }, status: number, code: string) => {
  expect({ status: answer.status, error: answer.json?.error }).toEqual({ status, error: code })
  expect(Object.keys(answer.json).sort()).toEqual(["error", "message"])
  expect(typeof answer.json.message).toBe("string")
  expect(answer.json.message.length).toBeGreaterThan(0)
}

describe("activities", () => {
  layer(TestDaemon.layer(), { excludeTestServices: true })("search", (it) => {
    it.effect("GET /activities lists newest first with every Activity field and the pagination object", () =>
      Effect.gen(function*() {
        const older = yield* seedActivity({ startTime: Date.parse("2023-01-01T08:00:00Z"), startDateLocal: "2023-01-01T09:00:00", sportType: "Run" })
        const newer = yield* seedActivity({ startTime: Date.parse("2023-03-01T08:00:00Z"), startDateLocal: "2023-03-01T09:00:00", hasGpx: false })
        const middle = yield* seedActivity({ startTime: Date.parse("2023-02-01T08:00:00Z"), startDateLocal: "2023-02-01T09:00:00", sportType: "Hike" })
        const answer = yield* send("GET", "/api/v1/activities")
        expect(answer.status).toBe(200)
        expect(answer.headers["content-type"]).toContain("application/json")
        expect(answer.json.activities.map((a: any) => a.id)).toEqual([newer, middle, older])
        expect(answer.json.pagination).toEqual({ page: 1, size: 25, total: 3, totalPages: 1 })
        const first = answer.json.activities[0]
        expect(Object.keys(first).sort()).toEqual(ACTIVITY_KEYS)
        expect(first.location).toEqual({ countryCode: "be", state: "Flanders", city: "Ghent" })
        expect(first.startLatLng).toEqual([51.05, 3.72])
        expect(first.images).toEqual([])
      }))

    it.effect("filters by date range (inclusive days), sport types and hasGpx", () =>
      Effect.gen(function*() {
        const ids = (query: string) => Effect.map(send("GET", `/api/v1/activities?${query}`), (a) => {
          expect(a.status).toBe(200)
          return a.json.activities.map((x: any) => x.startDateLocal.slice(0, 10))
        })
        expect(yield* ids("filters[from]=2023-02-01&filters[to]=2023-03-01")).toEqual(["2023-03-01", "2023-02-01"])
        expect(yield* ids("filters[to]=2023-01-01")).toEqual(["2023-01-01"])
        expect(yield* ids("filters[sportType]=Run,Hike")).toEqual(["2023-02-01", "2023-01-01"])
        expect(yield* ids("filters[sportType]=%20Run%20")).toEqual(["2023-01-01"])
        expect(yield* ids("filters[hasGpx]=false")).toEqual(["2023-03-01"])
        expect(yield* ids("filters[hasGpx]=true&filters[sportType]=Run")).toEqual(["2023-01-01"])
      }))

    it.effect("pages through results", () =>
      Effect.gen(function*() {
        const page2 = yield* send("GET", "/api/v1/activities?pagination[size]=2&pagination[page]=2")
        expect(page2.status).toBe(200)
        expect(page2.json.pagination).toEqual({ page: 2, size: 2, total: 3, totalPages: 2 })
        expect(page2.json.activities).toHaveLength(1)
        const beyond = yield* send("GET", "/api/v1/activities?pagination[page]=9")
        expect(beyond.json.activities).toEqual([])
        const max = yield* send("GET", "/api/v1/activities?pagination[size]=100")
        expect(max.status).toBe(200)
      }))

    for (const query of [
      "filters[from]=2023-13-01", "filters[from]=yesterday", "filters[to]=2023-02-30",
      "filters[from]=2023-03-01&filters[to]=2023-01-01", "filters[sportType]=Run,Flying", "filters[sportType]=run",
      "filters[hasGpx]=yes", "pagination[size]=0", "pagination[size]=101", "pagination[page]=0",
      "pagination[page]=-1", "pagination[page]=abc", "pagination[size]=2.5", "pagination[page]=1e3"
    ]) {
      it.effect(`400 bad_request for ${query}`, () =>
        Effect.gen(function*() {
          expectError(yield* send("GET", `/api/v1/activities?${query}`), 400, "bad_request")
        }))
    }
  })

  layer(TestDaemon.layer(), { excludeTestServices: true })("one activity", (it) => {
    it.effect("GET /activities/{id} answers the activity, 404 not_found for unknown or malformed ids", () =>
      Effect.gen(function*() {
        const id = yield* seedActivity({ name: "Lunch Ride" })
        const answer = yield* send("GET", `/api/v1/activities/${id}`)
        expect(answer.status).toBe(200)
        expect(answer.json.id).toBe(id)
        expect(answer.json.name).toBe("Lunch Ride")
        expect(Object.keys(answer.json).sort()).toEqual(ACTIVITY_KEYS)
        for (const bad of ["activity-00000000-0000-0000-0000-000000000000", "nope", "%20", "activity-"]) {
          expectError(yield* send("GET", `/api/v1/activities/${bad}`), 404, "not_found")
        }
      }))

    it.effect("GET /activities/{id}/gpx answers a GPX attachment", () =>
      Effect.gen(function*() {
        const id = yield* seedActivity({ name: "Tour de Gent", startDateLocal: "2024-05-04T10:00:00" })
        const answer = yield* send("GET", `/api/v1/activities/${id}/gpx`)
        expect(answer.status).toBe(200)
        expect(answer.headers["content-type"]).toMatch(/^application\/gpx\+xml/)
        expect(answer.headers["content-disposition"]).toMatch(/^attachment; filename="?[^"]+\.gpx"?/)
        expect(answer.headers["content-disposition"]).toContain("2024-05-04-tour-de-gent.gpx")
        expect(answer.text).toContain('<gpx')
        expect((answer.text.match(/<trkpt /g) ?? []).length).toBe(3)
      }))

    it.effect("GPX: 404 not_found for an unknown activity, 404 gpx_not_available without GPS or time data", () =>
      Effect.gen(function*() {
        expectError(yield* send("GET", "/api/v1/activities/activity-nope/gpx"), 404, "not_found")
        const indoor = yield* seedActivity({ hasGpx: false, startLatLng: null, streams: { time: [0, 1, 2] } })
        expectError(yield* send("GET", `/api/v1/activities/${indoor}/gpx`), 404, "gpx_not_available")
      }))
  })

  layer(TestDaemon.layer(), { excludeTestServices: true })("PATCH", (it) => {
    it.effect("changes name, sport type, description and gear, and answers the updated activity", () =>
      Effect.gen(function*() {
        const id = yield* seedActivity({ description: "old" })
        const gear = yield* seedGear({ name: "Canyon" })
        const answer = yield* send("PATCH", `/api/v1/activities/${id}`, {
          json: { name: "  Renamed  ", sportType: "GravelRide", description: "New words", gearId: gear }
        })
        expect(answer.status).toBe(200)
        expect(answer.json).toMatchObject({ id, name: "Renamed", sportType: "GravelRide", description: "New words", gearId: gear })
        const stored = yield* send("GET", `/api/v1/activities/${id}`)
        expect(stored.json).toMatchObject({ name: "Renamed", sportType: "GravelRide", gearId: gear })
      }))

    it.effect("null or an empty string clears the description and removes the gear", () =>
      Effect.gen(function*() {
        const gear = yield* seedGear()
        for (const empty of [null, ""]) {
          const id = yield* seedActivity({ description: "something", gearId: gear })
          const answer = yield* send("PATCH", `/api/v1/activities/${id}`, { json: { description: empty, gearId: empty } })
          expect(answer.status).toBe(200)
          expect(answer.json.description).toBe("")
          expect(answer.json.gearId).toBeNull()
        }
      }))

    it.effect("a content type with parameters (application/json; charset=utf-8) is accepted", () =>
      Effect.gen(function*() {
        const id = yield* seedActivity()
        const answer = yield* send("PATCH", `/api/v1/activities/${id}`, {
          body: HttpBody.text(JSON.stringify({ name: "X" }), "application/json; charset=utf-8")
        })
        expect(answer.status).toBe(200)
      }))

    const badBodies: ReadonlyArray<[string, HttpBody.HttpBody]> = [
      ["an empty object", HttpBody.text("{}", "application/json")],
      ["an empty body", HttpBody.text("", "application/json")],
      ["broken JSON", HttpBody.text('{"name": "x"', "application/json")],
      ["a JSON array", HttpBody.text('[{"name":"x"}]', "application/json")],
      ["a JSON string", HttpBody.text('"x"', "application/json")],
      ["JSON null", HttpBody.text("null", "application/json")],
      ["a JSON number", HttpBody.text("42", "application/json")],
      ["an unknown field", HttpBody.text('{"name":"x","distance":3}', "application/json")],
      ["an unknown field alone", HttpBody.text('{"isCommute":true}', "application/json")],
      ["an empty name", HttpBody.text('{"name":""}', "application/json")],
      ["a blank name", HttpBody.text('{"name":"   "}', "application/json")],
      ["a name that is not a string", HttpBody.text('{"name":12}', "application/json")],
      ["a null name", HttpBody.text('{"name":null}', "application/json")],
      ["an unknown sport type", HttpBody.text('{"sportType":"Flying"}', "application/json")],
      ["a sport type of the wrong case", HttpBody.text('{"sportType":"ride"}', "application/json")],
      ["a sport type that is not a string", HttpBody.text('{"sportType":1}', "application/json")],
      ["a description that is not a string", HttpBody.text('{"description":["a"]}', "application/json")],
      ["unknown gear", HttpBody.text('{"gearId":"gear-nope"}', "application/json")],
      ["gear without the prefix", HttpBody.text('{"gearId":"nope"}', "application/json")],
      ["gear that is not a string", HttpBody.text('{"gearId":5}', "application/json")],
      ["a text/plain body", HttpBody.text('{"name":"x"}', "text/plain")],
      ["a form body", HttpBody.text("name=x", "application/x-www-form-urlencoded")],
      ["a multipart body", fileForm("a.json", '{"name":"x"}')],
      ["invalid UTF-8", HttpBody.uint8Array(Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]), "application/json")],
      ["a name over the limit", HttpBody.text(JSON.stringify({ name: "n".repeat(256) }), "application/json")],
      ["a binary body", HttpBody.uint8Array(PNG_1x1, "application/json")]
    ]
    it.effect("413 payload_too_large for a body over 64 KB, and nothing is written", () =>
      Effect.gen(function*() {
        const id = yield* seedActivity({ name: "Keep", description: "keep" })
        const before = yield* snapshot
        const body = HttpBody.text(JSON.stringify({ name: "x", description: "d".repeat(70 * 1024) }), "application/json")
        const answer = yield* send("PATCH", `/api/v1/activities/${id}`, { body })
        expectError(answer, 413, "payload_too_large")
        expect(answer.headers["connection"]).toBe("close")
        expect(yield* snapshot).toEqual(before)
      }))

    for (const [what, body] of badBodies) {
      it.effect(`400 bad_request for ${what}, and nothing is written`, () =>
        Effect.gen(function*() {
          const id = yield* seedActivity({ name: "Keep", description: "keep" })
          const before = yield* snapshot
          expectError(yield* send("PATCH", `/api/v1/activities/${id}`, { body }), 400, "bad_request")
          expect(yield* snapshot).toEqual(before)
        }))
    }

    it.effect("the 400 message names what is wrong", () =>
      Effect.gen(function*() {
        const id = yield* seedActivity()
        const unknown = yield* send("PATCH", `/api/v1/activities/${id}`, { json: { name: "x", colour: "red" } })
        expect(unknown.json.message).toContain("colour")
        const gear = yield* send("PATCH", `/api/v1/activities/${id}`, { json: { gearId: "gear-nope" } })
        expect(gear.json.message).toContain("gear-nope")
        // the field and the value, not the first sport type of the vocabulary
        const sport = yield* send("PATCH", `/api/v1/activities/${id}`, { json: { sportType: "Flying" } })
        expect(sport.json.message).toMatch(/^"sportType" must be one of the sport types .* not "Flying"\.$/)
        const notText = yield* send("PATCH", `/api/v1/activities/${id}`, { json: { sportType: 1 } })
        expect(notText.json.message).toMatch(/^"sportType" must be one of the sport types .* not 1\.$/)
      }))

    it.effect("404 not_found for an unknown activity (even with a valid body), nothing written", () =>
      Effect.gen(function*() {
        const before = yield* snapshot
        expectError(yield* send("PATCH", "/api/v1/activities/activity-nope", { json: { name: "x" } }), 404, "not_found")
        expect(yield* snapshot).toEqual(before)
      }))
  })

  layer(TestDaemon.layer(), { excludeTestServices: true })("DELETE", (it) => {
    it.effect("204 with no body; the activity, its streams, images and image files are gone", () =>
      Effect.gen(function*() {
        const daemon = yield* TestDaemon
        const keep = yield* seedActivity()
        const id = yield* seedActivity()
        const added = yield* send("POST", `/api/v1/activities/${id}/images`, { body: fileForm("p.png", PNG_1x1) })
        expect(added.status).toBe(201)
        const file = path.join(daemon.imagesDir, added.json.url.split("/").pop())
        expect(fs.existsSync(file)).toBe(true)

        const answer = yield* send("DELETE", `/api/v1/activities/${id}`)
        expect(answer.status).toBe(204)
        expect(answer.text).toBe("")
        expect((yield* send("GET", `/api/v1/activities/${id}`)).status).toBe(404)
        expect(fs.existsSync(file)).toBe(false)
        const repo = yield* ActivityRepo
        expect(yield* repo.track(id)).toBeNull()
        expect(yield* repo.exists(keep)).toBe(true)
      }))

    it.effect("404 not_found for an unknown activity", () =>
      Effect.gen(function*() {
        const before = yield* snapshot
        expectError(yield* send("DELETE", "/api/v1/activities/activity-nope"), 404, "not_found")
        expect(yield* snapshot).toEqual(before)
      }))
  })
})
