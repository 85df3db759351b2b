import { createServer, type Server } from "node:http"
import { type BodyLimit, declaredLength } from "./BodyLimits.ts"

/**
 * The Node server under the HTTP app. It answers `Expect: 100-continue` itself: a body declared
 * over its route's limit is not invited (no `100 Continue`), and the app refuses it with 413
 * before reading a byte; any other request is invited and handed on as usual.
 */
export const makeNodeServer = (limitOf: (method: string, url: string) => BodyLimit): Server => {
  const server = createServer()
  server.on("checkContinue", (request, response) => {
    const declared = declaredLength(request.headers)
    if (declared === undefined || declared <= limitOf(request.method ?? "GET", request.url ?? "/").maxBytes) {
      response.writeContinue()
    }
    server.emit("request", request, response)
  })
  return server
}
