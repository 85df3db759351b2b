import { describe, expect, it, layer } from "@effect/vitest"
import { Arbitrary, Effect, FastCheck as fc, Schema } from "effect"
import { jsonResponder } from "../../../src/http/encode/jsonResponder.ts"
import { ImportSource, type ShownColumn, SportType, WorkoutType, WorldType } from "../../../src/schema/ActivityFields.ts"
import { Activity, ActivityList, FileImportList, Status } from "../../../src/schema/ApiModels.ts"
import { ActivityRepo } from "../../../src/services/activities/ActivityRepo.ts"
import { ACTIVITY_COLUMNS, activityOf } from "../../../src/services/activities/ActivityRow.ts"
import { FileImportRepo } from "../../../src/services/import/FileImportRepo.ts"
import { makeDraft, seedActivity, seedRawActivityRow, send, TestDaemon } from "../../support/TestDaemon.ts"

/**
 * The list, activity and status responses are serialised as they are, without the framework's
 * walk of each value through its schema: the bytes must be those that walk would have given.
 */

/** What the framework sends for a value of `schema`: its encoding, then JSON.stringify. */
const schemaBytes = <A, I>(schema: Schema.Schema<A, I, never>, value: A) => JSON.stringify(Schema.encodeSync(schema)(value))

const responderBytes = <A>(schema: Schema.Schema<A, A, never>, value: A) => {
  const response = jsonResponder(schema)(value)
  expect(response.status).toBe(200)
  expect(response.body._tag).toBe("Uint8Array")
  return Buffer.from((response.body as { body: Uint8Array }).body).toString("utf8")
}

// ---------------------------------------------------------------------------------------
// Rows as SQLite can hand them back, including what older versions may have written

const edgeNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, 0.5, -0.5, 1.005, 1e21, 1e-7, 1e308, -1e308, Number.MAX_VALUE, Number.MIN_VALUE, Infinity, -Infinity, NaN,
    Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, Number.MIN_SAFE_INTEGER - 2)
)
const nullableNumber = fc.option(edgeNumber, { nil: null })
const edgeText = fc.oneof(
  fc.fullUnicodeString({ maxLength: 40 }),
  fc.string({ maxLength: 40 }),
  fc.constantFrom("", "\"quoted\" \\ back\\slash", "line\nbreak\ttab\u0000nul\u001f", "\u2028\u2029", "emoji 🚴‍♀️🏃", "\ud800 lone surrogate",
    "x".repeat(300), "😀".repeat(200), "</script><script>alert(1)</script>")
)
const nullableText = fc.option(edgeText, { nil: null })
const word = (known: ReadonlyArray<string>) => fc.oneof(fc.constantFrom(...known), edgeText)

/** A stored row, by column: what SQLite may hand back for each column an Activity is read from. */
const activityRow: fc.Arbitrary<Record<ShownColumn, unknown>> = fc.record({
  id: edgeText.map((s) => `activity-${s}`),
  start_date_local: edgeText,
  sport_type: word(SportType.literals),
  name: edgeText,
  description: nullableText,
  workout_type: fc.option(word(WorkoutType.literals), { nil: null }),
  world_type: word(WorldType.literals),
  import_source: word(ImportSource.literals),
  distance: edgeNumber,
  elevation: edgeNumber,
  moving_time: edgeNumber,
  elapsed_time: edgeNumber,
  average_speed: edgeNumber,
  max_speed: edgeNumber,
  calories: nullableNumber,
  kilojoules: nullableNumber,
  average_heart_rate: nullableNumber,
  max_heart_rate: nullableNumber,
  average_power: nullableNumber,
  max_power: nullableNumber,
  average_cadence: nullableNumber,
  is_commute: fc.constantFrom(0, 1, 2),
  exclude_from_records: fc.constantFrom(0, 1, 2),
  device_name: nullableText,
  gear_id: fc.option(edgeText.map((s) => `gear-${s}`), { nil: null }),
  country_code: nullableText,
  state: nullableText,
  city: nullableText,
  passed_through_countries: fc.oneof(fc.array(edgeText, { maxLength: 4 }).map((a) => JSON.stringify(a)), edgeText, fc.constantFrom("[1,null,\"ch\"]", "{}")),
  start_lat: nullableNumber,
  start_lng: nullableNumber,
  encoded_polyline: fc.option(fc.oneof(edgeText, fc.constant("")), { nil: null }),
  has_gpx: fc.constantFrom(0, 1),
  has_times: fc.constantFrom(0, 1, null),
  date_unknown: fc.constantFrom(0, 1, null),
  pool_length: nullableNumber,
  number_of_lengths: nullableNumber,
  strokes: nullableNumber,
  swolf: nullableNumber,
  multisport: fc.option(fc.oneof(edgeText, fc.constantFrom("{\"parts\":[]}", "{\"parts\":[{\"kind\":\"leg\",\"activityId\":null,\"sportType\":\"Run\",\"startOffsetInSeconds\":0,\"elapsedTimeInSeconds\":60}]}", "[]", "{\"parts\":7}")), { nil: null })
})

const images = fc.array(fc.record({ id: edgeText.map((s) => `activityImage-${s}`), url: edgeText }), { maxLength: 3 })

const pagination = fc.record({ page: fc.nat(), size: fc.nat(), total: fc.nat(), totalPages: fc.nat() })

