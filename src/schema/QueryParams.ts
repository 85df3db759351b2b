import * as Schema from "effect/Schema"
import { FILE_IMPORT_SOURCES, FILE_IMPORT_STATUSES, type FileImportSource, type FileImportStatus } from "./ApiModels.ts"
import { SPORT_TYPES, type SportType } from "./SportType.ts"
import { WorldType } from "./ActivityFields.ts"
import { CalendarDate } from "./CalendarDate.ts"
import { oneOf } from "./OneOf.ts"

/**
 * Query parameters in bracket syntax (`filters[from]`, `pagination[size]`). Each schema
 * carries its own message naming the parameter, and an explicit JSON schema so that the
 * OpenAPI document shows every bound.
 */

const integerString = (name: string, min: number, max: number | undefined, fallback?: number) =>
  Schema.String.pipe(
    Schema.filter((s) => /^\d{1,9}$/.test(s) && Number(s) >= min && (max === undefined || Number(s) <= max), {
      message: () =>
        max === undefined
          ? `"${name}" must be an integer of at least ${min}.`
          : `"${name}" must be an integer from ${min} to ${max}.`
    })
  ).pipe(
    Schema.compose(Schema.NumberFromString, { strict: false }),
    (schema) => schema.annotations({
      jsonSchema: { type: "integer", minimum: min, ...(max === undefined ? {} : { maximum: max }), ...(fallback === undefined ? {} : { default: fallback }) }
    })
  )

const integerParam = (name: string, min: number, max: number | undefined, fallback: number) =>
  integerString(name, min, max, fallback).pipe(Schema.optionalWith({ default: () => fallback }))

/** A comma-separated list whose items must all be allowed values. */
export const commaListOf = <A extends string>(name: string, what: string, allowed: ReadonlyArray<A>) => {
  const set: ReadonlySet<string> = new Set(allowed)
  return Schema.String.pipe(
    Schema.filter((raw) => raw.split(",").map((s) => s.trim()).every((s) => s === "" || set.has(s)), {
      message: (issue) => {
        const bad = String(issue.actual).split(",").map((s) => s.trim()).filter((s) => s !== "" && !set.has(s))
        return `"${name}" contains an unknown ${what}: ${bad.map((b) => `"${b}"`).join(", ")}.`
      }
    }),
    Schema.transform(Schema.Array(Schema.String), {
      strict: false,
      decode: (raw) => raw.split(",").map((s) => s.trim()).filter((s) => s !== ""),
      encode: (items) => items.join(",")
    })
  ).annotations({
    jsonSchema: {
      type: "string",
      description: `One ${what} or several separated by commas. Allowed: ${allowed.join(", ")}`
    }
  }) as unknown as Schema.Schema<ReadonlyArray<A>, string>
}

export const sportTypeList = commaListOf<SportType>("filters[sportType]", "sport type", SPORT_TYPES)

const booleanParam = (name: string) =>
  Schema.String.pipe(
    Schema.filter((s) => s === "true" || s === "false", { message: () => `"${name}" must be "true" or "false".` }),
    Schema.transform(Schema.Boolean, { strict: true, decode: (s) => s === "true", encode: (b) => (b ? "true" : "false") })
  ).annotations({ jsonSchema: { type: "string", enum: ["true", "false"] } })

export const PAGE_SIZE_DEFAULT = 25
export const PAGE_SIZE_MAX = 100

export const paginationFields = {
  "pagination[page]": integerParam("pagination[page]", 1, undefined, 1),
  "pagination[size]": integerParam("pagination[size]", 1, PAGE_SIZE_MAX, PAGE_SIZE_DEFAULT)
}

/**
 * `fields` as query parameters where a `filters[…]` or `pagination[…]` name that is not one of
 * them is refused by name: a misspelt filter would otherwise be ignored and answer more than
 * was asked for. Other names are left alone (a client's cache buster, for one).
 */
