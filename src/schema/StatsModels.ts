import * as Schema from "effect/Schema"
import { SportType } from "./ApiModels.ts"

/** Response bodies of /stats: totals per period, records, the Eddington number, the heatmap. */

export const Total = Schema.Struct({
  period: Schema.String.annotations({ description: "ISO week, month or year of the local start date", examples: ["2024-W05", "2024-03", "2024"] }),
  sportType: SportType,
  count: Schema.Int.annotations({ description: "Number of activities" }),
  distanceInMeter: Schema.Int,
  movingTimeInSeconds: Schema.Int,
  elapsedTimeInSeconds: Schema.Int,
  elevationInMeter: Schema.Int
}).annotations({ identifier: "Total", description: "The sums of the activities' own (rounded) values" })
export type Total = typeof Total.Type

export const TotalList = Schema.Struct({ totals: Schema.Array(Total) }).annotations({
  identifier: "TotalList",
  description: "One item per period and sport type, newest period first"
})

export const PersonalRecord = Schema.Struct({
  discipline: Schema.Literal("run", "ride", "virtualRun", "virtualRide").annotations({
    description: "Runs outdoors (Run, TrailRun), rides outdoors (Ride, MountainBikeRide, GravelRide, EMountainBikeRide), and apart " +
      "from them treadmill or virtual runs (VirtualRun) and trainer or virtual rides (VirtualRide)"
  }),
  name: Schema.String.annotations({ examples: ["5 km", "Half marathon"] }),
  distanceInMeter: Schema.Number,
  elapsedTimeInSeconds: Schema.Int,
  activityId: Schema.String,
  sportType: SportType,
  startDateLocal: Schema.String.annotations({ description: "The activity's local start, ISO 8601 without offset" }),
  startOffsetInSeconds: Schema.Int.annotations({ description: "Seconds from the activity's start to the effort's" }),
  activityName: Schema.optionalWith(Schema.String, { exact: true }).annotations({
    description: "The name of the record's activity (in /stats/records)"
  })
}).annotations({ identifier: "PersonalRecord" })
export type PersonalRecord = typeof PersonalRecord.Type

export const RecordList = Schema.Struct({ records: Schema.Array(PersonalRecord) }).annotations({
  identifier: "RecordList",
  description: "The fastest effort over each standard distance that was covered, of the activities not kept out of the records: runs outdoors first, then rides outdoors, virtual runs and virtual rides; shortest distance first"
})

export const Eddington = Schema.Struct({
  km: Schema.Int.annotations({ description: "The largest n such that on n days the athlete covered at least n km" }),
  mi: Schema.Int.annotations({ description: "The same in miles" }),
  daysNeededForNextKm: Schema.Int.annotations({ description: "More days of at least km + 1 km needed to reach km + 1" }),
  daysNeededForNextMi: Schema.Int.annotations({ description: "More days of at least mi + 1 miles needed to reach mi + 1" })
}).annotations({ identifier: "Eddington" })
export type Eddington = typeof Eddington.Type

export const EddingtonAnswer = Schema.Struct({ eddington: Eddington }).annotations({ identifier: "EddingtonAnswer" })

export const HeatmapRoute = Schema.Struct({
  activityId: Schema.String,
  sportType: SportType,
  encodedPolyline: Schema.String.annotations({ description: "Google encoded polyline (precision 5), simplified to about 20 m" })
}).annotations({ identifier: "HeatmapRoute" })
export type HeatmapRoute = typeof HeatmapRoute.Type

export const Heatmap = Schema.Struct({ routes: Schema.Array(HeatmapRoute) }).annotations({
  identifier: "Heatmap",
  description: "The route of every activity with one, newest first"
})
