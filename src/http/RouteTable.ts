import * as HttpApi from "@effect/platform/HttpApi"
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import type * as HttpRouter from "@effect/platform/HttpRouter"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as FindMyWay from "find-my-way-ts"
import { AppConfig } from "../services/platform/AppConfig.ts"
import { WaymarkApi } from "./Api.ts"
import { BodyLimit, DEFAULT_LIMIT, type Limit, limitOf, MAX_JSON_BODY, type UploadSizes } from "./BodyLimits.ts"
import { HotRead, type HotReadSpec } from "./HotRead.ts"

/**
 * Every route the daemon answers, known once: the endpoints of the HttpApi (reflected from its
 * declaration) and the routes served beside it (the probes, the OpenAPI document, the image
 * files, the dashboard, the metrics, a connector's webhook), which their features declare and
 * the composition registers. One router of the app's kind (find-my-way, with the app's
 * options) answers from it:
 * - the listener's body limits (an endpoint's `BodyLimit` annotation, a served route's
 *   `maxBodyBytes`, else MAX_JSON_BODY), before the body is read;
 * - the fast path's reads (the endpoints annotated `HotRead`, with their schemas and
 *   authorization);
 * - the methods a path allows (405 and its Allow header);
 * - the route a request is counted under in the metrics (a bounded set of labels).
 * The app's router may serve nothing else: a route it holds that the table does not name
 * stops the start (`checkServed`).
 */

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE"

/** A route served beside the HttpApi, as its feature declares it. */
export interface ServedRoute {
  readonly method: Method
  /** the router's syntax: `/files/activities/:name` */
  readonly path: `/${string}`
  /** bytes its body may have, read before the handler; MAX_JSON_BODY when absent */
  readonly maxBodyBytes?: number
}

/**
 * Routes a feature serves beside the API: what the table registers, and the layer that adds
 * their handlers to the app's router (`HttpApiBuilder.Router.use`). A plain object, so that a
 * connector declares its routes without depending on this module.
 */
export interface ServedRoutes<E = never, R = never> {
  readonly routes: ReadonlyArray<ServedRoute>
  readonly live: Layer.Layer<never, E, R>
}

/** Every served feature's layer as one. */
export const servedLive = <const S extends ReadonlyArray<ServedRoutes<any, any>>>(
  served: S
): Layer.Layer<never, Layer.Layer.Error<S[number]["live"]>, Layer.Layer.Context<S[number]["live"]>> =>
  served.reduce<Layer.Layer<never, any, any>>((all, feature) => Layer.merge(all, feature.live), Layer.empty)

export interface Route {
  readonly method: Method
  /** as declared, parameters as `:name`: the span's `http.route` and the metrics' label */
  readonly path: string
  readonly limit: Limit
  /** the endpoint of the HttpApi; none for a route served beside it */
  readonly endpoint: Option.Option<HttpApiEndpoint.HttpApiEndpoint.AnyWithProps>
  /** the endpoint's middleware (the bearer authorization) */
  readonly middleware: ReadonlySet<unknown>
  /** the endpoint's HotRead annotation: answered in front of the app (DirectRoutes) */
  readonly hotRead: Option.Option<HotReadSpec>
}

export type Found = FindMyWay.FindResult<Route>

export interface RouteTableShape {
  readonly routes: ReadonlyArray<Route>
  /** The route of a request (a HEAD request finds the GET route, as the app's router does). */
  readonly find: (method: string, url: string) => Found | undefined
  /** The methods that have a route at `path`. */
  readonly allowedMethods: (path: string) => ReadonlyArray<Method>
  /** The body limit of a request: its route's, else MAX_JSON_BODY. */
  readonly limitOf: (method: string, url: string) => Limit
  /** The route a request is counted under: its declared path, or `other` for a path no route has. */
  readonly labelOf: (method: string, url: string, found?: Found) => string
  /** Fails (a defect, at start) naming a route of the app's router that the table does not hold. */
  readonly checkServed: (served: Iterable<HttpRouter.Route<any, any>>) => void
}

const METHODS: ReadonlyArray<Method> = ["GET", "POST", "PUT", "PATCH", "DELETE"]

const isMethod = (method: string): method is Method => (METHODS as ReadonlyArray<string>).includes(method)

/** The routes of the API's endpoints, in the order of their declaration. */
const apiRoutes = (sizes: UploadSizes): Array<Route> => {
  const routes: Array<Route> = []
  HttpApi.reflect(WaymarkApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, middleware }) => {
      if (!isMethod(endpoint.method)) throw new Error(`${endpoint.method} ${endpoint.path}: a method the route table does not serve`)
      const rule = Context.getOption(endpoint.annotations, BodyLimit)
      routes.push({
        method: endpoint.method,
        path: endpoint.path,
        limit: Option.match(rule, { onNone: () => DEFAULT_LIMIT, onSome: (r) => limitOf(r, sizes) }),
        endpoint: Option.some(endpoint as unknown as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps),
        middleware: middleware as ReadonlySet<unknown>,
        hotRead: Context.getOption(endpoint.annotations, HotRead)
      })
    }
  })
  return routes
}

export const makeRouteTable = (served: ReadonlyArray<ServedRoute>, sizes: UploadSizes): RouteTableShape => {
  const routes = [
    ...apiRoutes(sizes),
    ...served.map((r): Route => ({
      method: r.method,
      path: r.path,
      limit: { maxBytes: r.maxBodyBytes ?? MAX_JSON_BODY, streamed: false },
      endpoint: Option.none(),
      middleware: new Set(),
      hotRead: Option.none()
    }))
  ]
  // the app's router has the default options (case-insensitive, a trailing slash ignored)
  const router = FindMyWay.make<Route>()
  const declared = new Set<string>()
  for (const route of routes) {
    const key = `${route.method} ${route.path}`
    if (declared.has(key)) throw new Error(`${key} is declared twice`)
    declared.add(key)
    router.on(route.method, route.path as FindMyWay.PathInput, route)
  }

  const find = (method: string, url: string): Found | undefined => {
    try {
      return router.find(method, url) ?? (method === "HEAD" ? router.find("GET", url) : undefined)
    } catch {
      // a path that does not decode (a stray %): no route has it
      return undefined
    }
  }

  const allowedMethods = (path: string) => METHODS.filter((method) => find(method, path) !== undefined)

  return {
    routes,
    find,
    allowedMethods,
    limitOf: (method, url) => find(method.toUpperCase(), url)?.handler.limit ?? DEFAULT_LIMIT,
    labelOf: (method, url, found = find(method, url)) => {
      if (found !== undefined) return found.handler.path
      // another method on a known path (a 405) counts under the path
      for (const other of METHODS) {
        const route = find(other, url)
        if (route !== undefined) return route.handler.path
      }
      return "other"
    },
    checkServed: (servedRoutes) => {
      for (const route of servedRoutes) {
        if (!declared.has(`${route.method} ${route.path}`)) {
          throw new Error(`${route.method} ${route.path} is served but not declared: declare it in the HttpApi, or with its feature's routes in the composition`)
        }
      }
    }
  }
}

/** The daemon's route table; `served` are the routes the composition registers beside the API. */
export class RouteTable extends Context.Tag("http/RouteTable")<RouteTable, RouteTableShape>() {
  static readonly layer = (served: ReadonlyArray<ServedRoute>) =>
    Layer.effect(RouteTable, Effect.map(AppConfig, (config) => makeRouteTable(served, config)))
}
