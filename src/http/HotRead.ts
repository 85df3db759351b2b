import * as Context from "effect/Context"
import type { BadRequest, NotFound } from "../schema/ApiErrors.ts"
import type { ActivitySearchParams, FileImportSearchParams } from "../schema/QueryParams.ts"

/**
 * The reads answered by a synchronous handler (HotReads), by name, with what each takes (the
 * endpoint's decoded path and query parameters) and how each may fail (errors its endpoint
 * declares).
 */
export interface HotReadSignatures {
  readonly "system.status": { readonly input: unknown; readonly error: never }
  readonly "activities.search": { readonly input: { readonly urlParams: ActivitySearchParams }; readonly error: BadRequest }
  readonly "activities.get": { readonly input: { readonly path: { readonly activityId: string } }; readonly error: NotFound }
  readonly "fileImports.search": { readonly input: { readonly urlParams: FileImportSearchParams }; readonly error: never }
}

export type HotReadName = keyof HotReadSignatures

/**
 * Annotation of an endpoint of the HttpApi whose answer is a synchronous read: the name of its
 * handler in HotReads. The app's handler of the endpoint is that handler, and the direct
 * routes (DirectRoutes) are derived from the endpoints so annotated: the route, parameters,
 * authorization and answer declared on the endpoint are the only ones either path knows.
 */
export class HotRead extends Context.Tag("http/HotRead")<HotRead, HotReadName>() {}
