import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { InvalidToken, TooManyRequests } from "../schema/ApiErrors.ts"

/** Bearer authentication of every /api/v1 endpoint (implemented in `AuthorizationLive`). */
export class Authorization extends HttpApiMiddleware.Tag<Authorization>()("http/Authorization", {
  // a wrong key is answered 401, slowed down, and 429 once too many came from the address (WrongKeys)
  failure: Schema.Union(InvalidToken.wire, TooManyRequests.wire),
  security: {
    bearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "Send the key as `Authorization: Bearer wmk_...` (SERVICE_API_KEY)."),
      HttpApiSecurity.annotate(OpenApi.Format, "wmk_ followed by 64 hexadecimal characters")
    )
  }
}) {}
