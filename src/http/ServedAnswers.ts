import type * as HttpRouter from "@effect/platform/HttpRouter"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"

/** The answer of a GET route served beside the API: the app's response, needing nothing of the request. */
export type ServedAnswer = Effect.Effect<HttpServerResponse.HttpServerResponse>

/**
 * The GET routes served beside the API whose answer needs nothing of the request (the probes),
 * by declared path. A feature serves such a route through `get`, which gives the one answer to
 * the app's router and to the direct routes (DirectRoutes): in front of the app, the answer
 * costs no fiber of the app, no router and no middleware, and never waits in the scheduler's
 * queue behind a burst of uploads' fibers.
 */
export class ServedAnswers extends Effect.Service<ServedAnswers>()("http/ServedAnswers", {
  sync: () => {
    const answers = new Map<string, ServedAnswer>()
    return {
      /** Serves `GET path` with `answer` on the app's router and in front of it. */
      get: (router: HttpRouter.HttpRouter.Service<any, any>, path: `/${string}`, answer: ServedAnswer) =>
        Effect.zipRight(Effect.sync(() => void answers.set(path, answer)), router.get(path, answer)),
      /** The answer of a declared path, if its feature serves it through `get`. */
      answerOf: (path: string): ServedAnswer | undefined => answers.get(path)
    } as const
  }
}) {}
