import * as Schema from "effect/Schema"
import { MAX_DESCRIPTION_LENGTH, MAX_DEVICE_NAME_LENGTH, MAX_NAME_LENGTH, truncateText } from "./ActivityLimits.ts"
import { SPORT_TYPES } from "./SportType.ts"

/**
 * The Activity, declared once: each field with its schema in the API, the columns of the
 * `activities` table it is stored in, how a computed value is written to them and how the
 * stored values read back. The API's Activity schema, the computed activity (ActivityDraft),
 * the insert, the update and the row reader (ActivityRow) all follow from it; a new field is
 * an entry here plus the migration that adds its columns.
 *
 * Reading never fails on a stored row: rows written before activities were checked
 * (validateActivity) may hold Infinity, 1e308 or a 100 KB device name, and one of them must not
 * make every page of the list that holds it unanswerable. Each `read` brings its values back
 * within the field's API type: a number that is not finite becomes 0 (null where the field may
 * be null), an integer field is rounded and kept within the safe integers, a text is cut to its
 * limit, a word outside its vocabulary takes the default. The reads run for every activity of
 * every page served: plain code, no schema decoding.
 */

// ---------------------------------------------------------------------------------------
// Vocabularies

export const SportType = Schema.Literal(...SPORT_TYPES).annotations({
  identifier: "SportType",
  description: "One sport type of the external platform's vocabulary"
})

export const WorldType = Schema.Literal("realWorld", "zwift", "rouvy", "myWhoosh").annotations({ identifier: "WorldType" })
export type WorldType = typeof WorldType.Type
type SportType = typeof SportType.Type

export const ImportSource = Schema.Literal("fitFile", "tcxFile", "gpxFile", "kmlFile", "kmzFile", "stravaApi").annotations({ identifier: "ImportSource" })
export type ImportSource = typeof ImportSource.Type

export const WorkoutType = Schema.Literal("race", "workout", "longRun")

export const MultisportPart = Schema.Struct({
  kind: Schema.Literal("leg", "transition"),
  activityId: Schema.NullOr(Schema.String).annotations({
    description: "The leg's activity; null for a transition, and for a leg that is not stored (impossible as recorded, or deleted)"
  }),
  sportType: Schema.NullOr(SportType).annotations({ description: "The leg's sport; null for a transition" }),
  startOffsetInSeconds: Schema.Int.annotations({ description: "Seconds from the race's start to the part's" }),
  elapsedTimeInSeconds: Schema.Int
}).annotations({ identifier: "MultisportPart" })
export type MultisportPart = typeof MultisportPart.Type

export const Multisport = Schema.Struct({
  parts: Schema.Array(MultisportPart).annotations({ description: "The legs and the transitions between them, in order" })
}).annotations({
  identifier: "MultisportRace",
  description: "The race (a triathlon, a duathlon) this activity is a leg of: every leg, each its own activity, and every transition"
})
export type Multisport = typeof Multisport.Type

export const Location = Schema.Struct({
  countryCode: Schema.NullOr(Schema.String).annotations({ description: "Lowercased ISO 3166-1 alpha-2" }),
  state: Schema.NullOr(Schema.String),
  city: Schema.NullOr(Schema.String)
}).annotations({ identifier: "ActivityLocation" })
export type Location = typeof Location.Type

// ---------------------------------------------------------------------------------------
// Reading stored values back within their type

const int = (v: unknown): number =>
  typeof v === "number" && Number.isFinite(v) ? Math.min(Number.MAX_SAFE_INTEGER, Math.max(Number.MIN_SAFE_INTEGER, Math.round(v))) : 0

const intOrNull = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? int(v) : null)

/** km/h with 2 decimals; 0 when not a finite number. */
const speed = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? Math.round(v * 100) / 100 : 0)

const text = (max: number) => (v: unknown): string => (typeof v === "string" ? truncateText(v, max) : "")

const textOrNull = (max: number) => (v: unknown): string | null => (typeof v === "string" ? truncateText(v, max) : null)

/** A word of `vocabulary`, or `fallback` for anything else. */
const word = <L extends readonly [string, ...Array<string>]>(vocabulary: Schema.Literal<L>, fallback: NoInfer<L[number]>) => {
  const words: ReadonlySet<unknown> = new Set(vocabulary.literals)
  return (v: unknown): L[number] => (words.has(v) ? (v as L[number]) : fallback)
}

