import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Status } from "../schema/ApiModels.ts"
import { AppConfig, type AppConfigShape } from "../services/platform/AppConfig.ts"
import { VERSION } from "../version.ts"
import { WaymarkApi } from "./Api.ts"
import { jsonResponder } from "./encode/jsonResponder.ts"

/** The answer of `GET /status`: the same for the life of the process. */
export const statusOf = (config: AppConfigShape): Status => ({ app: "waymark", version: `v${VERSION}`, canUpload: config.importMode === "files" })

export const SystemHttpLive = HttpApiBuilder.group(WaymarkApi, "system", (handlers) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const status = Effect.succeed(jsonResponder(Status)(statusOf(config)))
    return handlers.handle("status", () => status)
  })
)
