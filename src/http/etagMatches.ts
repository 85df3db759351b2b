/** Whether an If-None-Match header names `etag` (or is `*`): the client holds that answer already. */
export const etagMatches = (ifNoneMatch: string | ReadonlyArray<string> | undefined, etag: string) =>
  typeof ifNoneMatch === "string" && ifNoneMatch.split(",").some((tag) => {
    const t = tag.trim()
    return t === "*" || t === etag || t === `W/${etag}`
  })
