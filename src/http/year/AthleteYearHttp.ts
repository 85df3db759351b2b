import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Calendar } from "../../schema/YearCalendarModels.ts"
import { MilestoneList } from "../../schema/YearMilestoneModels.ts"
import { Streaks } from "../../schema/YearStreakModels.ts"
import { YearInReview } from "../../schema/YearInReviewModels.ts"
import { AthleteYear } from "../../services/year/AthleteYear.ts"
import { WaymarkApi } from "../Api.ts"
import { jsonResponder } from "../encode/jsonResponder.ts"

const calendarJson = jsonResponder(Calendar)
const streaksJson = jsonResponder(Streaks)
const yearJson = jsonResponder(YearInReview)
const milestonesJson = jsonResponder(MilestoneList)

export const AthleteYearHttpLive = HttpApiBuilder.group(WaymarkApi, "athleteYear", (handlers) =>
  Effect.gen(function*() {
    const year = yield* AthleteYear
    return handlers
      .handle("calendar", ({ urlParams }) =>
        Effect.map(year.calendar(urlParams["filters[month]"], urlParams["filters[sportType]"]), calendarJson))
      .handle("streaks", () => Effect.map(year.streaks(), streaksJson))
      .handle("yearInReview", ({ urlParams }) => {
        const asked = urlParams["filters[year]"]
        return Effect.map(year.yearInReview(asked === undefined ? undefined : Number(asked)), yearJson)
      })
      .handle("milestones", ({ urlParams }) => {
        const kinds = urlParams["filters[kind]"] ?? []
        const sportTypes = urlParams["filters[sportType]"] ?? []
        return Effect.map(year.milestones(), (all) =>
          milestonesJson({
            milestones: kinds.length === 0 && sportTypes.length === 0
              ? all
              : all.filter((m) => (kinds.length === 0 || kinds.includes(m.kind)) && (sportTypes.length === 0 || (m.sportType !== null && sportTypes.includes(m.sportType))))
          }))
      })
  })
)