export const bracketParams = <Fields extends Schema.Struct.Fields>(fields: Fields) => {
  const known = Object.keys(fields)
  const unknownName = Schema.String.pipe(Schema.filter((name) => /^(filters|pagination)\[/.test(name) && !known.includes(name)))
  return Schema.Struct(fields, Schema.Record({
    key: unknownName,
    value: Schema.Never.annotations({ message: () => `There is no such parameter; known ones: ${known.filter((k) => k.includes("[")).join(", ")}.` })
  }))
}

const SEARCH_MAX_LENGTH = 200

/** The activity list's filters: also those of the statistics over the same activities. */
export const activityFilterFields = {
  "filters[from]": Schema.optional(CalendarDate("filters[from]").annotations({ description: "Only activities that started on this day or later" })),
  "filters[to]": Schema.optional(CalendarDate("filters[to]").annotations({ description: "Only activities that started on this day or earlier" })),
  "filters[sportType]": Schema.optional(sportTypeList),
  "filters[hasGpx]": Schema.optional(booleanParam("filters[hasGpx]")),
  "filters[search]": Schema.optional(
    Schema.String.pipe(Schema.maxLength(SEARCH_MAX_LENGTH, { message: () => `"filters[search]" cannot be longer than ${SEARCH_MAX_LENGTH} characters.` }))
      .annotations({
        description: "Only activities whose name or description contains every word, whatever the case and accents",
        jsonSchema: { type: "string", maxLength: SEARCH_MAX_LENGTH }
      })
  )
}

/**
 * The orders the list can be read in: a field of the Activity, smallest (earliest, A to Z)
 * first, or after a `-` largest first; activities that tie are in the same direction by their
 * start. The start date orders by the instant the activity started.
 */
export const ACTIVITY_SORT_FIELDS = [
  "startDateLocal", "name", "sportType", "distanceInMeter", "movingTimeInSeconds", "elevationInMeter", "averageSpeedInKmPerHour"
] as const
export type ActivitySortField = typeof ACTIVITY_SORT_FIELDS[number]
export type ActivitySort = ActivitySortField | `-${ActivitySortField}`
export const ACTIVITY_SORTS: ReadonlyArray<ActivitySort> = ACTIVITY_SORT_FIELDS.flatMap((f) => [f, `-${f}` as const])
export const ACTIVITY_SORT_DEFAULT: ActivitySort = "-startDateLocal"

const sortParam = oneOf(
  ACTIVITY_SORTS,
  (actual) => `"sort" must be one of ${ACTIVITY_SORT_FIELDS.join(", ")}, with a "-" before it for the largest or latest first, not ${actual}.`,
  {
    type: "string",
    enum: [...ACTIVITY_SORTS],
    default: ACTIVITY_SORT_DEFAULT,
    description: "The order of the list: a field, smallest (earliest, A to Z) first, or after a \"-\" largest first; ties by their start in the same direction"
  }
).pipe(Schema.optionalWith({ default: () => ACTIVITY_SORT_DEFAULT }))

export const ActivitySearchParams = bracketParams({
  ...activityFilterFields,
  "filters[gearId]": Schema.optional(Schema.String.annotations({ description: "Only activities that used this gear (its id, starts with gear-)" })),
  sort: sortParam,
  ...paginationFields
})
export type ActivitySearchParams = typeof ActivitySearchParams.Type

export const FileImportSearchParams = bracketParams({
  "filters[filename]": Schema.optional(Schema.String.annotations({ description: "Only imports of the file with exactly this name" })),
  "filters[status]": Schema.optional(commaListOf<FileImportStatus>("filters[status]", "status", FILE_IMPORT_STATUSES)),
  "filters[source]": Schema.optional(commaListOf<FileImportSource>("filters[source]", "source", FILE_IMPORT_SOURCES)),
  ...paginationFields
})
export type FileImportSearchParams = typeof FileImportSearchParams.Type

/** Most samples a client may ask of the streams: more than any activity records. */
export const MAX_STREAM_POINTS = 1_000_000

export const StreamsParams = Schema.Struct({
  points: Schema.optional(integerString("points", 2, MAX_STREAM_POINTS).annotations({
    description: "At most this many samples, thinned so that peaks and the route's shape survive; every sample when absent"
  }))
})
export type StreamsParams = typeof StreamsParams.Type

export const STATS_PERIODS = ["week", "month", "year"] as const
export type StatsPeriod = typeof STATS_PERIODS[number]

const periodMessage = `"filters[period]" is required: one of ${STATS_PERIODS.join(", ")}.`

/** The activities a statistic covers: the list's filters. */
export const StatsFilterParams = bracketParams(activityFilterFields)
export type StatsFilterParams = typeof StatsFilterParams.Type

const WORLD_TYPES = WorldType.literals

/** The heatmap's activities: the list's filters, in one world (the real one unless another is asked for). */
export const HeatmapParams = bracketParams({
  ...activityFilterFields,
  "filters[worldType]": Schema.optional(
    oneOf(WORLD_TYPES, (actual) => `"filters[worldType]" must be one of ${WORLD_TYPES.join(", ")}, not ${actual}.`).annotations({
      description: "The world whose routes are drawn: realWorld (the default) or a virtual one (zwift, rouvy, myWhoosh), whose maps are its own"
    })
  )
})
export type HeatmapParams = typeof HeatmapParams.Type

export const TotalsParams = bracketParams({
  "filters[period]": Schema.propertySignature(
    oneOf(STATS_PERIODS, () => periodMessage, {
      type: "string",
      enum: [...STATS_PERIODS],
      description: "week (ISO 8601), month or year of the local start date"
    })
  ).annotations({ missingMessage: () => periodMessage }),
  ...activityFilterFields
})
export type TotalsParams = typeof TotalsParams.Type

export const SportTypeParams = bracketParams({ "filters[sportType]": activityFilterFields["filters[sportType]"] })
export type SportTypeParams = typeof SportTypeParams.Type
