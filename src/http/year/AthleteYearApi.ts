import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { BadRequest } from "../../schema/ApiErrors.ts"
import { Calendar } from "../../schema/YearCalendarModels.ts"
import { MilestoneList } from "../../schema/YearMilestoneModels.ts"
import { Streaks } from "../../schema/YearStreakModels.ts"
import { CalendarParams, MilestoneParams, YearInReviewParams } from "../../schema/YearParams.ts"
import { YearInReview } from "../../schema/YearInReviewModels.ts"
import { Authorization } from "../Authorization.ts"

/** The athlete's year: a month at a glance, streaks, milestones and the year in review (part of WaymarkApi). */
export class AthleteYearGroup extends HttpApiGroup.make("athleteYear")
  .add(
    HttpApiEndpoint.get("calendar", "/stats/calendar")
      .setUrlParams(CalendarParams)
      .addSuccess(Calendar)
      .addError(BadRequest.wire)
      .annotate(OpenApi.Summary, "A month day by day: each day's activities and sums, each week's sums (Monday to Sunday) and the month's")
  )
  .add(
    HttpApiEndpoint.get("streaks", "/stats/streaks")
      .addSuccess(Streaks)
      .annotate(OpenApi.Summary, "The current and the longest run of consecutive days and of ISO weeks with an activity, overall and per sport type")
  )
  .add(
    HttpApiEndpoint.get("yearInReview", "/stats/year-in-review")
      .setUrlParams(YearInReviewParams)
      .addSuccess(YearInReview)
      .addError(BadRequest.wire)
      .annotate(OpenApi.Summary, "A year looked back on: totals, highlights, habits, countries, streak, records, commutes, the year before")
  )
  .add(
    HttpApiEndpoint.get("milestones", "/milestones")
      .setUrlParams(MilestoneParams)
      .addSuccess(MilestoneList)
      .addError(BadRequest.wire)
      .annotate(OpenApi.Summary, "What the activities achieved, newest first: firsts, distance marks, records, Eddington numbers, countries, longest")
      .annotate(
        OpenApi.Description,
        "Derived from the activities on every request: deleting an activity (or changing its sport type) removes what it made."
      )
  )
  .middleware(Authorization)
  .annotate(OpenApi.Title, "The athlete's year") {}
