import * as Context from "effect/Context"

/**
 * What makes a hot read's answer stale: the next commit to the database (the answer is kept,
 * by URL, until then), or `notKept` for a read of more than the database (the watch folder,
 * the map's tiles), which no commit tells has changed: it is read on every request.
 */
export type Invalidation = "commit" | "notKept"

/** A hot read as its endpoint declares it. */
export interface HotReadSpec {
  /** `<group>.<endpoint>`: the key of its synchronous handler in HotReads */
  readonly name: string
  readonly invalidatedBy: Invalidation
}

/**
 * Annotation of an endpoint of the HttpApi whose answer is a synchronous read over the
 * ReadConnection (HotReads). Both ways in read it: the app's handler of the endpoint is the
 * read's, and the direct routes (DirectRoutes) answer the endpoints so annotated in front of
 * the app; the route, parameters, authorization, errors and the answers kept are declared on the
 * endpoint and nowhere else.
 */
export class HotRead extends Context.Tag("http/HotRead")<HotRead, HotReadSpec>() {}
