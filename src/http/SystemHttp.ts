import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Status } from "../schema/ApiModels.ts"
import { AppConfig } from "../services/platform/AppConfig.ts"
import { VERSION } from "../version.ts"
import { WaymarkApi } from "./Api.ts"
import { jsonResponder } from "./encode/jsonResponder.ts"

export const SystemHttpLive = HttpApiBuilder.group(WaymarkApi, "system", (handlers) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    // the same answer for the life of the process: built once
    const status = Effect.succeed(jsonResponder(Status)({ app: "waymark", version: `v${VERSION}`, canUpload: config.importMode === "files" }))
    return handlers.handle("status", () => status)
  })
)
