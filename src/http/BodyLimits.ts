import * as Context from "effect/Context"

/**
 * How many bytes a request body may have, by route. The upload routes stream their file to
 * disk under their own multipart limits, within POST_MAX_SIZE; every other body is read into
 * memory before its handler runs, so it is small: MAX_JSON_BODY unless its route says less.
 */

export const MAX_JSON_BODY = 64 * 1024

/** What a route declares of its body: read whole within `maxBytes`, or streamed as an upload. */
export type BodyRule =
  | { readonly _tag: "Read"; readonly maxBytes: number }
  /** a multipart upload, within POST_MAX_SIZE; `watchFolder` when it takes activity files, which the watch folder takes too */
  | { readonly _tag: "Upload"; readonly watchFolder: boolean }

export const uploadBody = (options: { readonly watchFolder: boolean }): BodyRule => ({ _tag: "Upload", watchFolder: options.watchFolder })

/**
 * Annotation of an endpoint of the HttpApi whose body is not a small JSON document: an upload.
 * The route table reads it for the listener (an `Expect: 100-continue` over the limit is not
 * invited) and for the app's body limit.
 */
export class BodyLimit extends Context.Tag("http/BodyLimit")<BodyLimit, BodyRule>() {}

/** The limit of one request's body, as the listener and the app apply it. */
export interface Limit {
  readonly maxBytes: number
  /** true when the handler streams the body itself (multipart uploads) */
  readonly streamed: boolean
  /** an upload of activity files, which the watch folder takes too */
  readonly watchFolder?: boolean
}

export const DEFAULT_LIMIT: Limit = { maxBytes: MAX_JSON_BODY, streamed: false }

/** The limit a rule sets, uploads within POST_MAX_SIZE. */
export const limitOf = (rule: BodyRule, postMaxSize: number): Limit =>
  rule._tag === "Read" ? { maxBytes: rule.maxBytes, streamed: false } : { maxBytes: postMaxSize, streamed: true, watchFolder: rule.watchFolder }

/** The declared length, when the request declares one. */
export const declaredLength = (headers: Readonly<Record<string, string | Array<string> | undefined>>): number | undefined => {
  const raw = headers["content-length"]
  if (typeof raw !== "string" || !/^\d+$/.test(raw.trim())) return undefined
  return Number(raw)
}
