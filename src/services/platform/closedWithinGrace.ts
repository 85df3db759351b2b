import type { Server, ServerResponse } from "node:http"

/** How long a stop lets the requests under way finish before their connections are cut. */
export const CLOSE_GRACE_MS = 3_000

/**
 * `server`, whose stop (`close`) never waits on a client: once it begins, each request still
 * answered is answered with `Connection: close`, and after CLOSE_GRACE_MS every connection
 * still open is cut. Node's own close waits for each connection to end, and one that never
 * sends a whole request (a browser's spare socket, a head left half-written) would hold the
 * stop for ever.
 */
export const closedWithinGrace = <S extends Server>(server: S): S => {
  let closing = false
  const underWay = new Set<ServerResponse>()
  server.prependListener("request", (_request, response) => {
    if (closing) response.shouldKeepAlive = false
    underWay.add(response)
    response.once("close", () => underWay.delete(response))
  })
  const close = server.close
  server.close = function(this: S, callback?: (error?: Error) => void) {
    closing = true
    for (const response of underWay) if (!response.headersSent) response.shouldKeepAlive = false
    const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS)
    cut.unref()
    server.once("close", () => clearTimeout(cut))
    return close.call(this, callback)
  } as typeof close
  return server
}
