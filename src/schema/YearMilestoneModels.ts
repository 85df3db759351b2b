import * as Schema from "effect/Schema"
import { SportType } from "./ApiModels.ts"
import { LocalDate } from "./LocalDate.ts"

/** Response of /milestones: what the activities achieved, derived from them on every request. */

export const MILESTONE_KINDS = ["firstOfSportType", "distanceMark", "record", "eddington", "firstInCountry", "longestOfSportType", "segmentRecord"] as const
export type MilestoneKind = typeof MILESTONE_KINDS[number]

export const Milestone = Schema.Struct({
  on: LocalDate("Local date of the activity that made it"),
  kind: Schema.Literal(...MILESTONE_KINDS).annotations({
    description: "firstOfSportType: the first activity of a sport type; distanceMark: a cumulative distance passed (100, 250, 500, 1,000 … " +
      "km, or miles with UNIT_SYSTEM=imperial) per sport type and over all; record: a faster best effort over a standard distance " +
      "than any before, runs and rides apart (the first one included); eddington: an Eddington number reached, per sport type and " +
      "over all; firstInCountry: the first activity started in or passing through a country; longestOfSportType: an activity " +
      "longer than every one before of its sport type; segmentRecord: an effort on a segment faster than every one before on it (the first included)"
  }),
  title: Schema.String.annotations({ examples: ["1,000 km in total", "New 5 km run record: 21:47", "First activity in France"] }),
  activityId: Schema.String.annotations({ description: "The activity that made it" }),
  sportType: Schema.NullOr(SportType).annotations({ description: "The sport type it belongs to; null for a mark over all sports or a country" }),
  value: Schema.Union(Schema.Number, Schema.String, Schema.Null).annotations({
    description: "distanceMark: the mark in metres; record: the effort's time in seconds; eddington: the number reached; " +
      "firstInCountry: the country (ISO 3166-1 alpha-2, lowercased); longestOfSportType: the distance in metres; segmentRecord: the effort's time in seconds; firstOfSportType: null"
  })
}).annotations({ identifier: "Milestone" })
export type Milestone = typeof Milestone.Type

export const MilestoneList = Schema.Struct({ milestones: Schema.Array(Milestone) }).annotations({
  identifier: "MilestoneList",
  description: "Newest first; what one activity made in the order it made it, last first"
})
