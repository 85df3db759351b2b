import type * as HttpApi from "@effect/platform/HttpApi"
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import type { WaymarkApi } from "../../Api.ts"

/**
 * The API's endpoints as the dashboard calls them, typed from the HttpApi itself (type-only:
 * nothing of the declaration is bundled). An endpoint is named `<group>.<endpoint>`, as the
 * declaration names them ("activities.get"); its request carries the path parameters, query
 * parameters and JSON payload the declaration gives it, and its answer is the declared
 * success. The method and path of each name are written at build time into the module
 * `waymark:endpoints` (reflected from the same declaration).
 */

type Groups = typeof WaymarkApi extends HttpApi.HttpApi<string, infer G, infer _E, infer _R> ? G : never

/** Every endpoint's name, `<group>.<endpoint>`. */
export type EndpointName = Groups extends infer G
  ? G extends HttpApiGroup.HttpApiGroup<infer Id, infer Endpoints, infer _E, infer _R, infer _T> ? `${Id}.${Endpoints["name"]}` : never
  : never

type EndpointOf<N extends EndpointName> = N extends `${infer G}.${infer E}`
  ? HttpApiEndpoint.HttpApiEndpoint.WithName<HttpApiGroup.HttpApiGroup.EndpointsWithName<Groups, G>, E>
  : never

/**
 * Query parameters as a page writes them: the declared names (not the declaration's catch-all
 * of unknown `filters[...]` names, which it refuses), values that the query string spells.
 */
type QueryOf<P> = { readonly [K in keyof P as string extends K ? never : K]?: string | number | boolean | ReadonlyArray<string> | undefined }

/** What a call of `N` sends: its path parameters, its query, its JSON payload, each when the endpoint has them. */
export type RequestOf<N extends EndpointName> = EndpointOf<N> extends infer E extends HttpApiEndpoint.HttpApiEndpoint.Any
  ? & ([HttpApiEndpoint.HttpApiEndpoint.PathParsed<E>] extends [never] ? {} : { readonly path: HttpApiEndpoint.HttpApiEndpoint.PathParsed<E> })
    & ([HttpApiEndpoint.HttpApiEndpoint.UrlParams<E>] extends [never] ? {} : { readonly query?: QueryOf<HttpApiEndpoint.HttpApiEndpoint.UrlParams<E>> })
    & ([HttpApiEndpoint.HttpApiEndpoint.Payload<E>] extends [never] ? {} : { readonly payload: HttpApiEndpoint.HttpApiEndpoint.Payload<E> })
  : never

/** What the address of `N` carries: its path parameters and query (an upload's body goes apart). */
export type AddressOf<N extends EndpointName> = Omit<RequestOf<N>, "payload">

/** What a call of `N` answers: its declared success (nothing for a 204; a 304 is the browser cache's to answer). */
export type SuccessOf<N extends EndpointName> = [Exclude<HttpApiEndpoint.HttpApiEndpoint.Success<EndpointOf<N>>, void>] extends [never] ? void
  : Exclude<HttpApiEndpoint.HttpApiEndpoint.Success<EndpointOf<N>>, void>

/** The method and declared path (`/api/v1/activities/:activityId`) of every endpoint. */
export type EndpointTable = { readonly [N in EndpointName]: readonly [method: string, path: string] }
