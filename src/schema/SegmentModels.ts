import * as Schema from "effect/Schema"
import { MAX_NAME_LENGTH } from "./ActivityLimits.ts"
import { Pagination } from "./ApiModels.ts"
import { bracketParams, paginationFields, sportTypeList } from "./QueryParams.ts"
import { RIDES, RUNS, SWIMS, type SportType } from "./SportType.ts"

/**
 * Segments (a named line with a direction and a sport group, matched against every track),
 * their efforts, and the climbs of an activity: what /segments and /activities/{id}/… answer
 * and the bodies they take.
 */

export const SPORT_GROUPS = ["rides", "foot", "swims", "any"] as const
export type SportGroup = typeof SPORT_GROUPS[number]

const FOOT: ReadonlySet<SportType> = new Set([...RUNS, "Walk", "Hike", "Snowshoe"])
const GROUP_SPORTS: { readonly [G in Exclude<SportGroup, "any">]: ReadonlySet<SportType> } = {
  rides: new Set([...RIDES, "EBikeRide", "Velomobile", "Handcycle"]),
  foot: FOOT,
  swims: SWIMS
}

/** Whether an activity of this sport type may make an effort on a segment of this group. */
export const inSportGroup = (group: SportGroup, sportType: string) => group === "any" || GROUP_SPORTS[group].has(sportType as SportType)

/** The group a segment cut from an activity of this sport type belongs to. */
export const sportGroupOf = (sportType: string): SportGroup =>
  (Object.keys(GROUP_SPORTS) as Array<Exclude<SportGroup, "any">>).find((g) => GROUP_SPORTS[g].has(sportType as SportType)) ?? "any"

/** The shortest and longest segment, metres. */
export const SEGMENT_LENGTH = { min: 100, max: 200_000 } as const

export const LatLngPair = Schema.Tuple(Schema.Number, Schema.Number).annotations({ identifier: "LatLng", description: "[latitude, longitude] in degrees" })

const PersonalRecord = Schema.Literal("personalRecord", "second", "third")
export type PersonalRecord = typeof PersonalRecord.Type

export const SegmentEffort = Schema.Struct({
  id: Schema.String.annotations({ description: "Prefixed id, starts with segmentEffort-" }),
  segmentId: Schema.String,
  segmentName: Schema.String,
  activityId: Schema.String,
  activityName: Schema.String,
  sportType: Schema.String,
  startDate: Schema.String.annotations({ description: "When the start gate was passed, ISO 8601 UTC" }),
  startDateLocal: Schema.String.annotations({ description: "The activity's start on the athlete's clock, YYYY-MM-DDTHH:mm:ss" }),
  startOffsetInSeconds: Schema.Int.annotations({ description: "Seconds from the activity's start to the start gate" }),
  elapsedTimeInSeconds: Schema.Int.annotations({ description: "Between the gate crossings, interpolated between samples" }),
  movingTimeInSeconds: Schema.Int,
  startDistanceInMeter: Schema.Number.annotations({ description: "The activity's distance at the start gate" }),
  endDistanceInMeter: Schema.Number,
  averageSpeedInKmPerHour: Schema.Number.annotations({ description: "The segment's distance over the elapsed time" }),
  averageHeartRate: Schema.NullOr(Schema.Number),
  averagePower: Schema.NullOr(Schema.Number),
  averageCadence: Schema.NullOr(Schema.Number),
  rank: Schema.Int.annotations({
    description: "Its place among the athlete's efforts on the segment by elapsed time: in a segment's list among all of them, in an activity's list among those up to its date"
  }),
  effortsAtDate: Schema.Int.annotations({ description: "How many efforts the segment had up to this one's date (this one included)" }),
  personalRecord: Schema.NullOr(PersonalRecord).annotations({ description: "Whether it was the best, second or third effort on the segment when it was ridden" })
}).annotations({ identifier: "SegmentEffort" })
export type SegmentEffort = typeof SegmentEffort.Type

export const SegmentMatching = Schema.Struct({
  status: Schema.Literal("matching", "done"),
  checkedActivities: Schema.Int,
  totalActivities: Schema.Int.annotations({ description: "Activities whose track may pass it (their bounding boxes meet its own)" })
}).annotations({ identifier: "SegmentMatching", description: "Its matching against the stored history, done in the background after it is made" })

export const Segment = Schema.Struct({
  id: Schema.String.annotations({ description: "Prefixed id, starts with segment-" }),
  name: Schema.String,
  sportGroup: Schema.Literal(...SPORT_GROUPS),
  distanceInMeter: Schema.Number,
  averageGrade: Schema.NullOr(Schema.Number).annotations({ description: "% from its first to its last point; null without altitude" }),
  elevationGainInMeter: Schema.NullOr(Schema.Number),
  startLatlng: LatLngPair,
  endLatlng: LatLngPair,
  effortCount: Schema.Int,
  bestEffort: Schema.NullOr(SegmentEffort),
  lastEffort: Schema.NullOr(SegmentEffort),
  matching: SegmentMatching,
  createdAt: Schema.String.annotations({ description: "ISO 8601 UTC" })
}).annotations({ identifier: "Segment" })
export type Segment = typeof Segment.Type