describe("jsonResponder", () => {
  it("refuses, when built, a schema whose JSON form differs from its type", () => {
    expect(() => jsonResponder(Schema.Struct({ at: Schema.DateFromString }) as any)).toThrow(/encodes as itself/)
    expect(() => jsonResponder(Schema.Struct({ list: Schema.Array(Schema.Struct({ n: Schema.NumberFromString })) }) as any)).toThrow(/Transformation/)
    expect(() => jsonResponder(Schema.Struct({ d: Schema.DateFromSelf }) as any)).toThrow(/Declaration/)
    expect(() => jsonResponder(ActivityList)).not.toThrow()
  })

  it("serialises stored rows of any content, read back as Activities, to the bytes of the schema's encoding", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(activityRow, images), { maxLength: 6 }), pagination, (rows, page) => {
        const list = { activities: rows.map(([row, imgs]) => activityOf(ACTIVITY_COLUMNS.map((c) => row[c]), imgs)), pagination: page }
        expect(responderBytes(ActivityList, list)).toBe(schemaBytes(ActivityList, list))
        for (const activity of list.activities) expect(responderBytes(Activity, activity)).toBe(schemaBytes(Activity, activity))
      }),
      { numRuns: 400 }
    )
  })

  it("serialises any valid value of the schemas to the bytes of their encoding", () => {
    for (const schema of [ActivityList, FileImportList, Status] as const) {
      fc.assert(
        fc.property(Arbitrary.make(schema as Schema.Schema<any, any, never>), (value) => {
          expect(responderBytes(schema as Schema.Schema<any, any, never>, value)).toBe(schemaBytes(schema as Schema.Schema<any, any, never>, value))
        }),
        { numRuns: 200 }
      )
    }
  })
})

// ---------------------------------------------------------------------------------------
// Over the daemon's socket: what is served is what the schema's encoding of it gives

/** The served bytes are the schema's encoding of the value they describe: valid, nothing extra, in the schema's order. */
const expectSchemaBytes = <A, I>(schema: Schema.Schema<A, I, never>, text: string) => {
  const value = Schema.decodeUnknownSync(schema)(JSON.parse(text))
  expect(text).toBe(schemaBytes(schema, value))
}


describe("jsonResponder in the API", () => {
  layer(TestDaemon.layer(), { excludeTestServices: true })((it) => {
    it.effect("GET /activities, /activities/{id}, /file-imports and /status serve the bytes of their schema's encoding, over varied and extreme rows", () =>
      Effect.gen(function*() {
        const ids = [
          yield* seedActivity(makeDraft({ name: "Plain \"ride\" \\ ünïcødé 🚴", description: "line\nbreak\u2028", deviceName: "Edge 530" })),
          yield* seedActivity(makeDraft({ startTime: Date.parse("2020-02-29T23:59:59Z"), startDateLocal: "2020-03-01T00:59:59", sportType: "Run", workoutType: "race", isCommute: true, calories: null, startLatLng: null, encodedPolyline: null }))
        ]
        yield* seedRawActivityRow("activity-huge", {
          distance: 1.7976931348623157e308, elevation: Infinity, moving_time: -Infinity, elapsed_time: 1e300, average_speed: Infinity,
          max_speed: -0.0000001, calories: 1e308, kilojoules: Infinity, average_heart_rate: 140.5, max_power: -1e300, start_lat: -90, start_lng: 180
        })
        yield* seedRawActivityRow("activity-texts", {
          start_time: Date.parse("2021-05-01T09:00:00Z"), name: "n".repeat(100_000), description: "😀".repeat(6_000), device_name: "\u0000\u001f",
          sport_type: "Hovercraft", world_type: "mars", import_source: "floppy", workout_type: "nap", passed_through_countries: "[\"ch\",7,null]",
          country_code: "ch", state: "Zürich", city: "Zürich", gear_id: null, encoded_polyline: "", start_lat: 95, start_lng: 3
        })
        ids.push("activity-huge", "activity-texts")
        const repo = yield* ActivityRepo
        yield* repo.addImage(ids[0]!, "activityImage-1", "one.png")
        yield* repo.addImage(ids[0]!, "activityImage-2", "two.jpg", "ext-2")
        const imports = yield* FileImportRepo
        yield* imports.insert({
          id: "fileImport-1", filename: "ride \"1\".gpx", source: "gpxFile", status: "failed", errorMessage: "bad\nfile ✗".repeat(300),
          activityId: null, importedOn: Date.now(), contentHash: "h", sourceSize: 1, sourceMtime: 1, originalFile: null
        })
        yield* imports.insert({
          id: "fileImport-2", filename: "ride.fit", source: "fitFile", status: "success", errorMessage: null,
          activityId: ids[0]!, importedOn: 0, contentHash: "h2", sourceSize: 1, sourceMtime: 1, originalFile: null
        })

        const list = yield* send("GET", "/api/v1/activities?pagination[size]=100")
        expect(list.status).toBe(200)
        expect(list.headers["content-type"]).toBe("application/json")
        expect(list.json.activities).toHaveLength(4)
        expectSchemaBytes(ActivityList, list.text)
        const filtered = yield* send("GET", "/api/v1/activities?filters[sportType]=Ride&filters[from]=2021-01-01&pagination[size]=1&pagination[page]=2")
        expect(filtered.status).toBe(200)
        expectSchemaBytes(ActivityList, filtered.text)
        for (const id of ids) {
          const one = yield* send("GET", `/api/v1/activities/${id}`)
          expect(one.status).toBe(200)
          expectSchemaBytes(Activity, one.text)
        }
        expect((yield* send("GET", `/api/v1/activities/${ids[0]}`)).json.images).toHaveLength(2)
        const fileImports = yield* send("GET", "/api/v1/file-imports?pagination[size]=25")
        expect(fileImports.status).toBe(200)
        expect(fileImports.json.fileImports).toHaveLength(2)
        expectSchemaBytes(FileImportList, fileImports.text)
        const status = yield* send("GET", "/api/v1/status")
        expect(status.status).toBe(200)
        expectSchemaBytes(Status, status.text)
      }))
  })
})
