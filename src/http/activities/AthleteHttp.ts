import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { WeightInput } from "../../schema/ApiModels.ts"
import { WeightRepo } from "../../services/activities/WeightRepo.ts"
import { WaymarkApi } from "../Api.ts"
import { decodeBody, readJsonObject } from "../JsonBody.ts"

const decodeWeight = decodeBody(WeightInput)

export const AthleteHttpLive = HttpApiBuilder.group(WaymarkApi, "athlete", (handlers) =>
  Effect.gen(function*() {
    const weights = yield* WeightRepo
    return handlers
      .handle("weights", () => Effect.map(weights.list(), (list) => ({ weights: list })))
      .handleRaw("saveWeight", ({ request }) =>
        Effect.gen(function*() {
          const body = yield* readJsonObject(request, { onWrongContentType: "unsupportedMediaType" })
          const input = yield* decodeWeight(body)
          const saved = yield* weights.save(input)
          return HttpServerResponse.unsafeJson(saved, { status: 200 })
        })
      )
      .handle("deleteWeight", ({ path: { on } }) => weights.remove(on))
  })
)