export const SegmentDetail = Schema.Struct({
  ...Segment.fields,
  points: Schema.Array(LatLngPair).annotations({ description: "Its line, one point every 10 m" }),
  altitudes: Schema.NullOr(Schema.Array(Schema.Number)).annotations({ description: "The altitude at each point, metres, where known" })
}).annotations({ identifier: "SegmentDetail" })
export type SegmentDetail = typeof SegmentDetail.Type

export const SegmentList = Schema.Struct({ segments: Schema.Array(Segment) }).annotations({ identifier: "SegmentList", description: "Newest first" })
export const SegmentEffortList = Schema.Struct({ efforts: Schema.Array(SegmentEffort) }).annotations({ identifier: "SegmentEffortList" })
export const SegmentEffortPage = Schema.Struct({ efforts: Schema.Array(SegmentEffort), pagination: Pagination }).annotations({ identifier: "SegmentEffortPage" })
export type SegmentEffortPage = typeof SegmentEffortPage.Type

export const CLIMB_CATEGORY = Schema.Literal("4", "3", "2", "1", "HC")

export const Climb = Schema.Struct({
  category: CLIMB_CATEGORY.annotations({ description: "Strava's: by score, above 8,000 category 4, 16,000 3, 32,000 2, 64,000 1, 80,000 HC" }),
  score: Schema.Int.annotations({ description: "Length in metres × average grade in %" }),
  startDistanceInMeter: Schema.Number,
  endDistanceInMeter: Schema.Number,
  lengthInMeter: Schema.Number,
  elevationGainInMeter: Schema.Number,
  startAltitudeInMeter: Schema.Number,
  endAltitudeInMeter: Schema.Number,
  averageGrade: Schema.Number,
  maxGrade: Schema.Number.annotations({ description: "The steepest 100 m, %" }),
  startOffsetInSeconds: Schema.NullOr(Schema.Int),
  elapsedTimeInSeconds: Schema.NullOr(Schema.Int),
  vam: Schema.NullOr(Schema.Int).annotations({ description: "Metres climbed an hour" })
}).annotations({ identifier: "Climb" })
export type Climb = typeof Climb.Type

export const ClimbList = Schema.Struct({ climbs: Schema.Array(Climb) }).annotations({
  identifier: "ClimbList",
  description: "At least 300 m at 3 % on average, from smoothed altitude; in the activity's order"
})

// ---------------------------------------------------------------------------------------
// Request bodies

const segmentName = Schema.compose(Schema.String.annotations({ message: () => '"name" must be a string.' }), Schema.Trim).pipe(
  Schema.minLength(1, { message: () => '"name" cannot be empty.' }),
  Schema.maxLength(MAX_NAME_LENGTH, { message: () => `"name" cannot be longer than ${MAX_NAME_LENGTH} characters.` })
)

const sportGroup = Schema.Literal(...SPORT_GROUPS).annotations({ message: () => `"sportGroup" must be one of ${SPORT_GROUPS.join(", ")}.` })
const finite = (name: string) => Schema.Number.annotations({ message: () => `"${name}" must be a number.` }).pipe(Schema.finite({ message: () => `"${name}" must be a number.` }))

export const SegmentCreate = Schema.Struct({
  name: segmentName,
  sportGroup: Schema.optional(sportGroup).annotations({ description: "Which activities it matches; by default the activity's group for a stretch, else any" }),
  activityId: Schema.optional(Schema.String.annotations({ message: () => '"activityId" must be a string.' })),
  fromDistanceInMeter: Schema.optional(finite("fromDistanceInMeter")),
  toDistanceInMeter: Schema.optional(finite("toDistanceInMeter")),
  points: Schema.optional(Schema.Array(Schema.Array(Schema.Number)).annotations({ message: () => '"points" must be a list of [latitude, longitude].' })),
  gpx: Schema.optional(Schema.String.annotations({ message: () => '"gpx" must be the text of a GPX file.' })),
  geojson: Schema.optional(Schema.Unknown)
}).annotations({
  identifier: "SegmentCreate",
  description: "One of: a stretch of an activity (activityId, fromDistanceInMeter, toDistanceInMeter); points ([[lat, lon], …]); a GPX file's text (gpx: its track or route); a GeoJSON LineString, or a Feature of one (geojson)"
})
export type SegmentCreate = typeof SegmentCreate.Type

export const SegmentUpdate = Schema.Struct({
  name: Schema.optional(segmentName),
  sportGroup: Schema.optional(sportGroup)
}).annotations({ identifier: "SegmentUpdate" })
export type SegmentUpdate = typeof SegmentUpdate.Type

export const ClimbSegmentCreate = Schema.Struct({
  name: Schema.optional(segmentName)
}).annotations({ identifier: "ClimbSegmentCreate" })

const yearMessage = '"filters[year]" must be a year in YYYY format.'
export const SegmentEffortParams = bracketParams({
  "filters[year]": Schema.optional(
    Schema.String.annotations({ message: () => yearMessage }).pipe(Schema.filter((s) => /^\d{4}$/.test(s), { message: () => yearMessage }))
  ),
  "filters[sportType]": Schema.optional(sportTypeList),
  sort: Schema.optional(Schema.Literal("time", "date").annotations({ message: () => '"sort" must be time or date.' })),
  ...paginationFields
})
export type SegmentEffortParams = typeof SegmentEffortParams.Type

export const SegmentListParams = bracketParams({
  "filters[name]": Schema.optional(Schema.String)
})
export type SegmentListParams = typeof SegmentListParams.Type
