import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as OpenApi from "@effect/platform/OpenApi"
import { InvalidTokenWire } from "../schema/ApiErrors.ts"

/** Bearer authentication of every /api/v1 endpoint (implemented in `AuthorizationLive`). */
export class Authorization extends HttpApiMiddleware.Tag<Authorization>()("http/Authorization", {
  failure: InvalidTokenWire,
  security: {
    bearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "Send the key as `Authorization: Bearer wmk_...` (SERVICE_API_KEY)."),
      HttpApiSecurity.annotate(OpenApi.Format, "wmk_ followed by 64 hexadecimal characters")
    )
  }
}) {}
