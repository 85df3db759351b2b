import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { AppConfig } from "../services/platform/AppConfig.ts"
import { VERSION } from "../version.ts"
import { WaymarkApi } from "./Api.ts"

export const SystemHttpLive = HttpApiBuilder.group(WaymarkApi, "system", (handlers) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const status = { app: "waymark", version: `v${VERSION}`, canUpload: config.importMode === "files" } as const
    return handlers.handle("status", () => Effect.succeed(status))
  })
)
