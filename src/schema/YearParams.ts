import * as Schema from "effect/Schema"
import { MILESTONE_KINDS, type MilestoneKind } from "./YearMilestoneModels.ts"
import { bracketParams, commaListOf, sportTypeList } from "./QueryParams.ts"

/** Query parameters of the athlete's year: the calendar's month, the year in review's year, the milestones' kinds. */

const FIRST_YEAR = 1900
const LAST_YEAR = 2999

const monthMessage = `"filters[month]" must be a month in YYYY-MM format, from ${FIRST_YEAR}-01.`
const yearMessage = `"filters[year]" must be a year in YYYY format, from ${FIRST_YEAR} to ${LAST_YEAR}.`

const isMonth = (s: string) => /^\d{4}-(0[1-9]|1[0-2])$/.test(s) && Number(s.slice(0, 4)) >= FIRST_YEAR
const isYear = (s: string) => /^\d{4}$/.test(s) && Number(s) >= FIRST_YEAR && Number(s) <= LAST_YEAR

export const CalendarParams = bracketParams({
  "filters[month]": Schema.optional(
    Schema.String.annotations({ message: () => monthMessage }).pipe(Schema.filter(isMonth, { message: () => monthMessage })).annotations({
      jsonSchema: { type: "string", pattern: "^\\d{4}-(0[1-9]|1[0-2])$", description: "The month, YYYY-MM; when left out, the month of the latest activity up to today where the service runs (its TZ), or this month when there is none" }
    })
  ),
  "filters[sportType]": Schema.optional(sportTypeList)
})
export type CalendarParams = typeof CalendarParams.Type

export const YearInReviewParams = bracketParams({
  "filters[year]": Schema.optional(
    Schema.String.annotations({ message: () => yearMessage }).pipe(Schema.filter(isYear, { message: () => yearMessage })).annotations({
      jsonSchema: { type: "string", pattern: "^\\d{4}$", description: "The year, YYYY; when left out, the year of the latest activity up to today where the service runs (its TZ), or this year when there is none" }
    })
  )
})
export type YearInReviewParams = typeof YearInReviewParams.Type

export const MilestoneParams = bracketParams({
  "filters[kind]": Schema.optional(commaListOf<MilestoneKind>("filters[kind]", "kind of milestone", MILESTONE_KINDS)),
  "filters[sportType]": Schema.optional(sportTypeList.annotations({
    description: "Only the milestones of these sport types (the marks over all sports and the countries left out)"
  }))
})
export type MilestoneParams = typeof MilestoneParams.Type
