import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { BadRequest } from "../../schema/ApiErrors.ts"
import type { StatsFilterParams } from "../../schema/QueryParams.ts"
import { EddingtonAnswer, Heatmap, RecordList, TotalList } from "../../schema/StatsModels.ts"
import { type ActivityFilter, Stats } from "../../services/stats/Stats.ts"
import { searchProblem } from "../HotReads.ts"
import { WaymarkApi } from "../Api.ts"
import { jsonResponder } from "../encode/jsonResponder.ts"

const totalsJson = jsonResponder(TotalList)
const recordsJson = jsonResponder(RecordList)
const eddingtonJson = jsonResponder(EddingtonAnswer)
const heatmapJson = jsonResponder(Heatmap)

/** The activities a statistic covers, as the list selects them; a 400 for a range that ends before it starts. */
export const filterOf = (params: StatsFilterParams): Effect.Effect<ActivityFilter, BadRequest> => {
  const problem = searchProblem(params)
  if (problem !== undefined) return Effect.fail(new BadRequest({ message: problem }))
  return Effect.succeed({
    from: params["filters[from]"],
    to: params["filters[to]"],
    sportTypes: params["filters[sportType]"],
    hasGpx: params["filters[hasGpx]"],
    search: params["filters[search]"]
  })
}

export const StatsHttpLive = HttpApiBuilder.group(WaymarkApi, "stats", (handlers) =>
  Effect.gen(function*() {
    const stats = yield* Stats
    return handlers
      .handle("totals", ({ urlParams }) =>
        filterOf(urlParams).pipe(
          Effect.flatMap((filter) => stats.totals(urlParams["filters[period]"], filter)),
          Effect.map((totals) => totalsJson({ totals }))
        ))
      .handle("records", ({ urlParams }) =>
        Effect.map(stats.records(urlParams["filters[sportType]"]), (records) => recordsJson({ records })))
      .handle("eddington", ({ urlParams }) =>
        Effect.map(stats.eddington(urlParams["filters[sportType]"]), (eddington) => eddingtonJson({ eddington })))
      .handle("heatmap", ({ urlParams }) =>
        filterOf(urlParams).pipe(
          Effect.flatMap((filter) => stats.heatmap(filter, urlParams["filters[worldType]"] ?? "realWorld")),
          Effect.map((routes) => heatmapJson({ routes }))
        ))
  })
)
