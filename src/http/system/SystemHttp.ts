import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { WaymarkApi } from "../Api.ts"
import { HotReads } from "../HotReads.ts"

export const SystemHttpLive = HttpApiBuilder.group(WaymarkApi, "system", (handlers) =>
  Effect.map(HotReads, (hot) => handlers.handle("status", hot.handler("system.status"))))
