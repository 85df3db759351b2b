import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { BadRequest } from "../../schema/ApiErrors.ts"
import {
  ActivityAnalysis, earliestTrainingLoadFrom, PowerCurveAnswer, ThresholdsInput, ThresholdsList, thresholdsProblem, TrainingLoadAnswer, trainingLoadRangeProblem
} from "../../schema/TrainingModels.ts"
import { ThresholdsRepo } from "../../services/training/ThresholdsRepo.ts"
import { TrainingReads } from "../../services/training/TrainingReads.ts"
import { WaymarkApi } from "../Api.ts"
import { activityNotFound } from "../activities/ActivityDetailHttp.ts"
import { keptJson } from "../encode/keptJson.ts"
import { jsonEncoder, jsonResponder } from "../encode/jsonResponder.ts"
import { searchProblem } from "../HotReads.ts"
import { decodeBody, readJsonObject } from "../JsonBody.ts"
import { filterOf } from "../stats/StatsHttp.ts"

const decodeThresholds = decodeBody(ThresholdsInput)
const thresholdsJson = jsonResponder(ThresholdsList)
const analysisJson = jsonResponder(ActivityAnalysis)

// TrainingReads keeps the same answer until the next commit: its JSON (ten years of days are 280 KB) is written once
const powerCurveJson = keptJson(jsonEncoder(PowerCurveAnswer))
const trainingLoadJson = keptJson(jsonEncoder(TrainingLoadAnswer))

export const TrainingHttpLive = HttpApiBuilder.group(WaymarkApi, "training", (handlers) =>
  Effect.gen(function*() {
    const thresholds = yield* ThresholdsRepo
    const reads = yield* TrainingReads
    return handlers
      .handle("thresholds", () => Effect.map(thresholds.list(), (list) => thresholdsJson({ thresholds: list })))
      .handleRaw("saveThresholds", ({ request }) =>
        Effect.gen(function*() {
          const body = yield* readJsonObject(request, { onWrongContentType: "unsupportedMediaType" })
          const input = yield* decodeThresholds(body)
          const problem = thresholdsProblem(input)
          if (problem !== undefined) return yield* new BadRequest({ message: problem })
          const saved = yield* thresholds.save(input)
          return HttpServerResponse.unsafeJson(saved, { status: 200 })
        }))
      .handle("deleteThresholds", ({ path: { on } }) => Effect.asVoid(thresholds.remove(on)))
      .handle("analysis", ({ path: { activityId } }) =>
        reads.analysis(activityId).pipe(
          Effect.flatMap((found) => (found === null ? Effect.fail(activityNotFound(activityId)) : Effect.succeed(analysisJson(found))))
        ))
      .handle("powerCurve", ({ urlParams }) =>
        filterOf(urlParams).pipe(Effect.flatMap((filter) => reads.powerCurve(filter)), Effect.map(powerCurveJson)))
      .handle("trainingLoad", ({ urlParams }) =>
        Effect.gen(function*() {
          const problem = searchProblem(urlParams)
          if (problem !== undefined) return yield* new BadRequest({ message: problem })
          const to = urlParams["filters[to]"] ?? reads.today()
          const first = reads.firstDay() ?? to
          const earliest = earliestTrainingLoadFrom(to)
          const from = urlParams["filters[from]"] ?? (first > earliest ? first : earliest)
          if (from > to) return trainingLoadJson({ days: [] })
          // the schema checks a range given whole; one ending today (its default) is checked here
          const tooLong = trainingLoadRangeProblem(from, to)
          if (tooLong !== undefined) return yield* new BadRequest({ message: tooLong })
          return trainingLoadJson(yield* reads.trainingLoad(from, to))
        }))
  })
)
