import * as HttpServer from "@effect/platform/HttpServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Supervisor } from "../services/platform/Supervisor.ts"

/**
 * The HTTP server as an entry of the supervision tree: it has no loop of its own (node's
 * listener answers each request in a fiber of its own), so it is `running` from the moment
 * the listener is bound until shutdown closes it.
 */
export const HttpServerRegistrationLive = Layer.scopedDiscard(Effect.gen(function*() {
  yield* HttpServer.HttpServer
  const supervisor = yield* Supervisor
  yield* Effect.acquireRelease(supervisor.register("HttpServer"), (fiber) => fiber.stopped)
}))
