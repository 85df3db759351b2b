import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Status } from "../../schema/ApiModels.ts"
import { Authorization } from "../Authorization.ts"
import { HotRead } from "../HotRead.ts"

/** The status of the connection, the URL and the key (part of WaymarkApi). */

export class SystemGroup extends HttpApiGroup.make("system")
  .add(
    HttpApiEndpoint.get("status", "/status")
      .addSuccess(Status)
      .annotate(HotRead, HotRead.of({ name: "system.status", invalidatedBy: "notKept" }))
      .annotate(OpenApi.Summary, "Check the connection, the URL and the key")
  )
  .middleware(Authorization)
  .annotate(OpenApi.Title, "Status") {}
