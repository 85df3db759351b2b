import * as Schema from "effect/Schema"

/** The owner's view of what share links show of an activity's track, to draw what they hide. */
export const ShareTrack = Schema.Struct({
  hasPositions: Schema.Boolean.annotations({ description: "False for an activity without positions: links show its totals and no map" }),
  segments: Schema.Array(Schema.Array(Schema.Tuple(Schema.Number, Schema.Number))).annotations({
    description: "The visible track as runs of [latitude, longitude]; everything else of the route is hidden from links"
  }),
  distanceInMeter: Schema.Number.annotations({ description: "The distance links show" }),
  timeInSeconds: Schema.NullOr(Schema.Number).annotations({ description: "The time links show" })
}).annotations({ identifier: "ShareTrack" })
export type ShareTrack = typeof ShareTrack.Type
