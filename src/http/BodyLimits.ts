/**
 * How many bytes a request body may have, by route. The upload routes stream their file to
 * disk under their own multipart limits; every other body is read into memory, so it is small.
 */

export const MAX_JSON_BODY = 64 * 1024

export interface BodyLimitRule {
  readonly method: string
  /** the path without its query string, matched in full */
  readonly path: RegExp
  readonly maxBytes: number
  /** true when the handler streams the body itself (multipart uploads) */
  readonly streamed: boolean
  /** an upload of activity files, which the watch folder takes too */
  readonly watchFolder?: boolean
}

export interface BodyLimit {
  readonly maxBytes: number
  readonly streamed: boolean
  readonly watchFolder?: boolean
}

/** The multipart upload routes of the API, limited to POST_MAX_SIZE. */
export const uploadBodyRules = (postMaxSize: number): ReadonlyArray<BodyLimitRule> => [
  { method: "POST", path: /^\/api\/v1\/activity\/upload\/?$/, maxBytes: postMaxSize, streamed: true, watchFolder: true },
  { method: "POST", path: /^\/api\/v1\/activities\/[^/]+\/images\/?$/, maxBytes: postMaxSize, streamed: true }
]

/** The limit of one request: the first rule that matches, else MAX_JSON_BODY. */
export const makeBodyLimit = (rules: ReadonlyArray<BodyLimitRule>) => (method: string, url: string): BodyLimit => {
  const path = url.split("?")[0]!
  const rule = rules.find((r) => r.method === method.toUpperCase() && r.path.test(path))
  return rule ?? { maxBytes: MAX_JSON_BODY, streamed: false }
}

/** The declared length, when the request declares one. */
export const declaredLength = (headers: Readonly<Record<string, string | Array<string> | undefined>>): number | undefined => {
  const raw = headers["content-length"]
  if (typeof raw !== "string" || !/^\d+$/.test(raw.trim())) return undefined
  return Number(raw)
}
