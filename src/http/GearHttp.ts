import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { GearRepo } from "../services/activities/GearRepo.ts"
import { WaymarkApi } from "./Api.ts"

export const GearHttpLive = HttpApiBuilder.group(WaymarkApi, "gear", (handlers) =>
  Effect.gen(function*() {
    const gear = yield* GearRepo
    return handlers.handle("list", () => Effect.map(gear.list(), (list) => ({ gear: list })))
  })
)
