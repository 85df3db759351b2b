import * as Schema from "effect/Schema"
import { StrokeType } from "./SwimStroke.ts"

/** Response bodies of an activity's detail: its streams, laps, splits and best efforts. */

const numbers = (description: string) => Schema.optional(Schema.Array(Schema.NullOr(Schema.Number)).annotations({ description }))

export const Streams = Schema.Struct({
  streams: Schema.Struct({
    time: numbers("Seconds since the start; absent when the activity's times are unknown (hasTimes false)"),
    distance: numbers("Metres since the start"),
    latlng: Schema.optional(Schema.Array(Schema.NullOr(Schema.Tuple(Schema.Number, Schema.Number))).annotations({
      description: "[latitude, longitude]; null where the position is unknown"
    })),
    altitude: numbers("Metres above sea level"),
    velocity: numbers("Metres per second"),
    heartrate: numbers("Beats per minute"),
    cadence: numbers("Steps per minute on foot (runs, walks, hikes), strokes per minute for swims and rows, revolutions per minute otherwise"),
    watts: numbers("Power in watts"),
    temperature: numbers("Degrees Celsius")
  }).annotations({ description: "Only the recorded streams; every array has one entry per sample" })
}).annotations({ identifier: "ActivityStreams" })
export type Streams = typeof Streams.Type

/** The streams the API shows, in the order of its answer. */
export const STREAM_NAMES = Object.keys(Streams.fields.streams.fields) as ReadonlyArray<keyof Streams["streams"]>

export const Lap = Schema.Struct({
  lapIndex: Schema.Int.annotations({ description: "1 for the first lap" }),
  name: Schema.String,
  startOffsetInSeconds: Schema.Int.annotations({ description: "Seconds from the activity's start to the lap's" }),
  distanceInMeter: Schema.Number,
  elevationInMeter: Schema.Number,
  movingTimeInSeconds: Schema.Int,
  elapsedTimeInSeconds: Schema.Int,
  averageSpeedInKmPerHour: Schema.Number,
  maxSpeedInKmPerHour: Schema.Number,
  averageHeartRate: Schema.NullOr(Schema.Int),
  strokes: Schema.NullOr(Schema.Int).annotations({ description: "A swim lap's strokes, where the device counted them" }),
  numberOfLengths: Schema.NullOr(Schema.Int).annotations({ description: "A pool swim lap's lengths swum (0 for a rest)" }),
  swolf: Schema.NullOr(Schema.Int).annotations({ description: "A pool swim lap's SWOLF: seconds plus strokes per length, averaged over its lengths" }),
  strokeType: Schema.NullOr(StrokeType).annotations({ description: "A swim lap's stroke, where recorded (mixed when its lengths differ)" })
}).annotations({
  identifier: "Lap",
  description: "The laps run from the activity's start to its end, one after the other: their elapsed times add up to the activity's"
})
export type Lap = typeof Lap.Type

export const LapList = Schema.Struct({ laps: Schema.Array(Lap) }).annotations({ identifier: "LapList" })

export const Split = Schema.Struct({
  unit: Schema.Literal("km", "mile", "100m", "100yd").annotations({
    description: "A split of one kilometre or of one mile, for a swim of 100 metres or of 100 yards (the last one may be shorter)"
  }),
  splitIndex: Schema.Int.annotations({ description: "1 for the first split of its unit" }),
  distanceInMeter: Schema.Number,
  elevationDifferenceInMeter: Schema.Number,
  movingTimeInSeconds: Schema.Int,
  elapsedTimeInSeconds: Schema.Int,
  averageSpeedInKmPerHour: Schema.Number,
  averageHeartRate: Schema.NullOr(Schema.Int)
}).annotations({ identifier: "Split" })
export type Split = typeof Split.Type

export const SplitList = Schema.Struct({ splits: Schema.Array(Split) }).annotations({
  identifier: "SplitList",
  description: "Kilometre splits first, then mile splits; for a swim, 100 m splits, then 100 yd splits"
})

export const Length = Schema.Struct({
  lengthIndex: Schema.Int.annotations({ description: "1 for the first length swum" }),
  lapIndex: Schema.Int.annotations({ description: "The lap it was swum in" }),
  startOffsetInSeconds: Schema.Int.annotations({ description: "Seconds from the activity's start to the length's" }),
  elapsedTimeInSeconds: Schema.Int,
  distanceInMeter: Schema.Number.annotations({ description: "The pool's length" }),
  averageSpeedInKmPerHour: Schema.Number,
  strokes: Schema.NullOr(Schema.Int),
  strokeType: Schema.NullOr(StrokeType),
  swolf: Schema.NullOr(Schema.Int).annotations({ description: "Seconds plus strokes; null without strokes" })
}).annotations({ identifier: "Length" })
export type Length = typeof Length.Type

export const LengthList = Schema.Struct({ lengths: Schema.Array(Length) }).annotations({
  identifier: "LengthList",
  description: "A pool swim's lengths, in order (the rests between them left out); empty for any other activity"
})

export const BestEffort = Schema.Struct({
  name: Schema.String.annotations({ examples: ["5 km", "1 mile", "Half marathon"] }),
  distanceInMeter: Schema.Number,
  elapsedTimeInSeconds: Schema.Int.annotations({ description: "The fastest time over the distance within the activity" }),
  startOffsetInSeconds: Schema.Int.annotations({ description: "Seconds from the activity's start to the effort's" }),
  endOffsetInSeconds: Schema.Int.annotations({ description: "Seconds from the activity's start to the effort's end" })
}).annotations({ identifier: "BestEffort" })
export type BestEffort = typeof BestEffort.Type

export const BestEffortList = Schema.Struct({ bestEfforts: Schema.Array(BestEffort) }).annotations({
  identifier: "BestEffortList",
  description: "Shortest distance first"
})
