import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { WaymarkApi } from "./Api.ts"
import { HotReads } from "./HotReads.ts"

export const FileImportsHttpLive = HttpApiBuilder.group(WaymarkApi, "fileImports", (handlers) =>
  Effect.map(HotReads, (hot) => handlers.handle("search", hot.handler("fileImports.search"))))