/** A flag, stored as 1 or 0. */
const readFlag = (v: unknown): boolean => v === 1

const countries = (json: unknown): Array<string> => {
  try {
    const parsed: unknown = typeof json === "string" ? JSON.parse(json) : null
    return Array.isArray(parsed) ? parsed.filter((c): c is string => typeof c === "string") : []
  } catch {
    return []
  }
}

const latLng = (lat: unknown, lng: unknown): readonly [number, number] | null =>
  typeof lat === "number" && typeof lng === "number" && Math.abs(lat) <= 90 && Math.abs(lng) <= 180 ? [lat, lng] : null

/** Location names come from the offline city data; this only bounds what an old row may hold. */
const MAX_PLACE_LENGTH = 255
const place = textOrNull(MAX_PLACE_LENGTH)

const sportTypes: ReadonlySet<unknown> = new Set(SPORT_TYPES)
const sportTypeOrNull = (v: unknown): SportType | null => (sportTypes.has(v) ? (v as SportType) : null)

/** One part of a stored race, within its type; null for what is not one. */
const racePart = (v: unknown): MultisportPart | null => {
  if (typeof v !== "object" || v === null) return null
  const p = v as Record<string, unknown>
  if (p["kind"] !== "leg" && p["kind"] !== "transition") return null
  return {
    kind: p["kind"],
    activityId: typeof p["activityId"] === "string" ? p["activityId"] : null,
    sportType: sportTypeOrNull(p["sportType"]),
    startOffsetInSeconds: int(p["startOffsetInSeconds"]),
    elapsedTimeInSeconds: int(p["elapsedTimeInSeconds"])
  }
}

/** A race as stored (JSON), or null: a text that is not one reads as none. Only multisport legs have one. */
const multisport = (v: unknown): Multisport | null => {
  if (typeof v !== "string") return null
  try {
    const parsed = JSON.parse(v) as { parts?: unknown }
    if (!Array.isArray(parsed.parts)) return null
    return { parts: parsed.parts.map(racePart).filter((p): p is MultisportPart => p !== null) }
  } catch {
    return null
  }
}

/** A number with 2 decimals, or null when not a finite number. */
const decimalOrNull = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? Math.round(v * 100) / 100 : null)

/** An instant a Date can show (epoch ms), else 0: rows written before starts were checked may hold 1e300. */
const instant = (v: unknown): number => (typeof v === "number" && Number.isFinite(new Date(v).getTime()) ? v : 0)

// ---------------------------------------------------------------------------------------
// The declaration

/** A value SQLite stores for a field's column. */
export type SqlValue = string | number | null

/**
 * One field: `schema` is the field's property in the API's Activity (for a field the API does
 * not show, `shown` is false and `schema` only gives its type); `columns` are the columns it is
 * stored in, `read` takes their stored values in that order, `write` gives them for a value.
 * A `personal` field is set by a person (a PATCH, or the export a file came with), never
 * computed from the file: it is kept when the activity is computed again.
 */
export interface ActivityField<S extends Schema.Struct.Field, C extends ReadonlyArray<string>, Shown extends boolean = boolean> {
  readonly schema: S
  readonly columns: C
  readonly shown: Shown
  readonly personal: boolean
  read(...values: { readonly [I in keyof C]: unknown }): Schema.Schema.Type<S>
  write(value: Schema.Schema.Type<S>): { readonly [K in C[number]]: SqlValue }
}

type Write<S extends Schema.Struct.Field> = (value: Schema.Schema.Type<S>) => SqlValue

/** A field stored in one column; written as it is unless `write` says otherwise (a value SQLite cannot hold must). */
const column = <const N extends string, S extends Schema.Struct.Field>(
  name: N,
  schema: S,
  read: (value: unknown) => Schema.Schema.Type<S>,
  ...[write]: Schema.Schema.Type<S> extends SqlValue ? [write?: Write<S>] : [write: Write<S>]
): ActivityField<S, readonly [N], true> => {
  const toColumn = write ?? ((value: Schema.Schema.Type<S>) => value as SqlValue)
  return {
    schema,
    columns: [name],
    shown: true,
    personal: false,
    read,
    write: (value) => ({ [name]: toColumn(value) }) as { readonly [K in N]: SqlValue }
  }
}

