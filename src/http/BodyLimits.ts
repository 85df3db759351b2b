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
  /**
   * a multipart upload, within POST_MAX_SIZE; `watchFolder` when it takes activity files, which
   * the watch folder takes too; `archives` when it takes export archives, within ARCHIVE_MAX_SIZE
   */
  | { readonly _tag: "Upload"; readonly watchFolder: boolean; readonly archives: boolean }

export const uploadBody = (options: { readonly watchFolder: boolean; readonly archives?: boolean }): BodyRule => ({
  _tag: "Upload",
  watchFolder: options.watchFolder,
  archives: options.archives === true
})

/** The settings that bound an upload's size: a request's (POST_MAX_SIZE) and an archive's (ARCHIVE_MAX_SIZE). */
export interface UploadSizes {
  readonly postMaxSize: number
  readonly archiveMaxSize: number
}

/**
 * Room in a request beside an archive's bytes: the multipart boundaries and part headers, and a
 * few small form fields.
 */
export const MULTIPART_ROOM = 1024 * 1024

/** The most bytes a request of an upload route may have: an archive with its multipart room, or POST_MAX_SIZE. */
export const uploadRequestBytes = (sizes: UploadSizes, archives: boolean): number =>
  archives ? Math.max(sizes.postMaxSize, sizes.archiveMaxSize + MULTIPART_ROOM) : sizes.postMaxSize

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
  /** an upload that takes archives, within this size (ARCHIVE_MAX_SIZE) */
  readonly archiveMaxSize?: number
}

export const DEFAULT_LIMIT: Limit = { maxBytes: MAX_JSON_BODY, streamed: false }

/** The limit a rule sets: uploads within POST_MAX_SIZE, or ARCHIVE_MAX_SIZE for a route that takes archives. */
export const limitOf = (rule: BodyRule, sizes: UploadSizes): Limit =>
  rule._tag === "Read"
    ? { maxBytes: rule.maxBytes, streamed: false }
    : {
      maxBytes: uploadRequestBytes(sizes, rule.archives),
      streamed: true,
      watchFolder: rule.watchFolder,
      ...(rule.archives ? { archiveMaxSize: sizes.archiveMaxSize } : {})
    }

/** The declared length, when the request declares one. */
export const declaredLength = (headers: Readonly<Record<string, string | Array<string> | undefined>>): number | undefined => {
  const raw = headers["content-length"]
  if (typeof raw !== "string" || !/^\d+$/.test(raw.trim())) return undefined
  return Number(raw)
}
