import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"

/** The answer of a GET route served beside the API: the app's response, needing nothing of the request. */
export type ServedAnswer = Effect.Effect<HttpServerResponse.HttpServerResponse>

/** The request as a served answer reads it: its path's parameters and its headers (lower-case names). */
export interface ServedRequest {
  readonly params: Readonly<Record<string, string | undefined>>
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
}

/**
 * The answer of a GET route served beside the API from its path's parameters and headers. A
 * response is itself an effect: one returned as is (a map tile kept in memory) is written at
 * once, without a fiber.
 */
export type RequestAnswer = (request: ServedRequest) => ServedAnswer

/**
 * The GET routes served beside the API whose answer needs no more of the request than its
 * path's parameters and its headers (the probes, the map tiles), by declared path. A feature
 * serves such a route through `get` or `getWith`, which give the one answer to the app's router
 * and to the direct routes (DirectRoutes): in front of the app, the answer costs no fiber of the
 * app, no router and no middleware, and never waits in the scheduler's queue behind a burst of
 * uploads' fibers.
 */
export class ServedAnswers extends Effect.Service<ServedAnswers>()("http/ServedAnswers", {
  sync: () => {
    const answers = new Map<string, RequestAnswer>()
    const getWith = (router: HttpRouter.HttpRouter.Service<any, any>, path: `/${string}`, answer: RequestAnswer) =>
      Effect.zipRight(
        Effect.sync(() => void answers.set(path, answer)),
        router.get(
          path,
          Effect.flatMap(
            Effect.all([HttpRouter.params, HttpServerRequest.HttpServerRequest]),
            ([params, request]) => answer({ params, headers: request.headers })
          )
        )
      )
    return {
      /** Serves `GET path` with `answer` on the app's router and in front of it. */
      get: (router: HttpRouter.HttpRouter.Service<any, any>, path: `/${string}`, answer: ServedAnswer) => getWith(router, path, () => answer),
      /** Serves `GET path` with the answer to its parameters and headers, on the app's router and in front of it. */
      getWith,
      /** The answer of a declared path, if its feature serves it through `get` or `getWith`. */
      answerOf: (path: string): RequestAnswer | undefined => answers.get(path)
    } as const
  }
}) {}