/** A field stored in several columns. */
const columns = <const C extends ReadonlyArray<string>, S extends Schema.Struct.Field>(
  names: C,
  schema: S,
  read: (...values: { readonly [I in keyof C]: unknown }) => Schema.Schema.Type<S>,
  write: (value: Schema.Schema.Type<S>) => { readonly [K in C[number]]: SqlValue }
): ActivityField<S, C, true> => ({ schema, columns: names, shown: true, personal: false, read, write })

const personal = <F extends ActivityField<any, any>>(field: F): F => ({ ...field, personal: true })

const hidden = <S extends Schema.Struct.Field, C extends ReadonlyArray<string>>(field: ActivityField<S, C>): ActivityField<S, C, false> => ({
  ...field,
  shown: false
})

const workoutType = word(WorkoutType, "workout")
const nullableInt = Schema.optionalWith(Schema.NullOr(Schema.Int), { exact: true })
const writeFlag = (b: boolean) => (b ? 1 : 0)

/**
 * Every field of the Activity, in the order of the API's Activity (its schema and the row reader
 * follow this order; the API's `images`, which are rows of their own table, come last).
 */
export const ActivityFields = {
  id: column(
    "id",
    Schema.String.pipe(Schema.startsWith("activity-")).annotations({ description: "Prefixed identifier, starts with activity-" }),
    // the table's key, always the text the repository gave it
    (v) => v as string
  ),
  name: personal(column("name", Schema.String, text(MAX_NAME_LENGTH))),
  description: personal(column(
    "description",
    Schema.String.annotations({ description: "Empty string when there is none" }),
    text(MAX_DESCRIPTION_LENGTH),
    (d) => (d === "" ? null : d)
  )),
  sportType: personal(column("sport_type", SportType, word(SportType, "Workout"))),
  workoutType: column("workout_type", Schema.optionalWith(Schema.NullOr(WorkoutType), { exact: true }), (v) => (v === null ? null : workoutType(v))),
  worldType: column("world_type", WorldType, word(WorldType, "realWorld")),
  importSource: column("import_source", ImportSource, word(ImportSource, "fitFile")),
  /** UTC instant of the start, epoch ms */
  startTime: hidden(column("start_time", Schema.Number, instant)),
  /** local wall time, `YYYY-MM-DDTHH:mm:ss` */
  startDateLocal: column(
    "start_date_local",
    Schema.String.annotations({
      description: "Local date-time of the start, ISO 8601 without offset. When dateUnknown is true it is not the activity's date " +
        "but a stand-in: the local time the file was imported",
      examples: ["2026-09-28T10:00:00"]
    }),
    text(32)
  ),
  distanceInMeter: column("distance", Schema.Int, int, Math.trunc),
  elevationInMeter: column("elevation", Schema.Int, int, Math.trunc),
  movingTimeInSeconds: column("moving_time", Schema.Int, int, Math.round),
  elapsedTimeInSeconds: column("elapsed_time", Schema.Int, int, Math.round),
  averageSpeedInKmPerHour: column("average_speed", Schema.Number, speed),
  maxSpeedInKmPerHour: column("max_speed", Schema.Number, speed),
  calories: column("calories", nullableInt, intOrNull),
  kilojoules: column("kilojoules", nullableInt, intOrNull),
  averageHeartRate: column("average_heart_rate", nullableInt, intOrNull),
  maxHeartRate: column("max_heart_rate", nullableInt, intOrNull),
  averagePower: column("average_power", nullableInt, intOrNull),
  maxPower: column("max_power", nullableInt, intOrNull),
  averageCadence: column("average_cadence", nullableInt, intOrNull),
  isCommute: personal(column("is_commute", Schema.Boolean, readFlag, writeFlag)),
  excludeFromRecords: personal(column(
    "exclude_from_records",
    Schema.Boolean.annotations({
      description: "True when the athlete keeps the activity out of the records (its best efforts set none, nor the milestones of a record)"
    }),
    readFlag,
    writeFlag
  )),
  deviceName: column("device_name", Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }), textOrNull(MAX_DEVICE_NAME_LENGTH)),
  gearId: personal(column(
    "gear_id",
    Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }).annotations({ description: "Prefixed id of a gear record, starts with gear-" }),
    (v) => (typeof v === "string" ? v : null),
    (id) => (id === "" ? null : id)
  )),
  location: columns(
    ["country_code", "state", "city"],
    Location,
    (countryCode, state, city) => ({ countryCode: place(countryCode), state: place(state), city: place(city) }),
    (location) => ({ country_code: location.countryCode, state: location.state, city: location.city })
  ),
  passedThroughCountries: column(
    "passed_through_countries",
    Schema.Array(Schema.String).annotations({ description: "Lowercased ISO 3166-1 alpha-2 codes" }),
    countries,
    (codes) => JSON.stringify(codes)
  ),
  startLatLng: columns(
    ["start_lat", "start_lng"],
    Schema.optionalWith(Schema.NullOr(Schema.Tuple(Schema.Number, Schema.Number)), { exact: true }).annotations({
      description: "[latitude, longitude]; null without GPS data"
    }),
    latLng,
    (position) => ({ start_lat: position?.[0] ?? null, start_lng: position?.[1] ?? null })
  ),
  encodedPolyline: column(
    "encoded_polyline",
    Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
    (v) => (typeof v === "string" && v !== "" ? v : null)
  ),
  hasGpx: column("has_gpx", Schema.Boolean.annotations({ description: "True when the GPX download will return a file" }), readFlag, writeFlag),
  hasTimes: column(
    "has_times",
    Schema.Boolean.annotations({
      description: "False when the file's points carried no usable times (a route converted without them): its distance, " +
        "elevation and route are kept, its times, speeds, splits and best efforts are unknown (0 or empty)"
    }),
    readFlag,
    writeFlag
  ),
  dateUnknown: column(
    "date_unknown",
    Schema.Boolean.annotations({
      description: "True when nothing in the file tells when the activity was recorded (a route without any time, nor a date of " +
        "the file's own): its startDateLocal is a stand-in, not its date, and it is kept out of everything counted by date " +
        "(statistics and totals, calendars, streaks, milestones, records, the year in review, training load, leaderboards)"
    }),
    readFlag,
    writeFlag
  ),
  poolLengthInMeter: column(
    "pool_length",
    Schema.optionalWith(Schema.NullOr(Schema.Number), { exact: true }).annotations({ description: "A pool swim's pool length" }),
    decimalOrNull
  ),
  numberOfLengths: column(
    "number_of_lengths",
    Schema.optionalWith(Schema.NullOr(Schema.Int), { exact: true }).annotations({ description: "A pool swim's lengths swum (rests left out)" }),
    intOrNull
  ),
  strokes: column(
    "strokes",
    Schema.optionalWith(Schema.NullOr(Schema.Int), { exact: true }).annotations({ description: "A swim's strokes, where the device counted them" }),
    intOrNull
  ),
  swolf: column(
    "swolf",
    Schema.optionalWith(Schema.NullOr(Schema.Int), { exact: true }).annotations({
      description: "A pool swim's SWOLF: the seconds plus the strokes of a length, averaged over its lengths"
    }),
    intOrNull
  ),
  multisport: column(
    "multisport",
    Schema.optionalWith(Schema.NullOr(Multisport), { exact: true }),
    multisport,
    (race) => (race === null ? null : JSON.stringify(race))
  )
} as const

type Fields = typeof ActivityFields

/** The names of the fields the API shows. */
export type ShownField = { readonly [K in keyof Fields]: Fields[K] extends ActivityField<any, any, false> ? never : K }[keyof Fields]

/** The properties of the API's Activity that follow from the declaration (all but `images`). */
export const shownFields = Object.fromEntries(
  Object.entries(ActivityFields).filter(([, field]) => field.shown).map(([name, field]) => [name, field.schema])
) as { readonly [K in ShownField]: Fields[K]["schema"] }

/**
 * The fields of a computed activity as it is stored: every field but the id (which the
 * repository gives), each with its value (null where the API may leave it out).
 */
export type ActivitySummary = { readonly [K in Exclude<keyof Fields, "id">]: Schema.Schema.Type<Fields[K]["schema"]> }

/** A column of `activities` that holds a field the API shows. */
export type ShownColumn = Fields[ShownField]["columns"][number]
