import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { BadRequest } from "../schema/ApiErrors.ts"
import { isCalendarDate } from "../schema/QueryParams.ts"
import { WeightRepo } from "../services/activities/WeightRepo.ts"
import { WaymarkApi } from "./Api.ts"
import { readJsonObject, rejectUnknownFields } from "./JsonBody.ts"

export const MAX_WEIGHT = 1000

export const AthleteHttpLive = HttpApiBuilder.group(WaymarkApi, "athlete", (handlers) =>
  Effect.gen(function*() {
    const weights = yield* WeightRepo
    return handlers
      .handle("weights", () => Effect.map(weights.list(), (list) => ({ weights: list })))
      .handleRaw("saveWeight", ({ request }) =>
        Effect.gen(function*() {
          const body = yield* readJsonObject(request, { onWrongContentType: "unsupportedMediaType" })
          yield* rejectUnknownFields(body, ["weight", "on"])
          if (body.on === undefined || body.on === null) return yield* new BadRequest({ message: '"on" is required.' })
          if (typeof body.on !== "string" || !isCalendarDate(body.on)) {
            return yield* new BadRequest({ message: '"on" must be a date in YYYY-MM-DD format.' })
          }
          if (typeof body.weight !== "number" || !Number.isFinite(body.weight) || body.weight <= 0 || body.weight > MAX_WEIGHT) {
            return yield* new BadRequest({ message: `"weight" must be a number above 0 and at most ${MAX_WEIGHT}.` })
          }
          const saved = yield* weights.save({ on: body.on, weight: body.weight })
          return HttpServerResponse.unsafeJson(saved, { status: 200 })
        })
      )
      .handle("deleteWeight", ({ path: { on } }) => weights.remove(on))
  })
)
